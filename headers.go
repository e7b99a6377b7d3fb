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

// set writes into h, the header map of one request (http.NewRequest
// makes a fresh one each time), the headers of a request of the kind
// given, and a conditional request's validators when either is set
// (R6.1). Only these headers: no cookies, no Authorization (R8.2).
func (rh *requestHeaders) set(h http.Header, unrestricted, robots bool, ifNoneMatch, ifModifiedSince string) {
	ua, accept := rh.ua, rh.accept
	if unrestricted {
		ua = rh.uaUnrestricted
	}
	if robots {
		accept = "text/plain"
	}
	h.Set("User-Agent", ua)
	h.Set("Accept", accept)
	if rh.from != "" {
		h.Set("From", rh.from)
	}
	if ifNoneMatch != "" {
		h.Set("If-None-Match", ifNoneMatch)
	}
	if ifModifiedSince != "" {
		h.Set("If-Modified-Since", ifModifiedSince)
	}
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
