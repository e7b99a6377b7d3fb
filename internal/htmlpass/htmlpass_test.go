package htmlpass

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestHTMLPassText(t *testing.T) {
	tests := []struct{ name, html, want string }{
		{"empty", "", ""},
		{"plain", "hello   world", "hello world"},
		{"blocks", "<p>one</p><p>two</p><div>three<br>four</div>", "one\ntwo\nthree\nfour"},
		{"inline", "<p>a<b>b</b><i> c</i></p>", "ab c"},
		{"headings and lists", "<h1>T</h1><ul><li>x</li><li>y</li></ul>", "T\nx\ny"},
		{"no leading or trailing space", "  <p>  x  </p>  ", "x"},
		{"entities", "<p>a &amp; b &lt;c&gt; &eacute;</p>", "a & b <c> é"},
		{"nbsp is a space", "a&nbsp;&nbsp;b", "a b"},
		{"script style noscript", "<script>var x='<p>no</p>'</script>a<style>p{}</style>b<noscript>no</noscript>c", "abc"},
		{"self-closed script still holds text", "<script/>var x=1</script>a", "a"},
		{"template", "<template><p>no</p><template>no</template>no</template>yes", "yes"},
		{"svg", "<p>a</p><svg><text>no</text><style>x</style><svg>no</svg>no</svg><p>b</p>", "a\nb"},
		{"svg style is markup", "<svg><style></svg>yes", "yes"},
		{"self-closed svg", "<svg/>yes", "yes"},
		{"math", "x<math><mi>no</mi></math>y", "xy"},
		{"title is not text", "<title>T</title><p>body</p>", "body"},
		{"textarea", "a<textarea>no</textarea>b", "ab"},
		{"table cells", "<table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table>", "a b\nc d"},
		{"pre keeps space", "<p>x</p><pre>\n  line 1\n    line 2\n</pre><p>y</p>", "x\n  line 1\n    line 2\ny"},
		{"xmp", "a<xmp><b>raw</b></xmp>", "a\n<b>raw</b>"},
		{"comments", "a<!-- no -->b<!-- no", "ab"},
		{"undeclared bytes are windows-1252", "a\xffb\x80", "a\u00ffb\u20ac"},
		{"controls", "a\x01\x02b", "a b"},
		{"crlf", "a\r\n\r\nb", "a b"},
		{"unclosed tags", "<div><p>a<div>b", "a\nb"},
		{"head text", "<html><head><title>T</title><meta name=x content=y></head><body>b</body></html>", "b"},
	}
	for _, tt := range tests {
		p := Parse([]byte(tt.html), "", nil)
		if p.Text != tt.want {
			t.Errorf("%s: Text = %q, want %q", tt.name, p.Text, tt.want)
		}
		if n := TextLen([]byte(tt.html)); n != utf8.RuneCountInString(tt.want) {
			t.Errorf("%s: TextLen = %d, want %d", tt.name, n, utf8.RuneCountInString(tt.want))
		}
	}
}

func TestHTMLPassTitle(t *testing.T) {
	for in, want := range map[string]string{
		"<title>  A\n  title </title>":           "A title",
		"<title>a &amp; b</title>":               "a & b",
		"<title>first</title><title>second":      "first",
		"<svg><title>icon</title></svg><p>x":     "",
		"<svg><title>icon</title></svg><title>t": "t",
		"<title><b>not markup</b></title>":       "<b>not markup</b>",
		"no title":                               "",
	} {
		if got := Parse([]byte(in), "", nil).Title; got != want {
			t.Errorf("Title of %q = %q, want %q", in, got, want)
		}
	}
}

func TestHTMLPassLinks(t *testing.T) {
	page := mustURL(t, "https://example.com/dir/page.html?q=1")
	tests := []struct {
		name, html string
		want       []Link
	}{
		{"relative", `<a href="b.html">`, []Link{{"https://example.com/dir/b.html", false}}},
		{"root and parent", `<a href="/x"></a><a href="../y">`, []Link{{"https://example.com/x", false}, {"https://example.com/y", false}}},
		{"query only", `<a href="?p=2">`, []Link{{"https://example.com/dir/page.html?p=2", false}}},
		{"protocol relative", `<a href="//other.org/z">`, []Link{{"https://other.org/z", false}}},
		{"fragment dropped", `<a href="b.html#top">`, []Link{{"https://example.com/dir/b.html", false}}},
		{"same-page fragment", `<a href="#top">`, nil},
		{"deduplicated", `<a href="b.html">1</a><a href="./b.html#x">2</a><a href="https://example.com/dir/b.html">3</a>`,
			[]Link{{"https://example.com/dir/b.html", false}}},
		{"not web", `<a href="mailto:a@b">m</a><a href="javascript:go()">j</a><a href="ftp://x/y">f</a><a href="data:,x">d</a><a href="tel:1">t</a>`, nil},
		{"nofollow", `<a href="n" rel="NoFollow ugc">`, []Link{{"https://example.com/dir/n", true}}},
		{"nofollow merged with a plain link", `<a href="n" rel=nofollow></a><a href="n">`, []Link{{"https://example.com/dir/n", false}}},
		{"nofollow twice", `<a href="n" rel=nofollow></a><a href="n" rel="external nofollow">`, []Link{{"https://example.com/dir/n", true}}},
		{"white space in href", "<a href=\" \n b\tc.html \">", []Link{{"https://example.com/dir/bc.html", false}}},
		{"area", `<map><area href="/area"></map>`, []Link{{"https://example.com/area", false}}},
		{"link rels", `<link rel=stylesheet href=s.css><link rel="alternate" href="/feed"><link rel=next href=p2><link rel=prev href=p0><link rel=icon href=i.png><link rel="alternate stylesheet" href=alt.css>`,
			[]Link{{"https://example.com/feed", false}, {"https://example.com/dir/p2", false}, {"https://example.com/dir/p0", false}}},
		{"base", `<head><base href="https://cdn.example.net/root/"></head><a href="x">`, []Link{{"https://cdn.example.net/root/x", false}}},
		{"relative base", `<base href="/other/"><a href="x">`, []Link{{"https://example.com/other/x", false}}},
		{"first base only", `<base href="/one/"><base href="/two/"><a href="x">`, []Link{{"https://example.com/one/x", false}}},
		{"template links are inert", `<template><a href="t">t</a></template><a href="u">`, []Link{{"https://example.com/dir/u", false}}},
		{"a without href", `<a name="x">x</a>`, nil},
		{"empty href is the page", `<a href="">`, nil},
		{"unparsable", `<a href="http://[::1">`, nil},
		{"upper-case scheme and host, as browsers write them", `<a href="HTTP://Example.COM/A">`, []Link{{"http://example.com/A", false}}},
	}
	for _, tt := range tests {
		p := Parse([]byte(tt.html), "", page)
		if !reflect.DeepEqual(p.Links, tt.want) {
			t.Errorf("%s: Links = %v, want %v", tt.name, p.Links, tt.want)
		}
	}
	// Without a page URL only absolute links resolve.
	p := Parse([]byte(`<a href="rel">r</a><a href="https://a.example/x">a</a>`), "", nil)
	if want := []Link{{"https://a.example/x", false}}; !reflect.DeepEqual(p.Links, want) {
		t.Errorf("no page URL: Links = %v, want %v", p.Links, want)
	}
}

func TestHTMLPassMeta(t *testing.T) {
	p := Parse([]byte(`<head>
<meta name="Robots" content=" noindex ">
<meta name="robots" content="nofollow">
<meta name="PoliteCrawler" content="nosnippet">
<meta name="tdm-reservation" content="1">
<meta name="tdm-policy" content="https://example.com/policy.json">
<meta name="description" content="A &amp; B">
<meta property="og:title" content="ignored">
<meta name="empty">
<meta charset="utf-8">
</head>`), "", nil)
	want := map[string]string{
		"robots":          "noindex, nofollow",
		"politecrawler":   "nosnippet",
		"tdm-reservation": "1",
		"tdm-policy":      "https://example.com/policy.json",
		"description":     "A & B",
		"empty":           "",
	}
	if !reflect.DeepEqual(p.Meta, want) {
		t.Errorf("Meta = %v, want %v", p.Meta, want)
	}
	if p := Parse([]byte(`<p>none</p>`), "", nil); p.Meta != nil {
		t.Errorf("Meta of a page without meta = %v, want nil", p.Meta)
	}
}

func TestHTMLPassMetaBounds(t *testing.T) {
	var b strings.Builder
	for i := range MaxMetaNames + 10 {
		fmt.Fprintf(&b, `<meta name="m%d" content="x">`, i)
	}
	b.WriteString(`<meta name="robots" content="noai">`)
	for range 2 * MaxMetaContent / 10 {
		b.WriteString(`<meta name="long" content="0123456789">`)
	}
	p := Parse([]byte(b.String()), "", nil)
	if len(p.Meta) > MaxMetaNames+len(signalMetaNames) {
		t.Errorf("%d meta names kept, want at most %d", len(p.Meta), MaxMetaNames+len(signalMetaNames))
	}
	if p.Meta["robots"] != "noai" {
		t.Errorf("robots meta past the name limit = %q, want it kept", p.Meta["robots"])
	}
	if _, ok := p.Meta[fmt.Sprintf("m%d", MaxMetaNames+5)]; ok {
		t.Error("a name past the limit was kept")
	}
	p = Parse([]byte(strings.Repeat(`<meta name="robots" content="0123456789">`, MaxMetaContent)), "", nil)
	if n := len(p.Meta["robots"]); n > MaxMetaContent {
		t.Errorf("robots meta content %d bytes, want at most %d", n, MaxMetaContent)
	}
}

func TestHTMLPassRefresh(t *testing.T) {
	page := mustURL(t, "https://example.com/a/")
	for in, want := range map[string]string{
		`<meta http-equiv="refresh" content="0; url=/next">`:                                             "https://example.com/next",
		`<meta http-equiv="Refresh" content="5;URL='b.html#f'">`:                                         "https://example.com/a/b.html",
		`<meta http-equiv="refresh" content="3, https://other.org/">`:                                    "https://other.org/",
		`<meta http-equiv="refresh" content="1.5; url = &quot;c&quot;">`:                                 "https://example.com/a/c",
		`<meta http-equiv="refresh" content="30">`:                                                       "",
		`<meta http-equiv="refresh" content="url=/x">`:                                                   "",
		`<meta http-equiv="refresh" content="0; url=javascript:x()">`:                                    "",
		`<meta http-equiv="refresh" content="0; url=/1"><meta http-equiv="refresh" content="0; url=/2">`: "https://example.com/1",
	} {
		if got := Parse([]byte(in), "", page).Refresh; got != want {
			t.Errorf("Refresh of %s = %q, want %q", in, got, want)
		}
	}
}

// A body past MaxInput is read up to it; text and links stop at their
// bounds; memory stays proportional to what is kept, not to the markup.
func TestHTMLPassBounds(t *testing.T) {
	var b bytes.Buffer
	for i := 0; b.Len() < MaxInput+1<<20; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d of a long page, with <a href=\"/p/%d\">a link</a>.</p>\n", i, i)
	}
	body := b.Bytes()
	page := mustURL(t, "https://example.com/")
	var p Page
	alloc := allocated(func() { p = Parse(body, "", page) })
	if !p.Truncated || p.Read != MaxInput {
		t.Errorf("Truncated %v, Read %d; want true, %d", p.Truncated, p.Read, MaxInput)
	}
	if !p.TextTruncated || len(p.Text) > MaxText || !utf8.ValidString(p.Text) {
		t.Errorf("TextTruncated %v, %d bytes of text; want true, at most %d", p.TextTruncated, len(p.Text), MaxText)
	}
	if !p.LinksTruncated || len(p.Links) != MaxLinks {
		t.Errorf("LinksTruncated %v, %d links; want true, %d", p.LinksTruncated, len(p.Links), MaxLinks)
	}
	// Kept: 1 MiB of text and 10,000 links (~0.3 MiB, plus the index),
	// with the growth of their slices. Generous: 32 MiB, against 11 MiB read.
	if alloc > 32<<20 {
		t.Errorf("Parse of %d bytes allocated %d bytes, want at most 32 MiB", len(body), alloc)
	}
	// TextLen keeps nothing; what it allocates is the Tokenizer's: its
	// buffer, and a short-lived copy of every attribute name.
	if alloc := allocated(func() { TextLen(body) }); alloc > int64(len(body))/2 {
		t.Errorf("TextLen of %d bytes allocated %d bytes, want at most half that", len(body), alloc)
	}
}

func TestHTMLPassLinkBounds(t *testing.T) {
	page := mustURL(t, "https://example.com/")
	long := strings.Repeat("x", MaxLinkLen)
	p := Parse([]byte(`<a href="/`+long+`">long</a><a href="/ok">ok</a>`), "", page)
	if want := []Link{{"https://example.com/ok", false}}; !reflect.DeepEqual(p.Links, want) {
		t.Errorf("Links = %v, want only the short one", p.Links)
	}
	// Many long links reach MaxLinkBytes before MaxLinks.
	var b strings.Builder
	for i := 0; i < MaxLinks; i++ {
		fmt.Fprintf(&b, `<a href="/%d/%s">`, i, strings.Repeat("y", 1000))
	}
	p = Parse([]byte(b.String()), "", page)
	total := 0
	for _, l := range p.Links {
		total += len(l.URL)
	}
	if !p.LinksTruncated || total > MaxLinkBytes {
		t.Errorf("LinksTruncated %v, %d bytes of links; want true, at most %d", p.LinksTruncated, total, MaxLinkBytes)
	}
}

// Nesting costs nothing: the pass keeps counters, not a stack.
func TestHTMLPassDeepNesting(t *testing.T) {
	const depth = 100000
	for _, tag := range []string{"div", "span", "b", "pre", "svg", "template", "table", "a href=x"} {
		name, _, _ := strings.Cut(tag, " ")
		body := []byte(strings.Repeat("<"+tag+">", depth) + "deep" + strings.Repeat("</"+name+">", depth) + "<p>after</p>")
		var p Page
		alloc := allocated(func() { p = Parse(body, "", mustURL(t, "https://example.com/")) })
		want := "deep\nafter"
		switch name {
		case "svg", "template":
			want = "after"
		case "span", "b", "a":
			want = "deep\nafter" // </p>'s block boundary
		}
		if p.Text != want {
			t.Errorf("%d × <%s>: Text = %q, want %q", depth, tag, p.Text, want)
		}
		// The tokenizer's buffer and the text: a few times the input at most.
		if alloc > 8*int64(len(body))+1<<20 {
			t.Errorf("%d × <%s>: %d bytes allocated for %d bytes of input", depth, tag, alloc, len(body))
		}
	}
	// Unclosed, too.
	body := []byte(strings.Repeat("<div><span><svg>", depth))
	if p := Parse(body, "", nil); p.Text != "" {
		t.Errorf("unclosed nesting: Text = %q", p.Text)
	}
}

// Pathological markup stays linear: unterminated comments, scripts and
// attributes, and a flood of tags.
func TestHTMLPassPathological(t *testing.T) {
	cases := map[string][]byte{
		"unterminated comment": append([]byte("<!--"), bytes.Repeat([]byte("-- >"), 1<<20)...),
		"unterminated script":  append([]byte("<script>"), bytes.Repeat([]byte("</scrip"), 1<<20)...),
		"unterminated attr":    append([]byte(`<a href="`), bytes.Repeat([]byte("x"), 4<<20)...),
		"many attributes":      append([]byte("<p "), bytes.Repeat([]byte("a=1 "), 1<<20)...),
		"tag flood":            bytes.Repeat([]byte("<a href=/x>"), 1<<20),
		"entity flood":         bytes.Repeat([]byte("&amp;&#x41;&bogus;"), 1<<19),
	}
	for name, body := range cases {
		var p Page
		alloc := allocated(func() { p = Parse(body, "", mustURL(t, "https://example.com/")) })
		if len(p.Text) > MaxText || len(p.Links) > MaxLinks {
			t.Errorf("%s: %d bytes of text, %d links", name, len(p.Text), len(p.Links))
		}
		// Generous: the Tokenizer makes two short-lived copies of every
		// attribute name, the race detector adds its own; what is kept is
		// bounded by the limits above.
		if alloc > 16*int64(len(body))+8<<20 {
			t.Errorf("%s: %d bytes allocated for %d bytes of input", name, alloc, len(body))
		}
	}
}

func TestHTMLPassSeedPages(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/pages/*.html")
	if len(files) == 0 {
		t.Skip("no pages in testdata/pages")
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := Parse(body, "", mustURL(t, "https://example.com/"+filepath.Base(f)))
		if p.Text == "" || !utf8.ValidString(p.Text) {
			t.Errorf("%s: no text, or invalid UTF-8", f)
		}
		checkPage(t, p)
	}
}

// checkPage asserts what holds for every page.
func checkPage(t *testing.T, p Page) {
	t.Helper()
	if !utf8.ValidString(p.Text) || len(p.Text) > MaxText {
		t.Errorf("Text: invalid UTF-8 or %d bytes", len(p.Text))
	}
	if strings.TrimSpace(p.Text) != p.Text {
		t.Errorf("Text has leading or trailing white space: %q", p.Text)
	}
	if len(p.Links) > MaxLinks {
		t.Errorf("%d links", len(p.Links))
	}
	seen := map[string]bool{}
	for _, l := range p.Links {
		u, err := url.Parse(l.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" || strings.Contains(l.URL, "#") {
			t.Errorf("link %q is not an absolute web URL without fragment", l.URL)
		}
		if seen[l.URL] {
			t.Errorf("link %q twice", l.URL)
		}
		seen[l.URL] = true
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// The pass itself allocates nothing per tag or per text; the Tokenizer
// (golang.org/x/net/html) makes two small allocations per attribute, to
// drop duplicate attributes.
func TestHTMLPassAllocsPerRun(t *testing.T) {
	const n, attrs = 1000, 1000
	body := []byte(strings.Repeat("<div class=c><p>Some text, <b>bold</b> and <i>more</i>.</p></div>\n", n))
	if a := testing.AllocsPerRun(5, func() { TextLen(body) }); a > 2*attrs+20 {
		t.Errorf("TextLen: %v allocations for %d tags and %d attributes, want at most %d", a, 7*n, attrs, 2*attrs+20)
	}
	if a := testing.AllocsPerRun(5, func() { Parse(body, "text/html; charset=utf-8", nil) }); a > 2*attrs+60 {
		t.Errorf("Parse: %v allocations for %d tags and %d attributes, want at most %d", a, 7*n, attrs, 2*attrs+60)
	}
	// Without a charset in the header, the <meta> prescan reads the first
	// 1024 bytes with a Tokenizer of its own: a bounded cost per page.
	if a := testing.AllocsPerRun(5, func() { Parse(body, "text/html", nil) }); a > 2*attrs+60+prescanLen/16 {
		t.Errorf("Parse with the prescan: %v allocations for %d tags and %d attributes, want at most %d", a, 7*n, attrs, 2*attrs+60+prescanLen/16)
	}
}

// BenchmarkHTMLPass measures the pass over a realistic page (MB/s).
func BenchmarkHTMLPass(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`<!doctype html><html><head><title>A page</title><meta name="robots" content="index, follow">` +
		`<script>window.x = {"a": [1,2,3], "b": "<p>not text</p>"};</script><style>body{margin:0}</style></head><body>`)
	for i := 0; buf.Len() < 512<<10; i++ {
		fmt.Fprintf(&buf, `<div class="row"><h2>Heading %d</h2><p>Some text with <a href="/article/%d">a link</a>, `+
			`<b>bold</b> and <span class="x">&amp; entities&nbsp;here</span>.</p><ul><li>one</li><li>two</li></ul></div>`+"\n", i, i%500)
	}
	buf.WriteString("</body></html>")
	body := buf.Bytes()
	page := mustURL(b, "https://example.com/")
	b.Run("Parse", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			Parse(body, "", page)
		}
	})
	b.Run("TextLen", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			TextLen(body)
		}
	})
}
