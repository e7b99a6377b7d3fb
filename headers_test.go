package polite

import (
	"net/http"
	"reflect"
	"testing"
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
