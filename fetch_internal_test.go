package polite

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// TestHeaderKeysAreCanonical: the keys read by map index are in the form
// net/http keys a response's header by. A key in another form would never
// be found, and the header it names would go unread.
func TestHeaderKeysAreCanonical(t *testing.T) {
	keys := []string{keyContentType, keyRetryAfter, keyDate, keyLocation, keyContentUsage,
		keyContentSignal, keyXRobotsTag, keyTDMReservation, keyTDMPolicy}
	for _, k := range keys {
		if c := http.CanonicalHeaderKey(k); c != k {
			t.Errorf("key %q is read by map index, but responses carry it as %q", k, c)
		}
	}
}

func TestHeaderValueIsGet(t *testing.T) {
	h := http.Header{}
	h.Add("retry-after", "120")
	h.Add("Retry-After", "5")
	if got, want := headerValue(h, keyRetryAfter), h.Get("Retry-After"); got != want {
		t.Errorf("headerValue = %q, Get = %q", got, want)
	}
	if got := headerValue(h, keyDate); got != "" {
		t.Errorf("headerValue of an absent key = %q", got)
	}
}

// R4, R6.1, R8.2: each kind of request gets its headers, and a conditional
// request's validators stay its own: they never reach the next request of
// its kind.
func TestRequestHeadersOfEachKind(t *testing.T) {
	h := newRequestHeaders("UA", "UA-unrestricted", "ops@example.org", "text/html")
	of := func(h requestHeaders, unrestricted, robots bool, etag, modified string) http.Header {
		m := http.Header{} // as http.NewRequest makes it
		h.set(m, unrestricted, robots, etag, modified)
		return m
	}
	check := func(got http.Header, unrestricted, robots bool, etag, modified string) {
		t.Helper()
		ua, accept := "UA", "text/html"
		if unrestricted {
			ua = "UA-unrestricted"
		}
		if robots {
			accept = "text/plain"
		}
		want := http.Header{"User-Agent": {ua}, "Accept": {accept}, "From": {"ops@example.org"}}
		if etag != "" {
			want["If-None-Match"] = []string{etag}
		}
		if modified != "" {
			want["If-Modified-Since"] = []string{modified}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("unrestricted=%v robots=%v: %v, want %v", unrestricted, robots, got, want)
		}
	}
	const modified = "Mon, 30 Nov 2026 06:00:00 GMT"
	for _, unrestricted := range []bool{false, true} {
		for _, robots := range []bool{false, true} {
			check(of(h, unrestricted, robots, `"v1"`, modified), unrestricted, robots, `"v1"`, modified)
			check(of(h, unrestricted, robots, "", modified), unrestricted, robots, "", modified)
			check(of(h, unrestricted, robots, `"v2"`, ""), unrestricted, robots, `"v2"`, "")
			check(of(h, unrestricted, robots, "", ""), unrestricted, robots, "", "")
		}
	}
	// Without a contact address, no From at all (R4.2).
	plain := newRequestHeaders("UA", "UA-unrestricted", "", "text/html")
	if got := of(plain, false, false, `"v1"`, ""); len(got["From"]) != 0 || got.Get("If-None-Match") != `"v1"` {
		t.Errorf("no contact: %v", got)
	}
	if got := of(plain, true, true, "", ""); len(got["From"]) != 0 || got.Get("User-Agent") != "UA-unrestricted" {
		t.Errorf("no contact: %v", got)
	}
}

// R10.2: a body is read up to the cap whatever length the server
// announced, and what lies past the cap is reported, not read.
func TestReadCapped(t *testing.T) {
	errBroken := errors.New("broken")
	for _, c := range []struct {
		name      string
		r         io.Reader
		max, size int64
		want      string
		truncated bool
		err       error
	}{
		{"announced", strings.NewReader("hello"), 10, 5, "hello", false, nil},
		{"unknown", strings.NewReader("hello"), 10, -1, "hello", false, nil},
		{"announced short", strings.NewReader("hello"), 10, 2, "hello", false, nil},
		{"announced long", strings.NewReader("hello"), 10, 1 << 40, "hello", false, nil},
		{"empty", strings.NewReader(""), 10, 0, "", false, nil},
		{"exactly the cap", strings.NewReader("0123456789"), 10, -1, "0123456789", false, nil},
		{"past the cap", strings.NewReader("0123456789X"), 10, 11, "0123456789", true, nil},
		{"far past the cap", strings.NewReader(strings.Repeat("x", 5000)), 1000, -1, strings.Repeat("x", 1000), true, nil},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader("hello world")), 100, -1, "hello world", false, nil},
		{"last bytes with EOF, one past the cap", iotest.DataErrReader(strings.NewReader("0123456789X")), 10, 11, "0123456789", true, nil},
		{"last bytes with EOF, at the cap", iotest.DataErrReader(strings.NewReader("0123456789")), 10, 10, "0123456789", false, nil},
		{"cap of zero", iotest.DataErrReader(strings.NewReader("X")), 0, -1, "", true, nil},
		{"cap of zero, empty", strings.NewReader(""), 0, 0, "", false, nil},
		{"largest announced length", strings.NewReader("hello"), 10, math.MaxInt64, "hello", false, nil},
		{"largest cap", strings.NewReader("hello"), math.MaxInt64, math.MaxInt64, "hello", false, nil},
		{"largest cap, length unknown", strings.NewReader("hello"), math.MaxInt64, -1, "hello", false, nil},
		{"broken", io.MultiReader(strings.NewReader("par"), iotest.ErrReader(errBroken)), 10, 9, "par", false, errBroken},
	} {
		got, truncated, err := readCapped(c.r, c.max, c.size)
		if !bytes.Equal(got, []byte(c.want)) || truncated != c.truncated || !errors.Is(err, c.err) {
			t.Errorf("%s: %q, %v, %v; want %q, %v, %v", c.name, got, truncated, err, c.want, c.truncated, c.err)
		}
	}
}

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
