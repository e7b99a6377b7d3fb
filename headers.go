package polite

import (
	"net/http"

	"github.com/politecrawler/polite/internal/signals"
)

// requestHeaders are what a request says of the fetcher: the honest
// User-Agent, marked when robots.txt is not read (R4, R5.6), From when a
// contact address is configured (R4.2), and Accept (R8.1).
type requestHeaders struct {
	ua, uaUnrestricted, from, accept string
}

func newRequestHeaders(ua, uaUnrestricted, from, accept string) requestHeaders {
	return requestHeaders{ua: ua, uaUnrestricted: uaUnrestricted, from: from, accept: accept}
}

// of returns a fresh header map for one request of the kind given, with
// a conditional request's validators when either is set (R6.1). Each
// request has its own map, so nothing of one request reaches the next.
func (h *requestHeaders) of(unrestricted, robots bool, ifNoneMatch, ifModifiedSince string) http.Header {
	ua, accept := h.ua, h.accept
	if unrestricted {
		ua = h.uaUnrestricted
	}
	if robots {
		accept = "text/plain"
	}
	m := http.Header{"User-Agent": {ua}, "Accept": {accept}}
	if h.from != "" {
		m.Set("From", h.from)
	}
	if ifNoneMatch != "" {
		m.Set("If-None-Match", ifNoneMatch)
	}
	if ifModifiedSince != "" {
		m.Set("If-Modified-Since", ifModifiedSince)
	}
	return m
}

// Response header keys read on every response, in canonical form. The
// header maps of responses are keyed canonically, so these are looked up
// by map index: Get and Values would put the key in canonical form again
// on every call. TestHeaderKeysAreCanonical checks each one.
const (
	keyContentType    = "Content-Type"
	keyRetryAfter     = "Retry-After"
	keyDate           = "Date"
	keyLocation       = "Location"
	keyContentUsage   = signals.KeyContentUsage // the signals' keys, read in internal/signals
	keyContentSignal  = signals.KeyContentSignal
	keyXRobotsTag     = signals.KeyXRobotsTag
	keyTDMReservation = signals.KeyTDMReservation
	keyTDMPolicy      = signals.KeyTDMPolicy
)

// headerValue is h.Get(key) for a key in canonical form.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
