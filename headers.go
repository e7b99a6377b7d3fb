package polite

import "net/http"

// requestHeaders are the header values every request carries, made once
// per Fetcher. Requests share the slices, which nothing writes to: a
// request's own header map costs no allocation per value.
type requestHeaders struct {
	ua, uaUnrestricted []string
	from               []string // nil without a contact address
	acceptPages        []string
	acceptRobots       []string
}

func newRequestHeaders(ua, uaUnrestricted, from, accept string) requestHeaders {
	h := requestHeaders{
		ua:             []string{ua},
		uaUnrestricted: []string{uaUnrestricted},
		acceptPages:    []string{accept},
		acceptRobots:   []string{"text/plain"},
	}
	if from != "" {
		h.from = []string{from}
	}
	return h
}

// set puts the fetcher's headers on a request: the honest User-Agent,
// marked when robots.txt is not read (R4, R5.6), From when a contact
// address is configured (R4.2), and Accept.
func (h *requestHeaders) set(header http.Header, unrestricted, robots bool) {
	header["User-Agent"] = h.ua
	if unrestricted {
		header["User-Agent"] = h.uaUnrestricted
	}
	if h.from != nil {
		header["From"] = h.from
	}
	header["Accept"] = h.acceptPages
	if robots {
		header["Accept"] = h.acceptRobots
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
	keyContentUsage   = "Content-Usage"
	keyContentSignal  = "Content-Signal"
	keyXRobotsTag     = "X-Robots-Tag"
	keyTDMReservation = "Tdm-Reservation"
	keyTDMPolicy      = "Tdm-Policy"
)

// headerValue is h.Get(key) for a key in canonical form.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
