package sitemap_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/politecrawler/polite/sitemap"
)

const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`

var parseTests = []struct {
	name       string
	body       string
	want       sitemap.File
	wantErr    bool
	notSitemap bool // the error wraps ErrNotSitemap
}{
	{
		name: "urlset",
		body: `<?xml version="1.0" encoding="UTF-8"?>
<urlset ` + ns + `>
  <url><loc>https://example.org/</loc><lastmod>2026-01-01</lastmod><priority>1.0</priority></url>
  <url>
    <loc>
      https://example.org/a?x=1&amp;y=2
    </loc>
  </url>
  <url><loc><![CDATA[https://example.org/cdata]]></loc></url>
  <url><loc>  </loc></url>
  <url><changefreq>daily</changefreq></url>
</urlset>`,
		want: sitemap.File{Kind: sitemap.URLSet, Locs: []string{"https://example.org/", "https://example.org/a?x=1&y=2", "https://example.org/cdata"}},
	},
	{
		name: "index",
		body: `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex ` + ns + `>
  <sitemap><loc>https://example.org/s1.xml.gz</loc><lastmod>2026-01-01T00:00:00Z</lastmod></sitemap>
  <sitemap><loc>https://example.org/s2.xml</loc></sitemap>
</sitemapindex>`,
		want: sitemap.File{Kind: sitemap.Index, Locs: []string{"https://example.org/s1.xml.gz", "https://example.org/s2.xml"}},
	},
	{
		name: "no namespace",
		body: `<urlset><url><loc>http://a.test/</loc></url></urlset>`,
		want: sitemap.File{Kind: sitemap.URLSet, Locs: []string{"http://a.test/"}},
	},
	{
		name: "prefixed namespace",
		body: `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://a.test/</sm:loc></sm:url></sm:urlset>`,
		want: sitemap.File{Kind: sitemap.URLSet, Locs: []string{"http://a.test/"}},
	},
	{
		name: "legacy namespace",
		body: `<urlset xmlns="http://www.google.com/schemas/sitemap/0.84"><url><loc>http://a.test/</loc></url></urlset>`,
		want: sitemap.File{Kind: sitemap.URLSet, Locs: []string{"http://a.test/"}},
	},
	{
		name: "image extension",
		body: `<urlset ` + ns + ` xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc>https://example.org/page</loc>
    <image:image><image:loc>https://example.org/a.jpg</image:loc></image:image>
    <image:loc>https://example.org/b.jpg</image:loc>
  </url>
</urlset>`,
		want: sitemap.File{Kind: sitemap.URLSet, Locs: []string{"https://example.org/page"}},
	},
	{
		name: "undeclared prefix",
		body: `<urlset ` + ns + `><url><image:loc>https://example.org/a.jpg</image:loc><loc>https://example.org/page</loc></url></urlset>`,
		want: sitemap.File{Kind: sitemap.URLSet, Locs: []string{"https://example.org/page"}},
	},
	{
		name: "entries of the other kind and out of place",
		body: `<urlset ` + ns + `><sitemap><loc>http://a.test/s.xml</loc></sitemap><group><url><loc>http://a.test/deep</loc></url></group><loc>http://a.test/bare</loc><url><loc>http://a.test/ok</loc></url></urlset>`,
		want: sitemap.File{Kind: sitemap.URLSet, Locs: []string{"http://a.test/ok"}},
	},
	{
		name: "XML with BOM and CRLF",
		body: "\ufeff<?xml version=\"1.0\"?>\r\n<urlset " + ns + ">\r\n<url><loc>http://a.test/</loc></url>\r\n</urlset>\r\n",
		want: sitemap.File{Kind: sitemap.URLSet, Locs: []string{"http://a.test/"}},
	},
	{
		name: "US-ASCII",
		body: `<?xml version="1.0" encoding="US-ASCII"?><urlset><url><loc>http://a.test/</loc></url></urlset>`,
		want: sitemap.File{Kind: sitemap.URLSet, Locs: []string{"http://a.test/"}},
	},
	{
		name:    "Latin-1",
		body:    `<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>http://a.test/caf` + "\xe9" + `</loc></url></urlset>`,
		wantErr: true, // a sitemap, but not one read
	},
	{
		name: "text",
		body: "\ufeffhttps://example.org/\r\n\r\n  http://example.org/a  \r\nHTTPS://EXAMPLE.ORG/B\n" +
			"# a comment\nftp://example.org/f\n/relative\nhttp://\nhttp://example.org/a b\nexample.org/c\nmailto:x@example.org\n" +
			"https://example.org/caf\xe9\nhttps://example.org/last",
		want: sitemap.File{Kind: sitemap.Text, Locs: []string{"https://example.org/", "http://example.org/a", "HTTPS://EXAMPLE.ORG/B", "https://example.org/last"}},
	},
	{
		name: "empty",
		body: "",
		want: sitemap.File{Kind: sitemap.Text},
	},
	{
		name: "no URL",
		body: `{"urls": ["https://example.org/"]}`,
		want: sitemap.File{Kind: sitemap.Text},
	},
	{
		name:    "HTML page",
		body:    "<!DOCTYPE html>\n<html><head><title>Not found</title></head><body><a href=\"/\">home</a></body></html>",
		wantErr: true, notSitemap: true,
	},
	{
		name:    "feed",
		body:    `<?xml version="1.0"?><rss version="2.0"><channel><item><link>http://a.test/</link></item></channel></rss>`,
		wantErr: true, notSitemap: true,
	},
	{
		name:    "comments only",
		body:    `<?xml version="1.0"?><!-- nothing -->`,
		wantErr: true, notSitemap: true,
	},
	{
		name:    "malformed before the root",
		body:    `<<urlset><url><loc>http://a.test/</loc></url></urlset>`,
		wantErr: true, notSitemap: true,
	},
	{
		name:    "malformed before any loc",
		body:    `<urlset><url><loc>http://a.test/</lo></url></urlset>`,
		want:    sitemap.File{Kind: sitemap.URLSet},
		wantErr: true,
	},
	{
		name:    "malformed mid-way",
		body:    `<urlset><url><loc>http://a.test/1</loc></url><url><loc>http://a.test/2</loc></url><url><loc>http://a.test/3</loc><url></urlset>`,
		want:    sitemap.File{Kind: sitemap.URLSet, Locs: []string{"http://a.test/1", "http://a.test/2", "http://a.test/3"}},
		wantErr: true,
	},
	{
		name:    "cut short",
		body:    `<sitemapindex><sitemap><loc>http://a.test/1.xml</loc></sitemap><sitemap><loc>http://a.te`,
		want:    sitemap.File{Kind: sitemap.Index, Locs: []string{"http://a.test/1.xml"}},
		wantErr: true,
	},
}

// TestParse runs each case as it is and gzipped: the result is the same.
func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		for _, zipped := range []bool{false, true} {
			name, body := tt.name, []byte(tt.body)
			if zipped {
				name, body = name+"/gzip", gz(t, body)
			}
			t.Run(name, func(t *testing.T) {
				got, err := sitemap.Parse(body)
				if (err != nil) != tt.wantErr || errors.Is(err, sitemap.ErrNotSitemap) != tt.notSitemap {
					t.Fatalf("Parse: err = %v; want error %v, ErrNotSitemap %v", err, tt.wantErr, tt.notSitemap)
				}
				if !tt.notSitemap && !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Parse = %#v\nwant    %#v", got, tt.want)
				}
			})
		}
	}
}

func TestParseCorruptGzip(t *testing.T) {
	whole := gz(t, []byte(`<urlset><url><loc>http://a.test/1</loc></url><url><loc>http://a.test/2</loc></url></urlset>`))
	badCRC := bytes.Clone(whole)
	badCRC[len(badCRC)-8] ^= 0xff
	tests := []struct {
		name string
		body []byte
		is   error
	}{
		{"bad header", []byte("\x1f\x8bnot gzip at all"), gzip.ErrHeader},
		{"magic only", []byte("\x1f\x8b"), nil},
		{"cut short", whole[:len(whole)/2], nil},
		{"bad checksum", badCRC, gzip.ErrChecksum},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := sitemap.Parse(tt.body)
			if err == nil || errors.Is(err, sitemap.ErrNotSitemap) || !strings.Contains(err.Error(), "gzip") {
				t.Fatalf("Parse: err = %v; want a gzip error", err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Parse: err = %v; want %v", err, tt.is)
			}
			if len(f.Locs) > 2 || f.Truncated {
				t.Errorf("Parse = %+v", f)
			}
		})
	}
}

// TestParseGzipCut: a stream that ends without its trailer keeps the locs
// before the cut, but not the loc or line it cuts.
func TestParseGzipCut(t *testing.T) {
	tests := []struct {
		name, whole, cut string
		want             []string
	}{
		{"text", "https://example.org/a\n", "https://example.org/pa", []string{"https://example.org/a"}},
		{"urlset", "<urlset><url><loc>https://example.org/a</loc></url>", "<url><loc>https://example.org/pa", []string{"https://example.org/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := gzip.NewWriter(&buf)
			w.Write([]byte(tt.whole + tt.cut))
			w.Flush() // what was written can be read; the stream has no end
			f, err := sitemap.Parse(buf.Bytes())
			if !errors.Is(err, io.ErrUnexpectedEOF) || !reflect.DeepEqual(f.Locs, tt.want) {
				t.Errorf("Parse = %q, %v; want %q, unexpected EOF", f.Locs, err, tt.want)
			}
		})
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[sitemap.Kind]string{sitemap.URLSet: "urlset", sitemap.Index: "sitemapindex", sitemap.Text: "text", 0: "Kind(0)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q; want %q", int(k), got, want)
		}
	}
}

// gz compresses b.
func gz(tb testing.TB, b []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
