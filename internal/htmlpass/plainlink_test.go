package htmlpass

import (
	"net/url"
	"testing"

	"github.com/politecrawler/polite/internal/weburl"
)

// FuzzPlainLink checks the parse-free resolution of plain root paths
// against the URL parser's: for every href plainLink takes, against bases
// with and without port, user or path, both give the same link.
func FuzzPlainLink(f *testing.F) {
	for _, s := range []string{"/", "/a", "/a/b.html", "/a/./b", "/a/../b", "/.", "/..", "/a/.", "/a/..",
		"//host/x", "/a//b", "/~user/", "/a-b_c.d~e", "/%41", "/a?b", "/a#b", "/a b", "/ä", "/a/.../b", "/.a/..b"} {
		for _, base := range []string{"http://example.com/dir/page?q=1#f", "https://user:pw@EXAMPLE.com:8443/",
			"http://[::1]:8080/x/y/", "HTTP://Bücher.example:80/", "http://127.1/", "http://10.0.0.1:8080/",
			"http://a.123/", "https://example.com:443/", "http://example.com./", "http://xn--bcher-kva.example/"} {
			f.Add(s, base)
		}
	}
	f.Fuzz(func(t *testing.T, href, base string) { sameAsParser(t, (*pass).plainLink, href, base) })
}

// FuzzSimpleLink checks net/url's resolution of the hrefs simpleLink
// takes against the URL parser's, for the bases it takes.
func FuzzSimpleLink(f *testing.F) {
	for _, s := range []string{"page/2", "?p=2&s=new", "../about/1.html", "./x", "..", ".", "a/..", "a/.", "../../../../x",
		"x?y=1/2", "a;b=c", "(x)!$*", "+a,b", "?", "a?", "/a/../b?c", "https", "x/./y/../z?q=a..b", "~u/",
		"https://other.example/x/1", "http://other.example:8080/a/../b?c=d", "http://127.1/", "https://a.b/.", "http://x.test/?"} {
		for _, base := range []string{"http://example.com/dir/page", "https://example.com:8443/a/b/", "http://10.0.0.1/",
			"http://example.com/dir/page?q=1", "http://example.com", "http://example.com/a/b/c/d.html", "http://a.test/x;y/z"} {
			f.Add(s, base)
		}
	}
	f.Fuzz(func(t *testing.T, href, base string) { sameAsParser(t, (*pass).simpleLink, href, base) })
}

// sameAsParser fails the test when fast, a resolution without the URL
// parser, takes href against base and writes another URL than the
// parser does.
func sameAsParser(t *testing.T, fast func(*pass, []byte) (string, bool), href, base string) {
	u, err := url.Parse(base)
	if err != nil {
		return
	}
	links, err := weburl.NewResolver(u.String(), "")
	if err != nil {
		return
	}
	got, ok := fast(&pass{pageURL: u}, []byte(href))
	if !ok {
		return
	}
	want, ok := links.Resolve(href)
	if !ok {
		t.Fatalf("%q taken against %q, which does not resolve", href, base)
	}
	if got != want {
		t.Fatalf("href %q against %q: %q, the URL parser %q", href, base, got, want)
	}
}
