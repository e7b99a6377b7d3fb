package polite

import (
	"net/http"
	"testing"
)

// TestHeaderKeysAreCanonical: the keys read by map index are in the form
// net/http keys a response's header by. A key in another form would never
// be found, and the header it names would go unread.
func TestHeaderKeysAreCanonical(t *testing.T) {
	keys := []string{keyContentType, keyRetryAfter, keyDate, keyLocation, keyContentUsage,
		keyContentSignal, keyXRobotsTag, keyTDMReservation, keyTDMPolicy}
	for _, h := range decisiveHeaders {
		keys = append(keys, h.name)
	}
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
