package polite

import (
	"testing"

	"github.com/politecrawler/polite/internal/urltrap"
)

func TestNormalOriginKey(t *testing.T) {
	for _, u := range []string{
		"http://example.com/",
		"https://example.com/a?b=c",
		"http://example.com:8080/x",
		"https://[2001:db8::1]/",
		"https://[2001:db8::1]:8443/p",
		"http://127.0.0.1:80/", // not normal: the default port written
		"http://example.com:/", // not normal: an empty port
		"HTTP://Example.COM/",  // not normal: read by originKey
		"http://example.com?q", // not normal: no path
		"ftp://example.com/",
		"http://Example.COM/",
		"http://[2001:DB8::1]/",
		"http://user@example.com/",
		"http://user:pw@example.com/",
		"http://[fe80::1%25en0]/",
		"http://ex%41mple.com/",
		"http://a.test:8a/",
		"http://a.test#x/y",
		"http://a.test:99999/",
		"http://[::1]/",
		"http://:80/",
	} {
		want, wantErr := originKey(u)
		got, err := normalOriginKey(u)
		if got != want || (err == nil) != (wantErr == nil) {
			t.Errorf("normalOriginKey(%q) = %q, %v; originKey says %q, %v", u, got, err, want, wantErr)
		}
	}
}

// FuzzNormalOriginKey: for every URL Normalize accepts, the key read off
// its normal form is originKey's; and for any string at all, when both
// give a key, it is the same one.
func FuzzNormalOriginKey(f *testing.F) {
	for _, s := range []string{"http://a.test/", "https://A.test:443/x", "http://[::1]:8080/", "http://a.test:/?", "https://b.test/?x=1#f",
		"http://user:pw@example.com/", "http://[fe80::1%25en0]/", "http://a.test#x/y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if want, err := originKey(raw); err == nil {
			if got, err := normalOriginKey(raw); err == nil && got != want {
				t.Fatalf("normalOriginKey(%q) = %q; originKey says %q", raw, got, want)
			}
		}
		u, err := urltrap.Normalize(raw)
		if err != nil {
			return
		}
		want, wantErr := originKey(u)
		got, err := normalOriginKey(u)
		if got != want || (err == nil) != (wantErr == nil) {
			t.Fatalf("normalOriginKey(%q) = %q, %v; originKey says %q, %v", u, got, err, want, wantErr)
		}
	})
}
