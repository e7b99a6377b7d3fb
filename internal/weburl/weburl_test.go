package weburl

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

const page = "http://example.com/dir/page.html"

func TestResolve(t *testing.T) {
	for _, c := range []struct {
		name, enc, ref, want string
	}{
		// R8.4: the path in UTF-8, the query in the page's encoding.
		{"windows-1251", "windows-1251", "/путь?q=слово", "http://example.com/%D0%BF%D1%83%D1%82%D1%8C?q=%F1%EB%EE%E2%EE"},
		{"windows-1251 by another label", "CP1251", "?q=слово", "http://example.com/dir/page.html?q=%F1%EB%EE%E2%EE"},
		{"UTF-8 page", "", "/путь?q=слово", "http://example.com/%D0%BF%D1%83%D1%82%D1%8C?q=%D1%81%D0%BB%D0%BE%D0%B2%D0%BE"},
		{"utf-8 by name", "UTF-8", "?q=слово", "http://example.com/dir/page.html?q=%D1%81%D0%BB%D0%BE%D0%B2%D0%BE"},
		{"Shift_JIS", "shift_jis", "/日本?q=日本", "http://example.com/%E6%97%A5%E6%9C%AC?q=%93%FA%96{"},
		{"Shift_JIS trail byte 0x5C stays", "sjis", "?q=表", "http://example.com/dir/page.html?q=%95\\"},
		{"Shift_JIS yen sign", "shift_jis", "?q=¥", "http://example.com/dir/page.html?q=\\"},
		{"Shift_JIS IBM extension, not NEC's copy", "shift_jis", "?q=髙", "http://example.com/dir/page.html?q=%FB%FC"},
		{"EUC-JP", "euc-jp", "?q=日本", "http://example.com/dir/page.html?q=%C6%FC%CB%DC"},
		{"ISO-2022-JP", "iso-2022-jp", "?q=日本", "http://example.com/dir/page.html?q=%1B$BF|K\\%1B(B"},
		{"ISO-2022-JP byte '#' escaped", "iso-2022-jp", "?q=０#f", "http://example.com/dir/page.html?q=%1B$B%230%1B(B"},
		{"GBK", "gbk", "?q=中文", "http://example.com/dir/page.html?q=%D6%D0%CE%C4"},
		{"GBK euro sign", "gb2312", "?q=€", "http://example.com/dir/page.html?q=%80"},
		{"GBK has no four-byte forms", "gbk", "?q=\u0080", "http://example.com/dir/page.html?q=%26%23128%3B"},
		{"gb18030", "gb18030", "?q=中€\u0080", "http://example.com/dir/page.html?q=%D6%D0%A2%E3%810%810"},
		{"Big5", "big5", "?q=中文", "http://example.com/dir/page.html?q=%A4%A4%A4%E5"},
		{"Big5 first pointer", "big5", "?q=香港", "http://example.com/dir/page.html?q=%AD%BB%B4%E4"},
		{"EUC-KR", "euc-kr", "?q=한국", "http://example.com/dir/page.html?q=%C7%D1%B1%B9"},
		{"ISO-8859-2", "iso-8859-2", "?q=łódź", "http://example.com/dir/page.html?q=%B3%F3d%BC"},
		{"windows-1252", "windows-1252", "?q=café €™", "http://example.com/dir/page.html?q=caf%E9%20%80%99"},
		{"latin1 is windows-1252", "latin1", "?q=€", "http://example.com/dir/page.html?q=%80"},
		{"no such character in the encoding", "windows-1251", "?q=☃", "http://example.com/dir/page.html?q=%26%239731%3B"},
		{"UTF-16LE page: UTF-8", "utf-16le", "?q=слово", "http://example.com/dir/page.html?q=%D1%81%D0%BB%D0%BE%D0%B2%D0%BE"},
		{"UTF-16BE page: UTF-8", "utf-16be", "?q=é", "http://example.com/dir/page.html?q=%C3%A9"},
		{"ASCII query unchanged", "windows-1251", "?a=1&b='x'", "http://example.com/dir/page.html?a=1&b=%27x%27"},
		{"percent-escapes kept", "windows-1251", "?q=%D1%81&r=%zz", "http://example.com/dir/page.html?q=%D1%81&r=%zz"},

		// fragments
		{"fragment dropped", "", "/a?b#frag", "http://example.com/a?b"},
		{"fragment only: the page", "", "#top", page},
		{"fragment with a legacy query", "windows-1251", "?q=д#д", "http://example.com/dir/page.html?q=%E4"},

		// the parser's first steps
		{"tabs and newlines removed", "", "/a\tb\nc\r/d", "http://example.com/abc/d"},
		{"tabs and newlines removed in a legacy query", "windows-1251", "?q=д\tд\n", "http://example.com/dir/page.html?q=%E4%E4"},
		{"spaces and controls around trimmed", "", " \x01 x \x00", "http://example.com/dir/x"},
		{"backslash is a slash", "", "\\a\\b", "http://example.com/a/b"},

		// relative forms and hosts
		{"relative path", "", "a/../b", "http://example.com/dir/b"},
		{"scheme-relative", "", "//Example.ORG:80/x", "http://example.org/x"},
		{"IDN host in A-labels", "", "//Bücher.example/", "http://xn--bcher-kva.example/"},
		{"IDN host on a legacy page", "windows-1251", "http://пример.example/путь?q=д", "http://xn--e1afmkfd.example/%D0%BF%D1%83%D1%82%D1%8C?q=%E4"},
		{"https", "", "https://a.example", "https://a.example/"},
		{"IPv4 as a browser reads it", "", "http://0x7f.1/", "http://127.0.0.1/"},
		{"^ in path encoded", "", "/a^b", "http://example.com/a%5Eb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Resolve(page, c.ref, c.enc)
			if !ok || got != c.want {
				t.Errorf("Resolve(%q, %q) = %q, %v; want %q", c.ref, c.enc, got, ok, c.want)
			}
		})
	}
}

func TestResolveRefuses(t *testing.T) {
	for _, ref := range []string{
		"mailto:someone@example.com",
		"javascript:void(0)",
		" JavaScript:alert(1)",
		"data:text/html,hi",
		"ftp://example.com/file",
		"ws://example.com/",
		"file:///etc/passwd",
		"tel:+1",
		"http://",
		"http://exa mple.com/",
		"http://[::1/",
		"http://example.com:99999/",
	} {
		if got, ok := Resolve(page, ref, ""); ok {
			t.Errorf("Resolve(%q) = %q, want refused", ref, got)
		}
	}
	// A relative link has nothing to resolve against without a base.
	if got, ok := Resolve("", "/a", ""); ok {
		t.Errorf("Resolve without base = %q, want refused", got)
	}
}

func TestBaseHref(t *testing.T) {
	r, err := NewResolver(page, "windows-1251")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Base(); got != page {
		t.Errorf("Base() = %q, want %q", got, page)
	}
	// <base href> is resolved against the page, in the page's encoding.
	if !r.SetBase("../other/?q=д") {
		t.Fatal("SetBase refused a relative base")
	}
	if got, want := r.Base(), "http://example.com/other/?q=%E4"; got != want {
		t.Errorf("Base() = %q, want %q", got, want)
	}
	if got, _ := r.Resolve("x"); got != "http://example.com/other/x" {
		t.Errorf("Resolve against <base href> = %q", got)
	}
	if got, _ := r.Resolve("#f"); got != "http://example.com/other/?q=%E4" {
		t.Errorf("fragment against <base href> = %q", got)
	}
	// A base that does not parse is not taken.
	if r.SetBase("http://[") {
		t.Error("SetBase took a base that does not parse")
	}
	if got := r.Base(); got != "http://example.com/other/?q=%E4" {
		t.Errorf("Base() after a bad <base href> = %q", got)
	}
	// Without a page URL, only an absolute <base href> makes a base.
	r, err = NewResolver("", "")
	if err != nil {
		t.Fatal(err)
	}
	if r.SetBase("/x/") {
		t.Error("SetBase took a relative base without a page URL")
	}
	if !r.SetBase("https://example.net/x/") {
		t.Fatal("SetBase refused an absolute base")
	}
	if got, _ := r.Resolve("y"); got != "https://example.net/x/y" {
		t.Errorf("Resolve = %q", got)
	}
}

func TestNewResolverErrors(t *testing.T) {
	if _, err := NewResolver(page, "no-such-encoding"); !errors.Is(err, ErrUnknownEncoding) {
		t.Errorf("unknown encoding: err = %v", err)
	}
	if _, err := NewResolver("/relative", ""); err == nil {
		t.Error("a relative page URL was taken")
	}
}

// The query is encoded in the document's encoding only for special schemes
// other than ws and wss; the others keep UTF-8 (the URL Standard's query
// state).
func TestQueryEncodingBySchemes(t *testing.T) {
	r, err := NewResolver("", "windows-1251")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"http://a/?д":     "http://a/?%E4",
		"ftp://a/?д":      "ftp://a/?%E4",
		"file:///a?д":     "file:///a?%E4",
		"ws://a/?д":       "ws://a/?%D0%B4",
		"foo://a/?д":      "foo://a/?%D0%B4",
		"mailto:x?body=д": "mailto:x?body=%D0%B4",
	} {
		if got, err := r.href(in); err != nil || got != want {
			t.Errorf("%q: got %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]string{
		"http://пример.example/путь?q=слово#x": "http://xn--e1afmkfd.example/%D0%BF%D1%83%D1%82%D1%8C?q=%D1%81%D0%BB%D0%BE%D0%B2%D0%BE",
		" HTTPS://Example.COM:443 ":            "https://example.com/",
	} {
		if got, ok := Parse(in); !ok || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"/relative", "mailto:a@b", ""} {
		if got, ok := Parse(in); ok {
			t.Errorf("Parse(%q) = %q, want refused", in, got)
		}
	}
}

func TestResolveBounds(t *testing.T) {
	long := "/" + strings.Repeat("a", MaxRefLength-1)
	if _, ok := Resolve(page, long, ""); !ok {
		t.Error("a ref of MaxRefLength refused")
	}
	if _, ok := Resolve(page, long+"a", ""); ok {
		t.Error("a ref past MaxRefLength taken")
	}
	for _, c := range []struct {
		ref string
		ok  bool
	}{
		{"http://" + strings.Repeat("u", maxUserinfo) + "@h/", true},
		{"http://" + strings.Repeat("u", maxUserinfo+1) + "@h/", false},
		{"http://" + strings.Repeat("@", maxUserinfo+1) + "h/", true},
		{"http://" + strings.Repeat("@", maxUserinfo+2) + "h/", false},
		{"\thttp:\\\\" + strings.Repeat("u", maxUserinfo+1) + "@h/", false},
		{"//" + strings.Repeat("u", maxUserinfo+1) + "@h/", false},
		{"/?" + strings.Repeat("@", 2*maxUserinfo), true}, // '@' in a query: no user info
		{strings.Repeat("a/", maxSegments), true},
		{strings.Repeat("a/", maxSegments+1), false},
		{strings.Repeat("\\", maxSegments+1), false},
		{"/x?" + strings.Repeat("a/", maxSegments+1), true}, // '/' in a query: no segment
	} {
		if _, ok := Resolve(page, c.ref, ""); ok != c.ok {
			t.Errorf("Resolve(%.40q…) ok = %v, want %v", c.ref, ok, c.ok)
		}
	}
}

// One Resolver serves a page's links from several goroutines (go test -race).
func TestResolveConcurrently(t *testing.T) {
	r, err := NewResolver(page+"?a=1", "shift_jis")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, ref := range []string{"x", "?q=日本", "#f", "../y?z"} {
				if _, ok := r.Resolve(ref); !ok {
					t.Errorf("Resolve(%q) refused", ref)
				}
			}
		})
	}
	wg.Wait()
}
