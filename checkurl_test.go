package polite

import (
	"errors"
	"testing"
)

// R10.2 and R8.2: what Add turns away before anything is queued.
func TestCheckURL(t *testing.T) {
	cases := []struct {
		url  string
		want error
	}{
		{"ftp://example.org/file", ErrUnsupportedScheme},
		{"file:///etc/passwd", ErrUnsupportedScheme},
		{"javascript:alert(1)", ErrUnsupportedScheme},
		{"http://%zz", ErrInvalidURL},
		{"/relative/path", ErrInvalidURL},
		{"http:opaque", ErrInvalidURL},
		{"http://", ErrInvalidURL},
		{"http://user:pass@example.org/", ErrInvalidURL},
		{"http://example.org:99999/", ErrInvalidURL},
		{"http://example.org/" + string(make([]byte, MaxURLLength)), ErrInvalidURL},
		{"http://169.254.169.254/latest/meta-data/", ErrPrivateAddress},
		{"http://10.0.0.1/", ErrPrivateAddress},
		{"http://[::1]:8080/", ErrPrivateAddress},
		{"http://10.0.0.1/?q=%zz", ErrPrivateAddress}, // the address is judged first, as before
		// Spellings that are an address once normalised (R1.1, R10.1).
		{"http://10.0.0.1./", ErrPrivateAddress},
		{"http://\uff11\uff10.\uff10.\uff10.\uff11/", ErrPrivateAddress},
		{"http://xn--zz.example/", ErrInvalidURL},  // not an A-label
		{" \thttp://10.0.0.1/", ErrPrivateAddress}, // trimmed as an href is
		{"http://0xa.1/", ErrPrivateAddress},
	}
	for _, c := range cases {
		if _, _, err := checkURL(c.url, false); !errors.Is(err, c.want) {
			t.Errorf("checkURL(%.60q) = %v, want %v", c.url, err, c.want)
		}
	}
	// R1.1: the host key is read off the normalised URL, the one requested.
	for _, c := range []struct{ url, target, name string }{
		{"HTTPS://Example.ORG:8443/a?b#c", "https://example.org:8443/a?b", "example.org"},
		{"https://Example.ORG.:443/a", "https://example.org/a", "example.org"},
		{"http://REFUSER.test.:8080/b", "http://refuser.test:8080/b", "refuser.test"},
		{"http://Bücher.Example./", "http://xn--bcher-kva.example/", "xn--bcher-kva.example"},
		{"http://xn--BCHER-kva.example/", "http://xn--bcher-kva.example/", "xn--bcher-kva.example"},
		{"http://[2606:4700:4700:0:0:0:0:1111]:80/", "http://[2606:4700:4700::1111]/", "2606:4700:4700::1111"},
		// Leading and trailing spaces and controls go, as a browser drops
		// them from an href, at both ends alike.
		{" http://example.org/s ", "http://example.org/s", "example.org"},
		{"\n\thttps://Example.ORG/\r\n", "https://example.org/", "example.org"},
	} {
		target, name, err := checkURL(c.url, false)
		if err != nil || target != c.target || name != c.name {
			t.Errorf("checkURL(%q) = %q, %q, %v; want %q, %q", c.url, target, name, err, c.target, c.name)
		}
	}
}
