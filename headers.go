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
