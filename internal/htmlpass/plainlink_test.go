package htmlpass

import (
	"testing"

	"github.com/politecrawler/polite/internal/weburl"
)

// FuzzPlainLink checks the parse-free resolution of plain root paths
// against the URL parser's: for every href plainLink takes, against bases
// with and without port, user or path, both give the same link.
func FuzzPlainLink(f *testing.F) {
	for _, s := range []string{"/", "/a", "/a/b.html", "/a/./b", "/a/../b", "/.", "/..", "/a/.", "/a/..",
		"//host/x", "/a//b", "/~user/", "/a-b_c.d~e", "/%41", "/a?b", "/a#b", "/a b", "/ä", "/a/.../b", "/.a/..b"} {
		f.Add(s, "http://example.com/dir/page?q=1#f")
		f.Add(s, "https://user:pw@EXAMPLE.com:8443/")
		f.Add(s, "http://[::1]:8080/x/y/")
		f.Add(s, "HTTP://Bücher.example:80/")
	}
	f.Fuzz(func(t *testing.T, href, base string) {
		links, err := weburl.NewResolver(base, "")
		if err != nil {
			return
		}
		p := pass{links: links}
		fast, ok := p.plainLink([]byte(href))
		if !ok {
			return
		}
		slow, ok := links.Resolve(href)
		if !ok {
			t.Fatalf("plainLink took %q, which does not resolve against %q", href, base)
		}
		if fast != slow {
			t.Fatalf("href %q against %q: plainLink %q, the URL parser %q", href, base, fast, slow)
		}
	})
}
