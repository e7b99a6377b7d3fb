package sitemap_test

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/politecrawler/polite/sitemap"
)

func TestParseMaxURLs(t *testing.T) {
	urlset := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString("<urlset " + ns + ">\n")
		for i := range n {
			fmt.Fprintf(&b, "<url><loc>https://example.org/%d</loc></url>\n", i)
		}
		b.WriteString("</urlset>\n")
		return b.Bytes()
	}
	text := func(n int) []byte {
		var b bytes.Buffer
		for i := range n {
			fmt.Fprintf(&b, "https://example.org/%d\n", i)
		}
		return b.Bytes()
	}
	tests := []struct {
		name      string
		body      []byte
		truncated bool
	}{
		{"urlset at the cap", urlset(sitemap.MaxURLs), false},
		{"urlset past the cap", urlset(sitemap.MaxURLs + 1), true},
		{"text at the cap", text(sitemap.MaxURLs), false},
		{"text past the cap", text(sitemap.MaxURLs + 1), true},
		{"gzip text past the cap", gz(t, text(sitemap.MaxURLs+1)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := sitemap.Parse(tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Locs) != sitemap.MaxURLs || f.Truncated != tt.truncated {
				t.Fatalf("Parse: %d locs, Truncated %v; want %d, %v", len(f.Locs), f.Truncated, sitemap.MaxURLs, tt.truncated)
			}
			if last := f.Locs[len(f.Locs)-1]; last != fmt.Sprintf("https://example.org/%d", sitemap.MaxURLs-1) {
				t.Errorf("last loc = %q", last)
			}
		})
	}
}

// TestParseMaxBytes: what lies past MaxBytes is not read, and the cut is
// no error, even where it falls in the middle of a loc or a line.
func TestParseMaxBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 50 MiB three times")
	}
	const first = "https://example.org/first"
	loc := "<url><loc>" + first + "</loc></url>\n"
	pad := "<pad/>" + strings.Repeat(" ", 4000) + "\n"
	tests := []struct {
		name       string
		head, fill string
		n          int
		tail       string
		kind       sitemap.Kind
	}{
		{"urlset over the cap", "<urlset>" + loc, pad, sitemap.MaxBytes, loc + "</urlset>", sitemap.URLSet},
		{"cap cuts a loc", "<urlset>" + loc, pad, sitemap.MaxBytes - len("<urlset>"+loc) - 20, "<url><loc>https://example.org/cut</loc></url></urlset>", sitemap.URLSet},
		{"cap cuts a line", first + "\n", pad[len("<pad/>"):], sitemap.MaxBytes - len(first) - 1 - 15, "https://example.org/cut\n", sitemap.Text},
		{"bomb of zeros", "", "\x00", 60 << 20, "", sitemap.Text},
		{"bomb of white space", first + "\n", " ", 60 << 20, "", sitemap.Text},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := bomb(t, tt.head, tt.fill, tt.n, tt.tail)
			f, err := sitemap.Parse(body)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{first}
			if tt.head == "" {
				want = nil
			}
			if f.Kind != tt.kind || !f.Truncated || !slices.Equal(f.Locs, want) {
				t.Errorf("Parse(%d bytes gzipped) = %v %q Truncated %v; want %v %q Truncated", len(body), f.Kind, f.Locs, f.Truncated, tt.kind, want)
			}
		})
	}
}

// TestParseBombMemory: a gzip bomb of 60 MiB (60 KB gzipped) costs the
// buffers of one pass, not its size. Inside XML, a megabyte without markup
// is an error.
func TestParseBombMemory(t *testing.T) {
	const first = "https://example.org/first"
	urlset := "<urlset><url><loc>" + first + "</loc></url>"
	tests := []struct {
		name       string
		head, fill string
		locs       []string
		wantErr    bool
	}{
		{"zeros", "", "\x00", nil, false},
		{"white space", "", " ", nil, false},
		{"zeros in urlset", urlset, "\x00", []string{first}, true},
		{"white space in urlset", urlset, " ", []string{first}, true},
		{"text in urlset", urlset, "a", []string{first}, true},
		{"white space in a loc", urlset + "<url><loc>", " ", []string{first}, true},
		{"white space before the root", `<?xml version="1.0"?>`, "\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := bomb(t, tt.head, tt.fill, 60<<20, "</loc></url></urlset>")
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			f, err := sitemap.Parse(body)
			runtime.ReadMemStats(&after)
			if (err != nil) != tt.wantErr || !slices.Equal(f.Locs, tt.locs) {
				t.Errorf("Parse = %+v, %v", f, err)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 8<<20 {
				t.Errorf("Parse of a %d-byte gzip bomb allocated %d bytes", len(body), n)
			}
		})
	}
}

// bomb is head, n bytes of fill repeated (white space after the last
// whole one), then tail, gzipped as members of one stream, as gzip allows:
// a member of 1 MiB of one byte is about 1 KB, and is built once.
func bomb(tb testing.TB, head, fill string, n int, tail string) []byte {
	tb.Helper()
	chunk := strings.Repeat(fill, (1<<20)/len(fill))
	rest := strings.Repeat(fill, n%len(chunk)/len(fill))
	rest += strings.Repeat(" ", n%len(chunk)-len(rest))
	body := gz(tb, []byte(head))
	body = append(body, bytes.Repeat(gz(tb, []byte(chunk)), n/len(chunk))...)
	body = append(body, gz(tb, []byte(rest))...)
	return append(body, gz(tb, []byte(tail))...)
}
