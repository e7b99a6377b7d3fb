package polite

import "net/http"

// requestHeaders are the headers requests carry, made once per Fetcher:
// the honest User-Agent, marked when robots.txt is not read (R4, R5.6),
// From when a contact address is configured (R4.2), and Accept. There is
// one map for each kind of request, shared by every request of that kind
// and never written after it is made (net/http only reads a request's
// headers); a conditional request adds its validators to a copy.
type requestHeaders struct {
	// byKind is indexed by headerKind(unrestricted, robots).
	byKind [4]http.Header
}

func newRequestHeaders(ua, uaUnrestricted, from, accept string) requestHeaders {
	var h requestHeaders
	for _, unrestricted := range []bool{false, true} {
		for _, robots := range []bool{false, true} {
			m := http.Header{"User-Agent": {ua}, "Accept": {accept}}
			if unrestricted {
				m["User-Agent"] = []string{uaUnrestricted}
			}
			if robots {
				m["Accept"] = []string{"text/plain"}
			}
			if from != "" {
				m["From"] = []string{from}
			}
			h.byKind[headerKind(unrestricted, robots)] = m
		}
	}
	return h
}

func headerKind(unrestricted, robots bool) int {
	k := 0
	if unrestricted {
		k |= 1
	}
	if robots {
		k |= 2
	}
	return k
}

// of returns the headers of a request of the kind given, and of a
// conditional one, with its validators, when either is set (R6.1).
func (h *requestHeaders) of(unrestricted, robots bool, ifNoneMatch, ifModifiedSince string) http.Header {
	m := h.byKind[headerKind(unrestricted, robots)]
	if ifNoneMatch == "" && ifModifiedSince == "" {
		return m
	}
	m = m.Clone()
	if ifNoneMatch != "" {
		m["If-None-Match"] = []string{ifNoneMatch}
	}
	if ifModifiedSince != "" {
		m["If-Modified-Since"] = []string{ifModifiedSince}
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
