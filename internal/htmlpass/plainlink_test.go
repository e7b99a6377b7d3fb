package htmlpass

import (
	"net/url"
	"testing"
)

// FuzzPlainLink checks the parse-free resolution of plain root paths
// against net/url's: for every href plainLink takes, against bases with
// and without port, user or path, both give the same link.
func FuzzPlainLink(f *testing.F) {
	for _, s := range []string{"/", "/a", "/a/b.html", "/a/./b", "/a/../b", "/.", "/..", "/a/.", "/a/..",
		"//host/x", "/a//b", "/~user/", "/a-b_c.d~e", "/%41", "/a?b", "/a#b", "/a b", "/ä", "/a/.../b", "/.a/..b"} {
		f.Add(s, "http://example.com/dir/page?q=1#f")
		f.Add(s, "https://user:pw@EXAMPLE.com:8443/")
		f.Add(s, "http://[::1]:8080/x/y/")
	}
	f.Fuzz(func(t *testing.T, href, base string) {
		b, err := url.Parse(base)
		if err != nil || !isWeb(b) {
			return
		}
		p := pass{base: b}
		fast, ok := p.plainLink([]byte(href))
		if !ok {
			return
		}
		u := p.resolve([]byte(href))
		if u == nil {
			t.Fatalf("plainLink took %q, which does not resolve against %q", href, base)
		}
		u.Fragment, u.RawFragment = "", ""
		if slow := u.String(); fast != slow {
			t.Fatalf("href %q against %q: plainLink %q, net/url %q", href, base, fast, slow)
		}
	})
}
