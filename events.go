package polite

import (
	"net/netip"
	"time"
)

// RequestEvent is one HTTP request the fetcher made, reported to
// Config.OnRequest as it ends: the pages' requests, each redirect hop, and
// the fetcher's own robots.txt requests, those to one address in the order
// they were made. It is what a site owner's log would show, with the
// fetcher's reasons beside it.
type RequestEvent struct {
	URL    string
	Addr   netip.Addr // the server address dialled: the budget
	Robots bool       // a robots.txt request of the fetcher's own (R5.1)
	Status int        // 0 when no response came
	Err    error      // as in Result.Err
	// Verdict is what the response meant (R3.5).
	Verdict Verdict
	Started time.Time
	// Duration runs to the last byte of the body, or the failure (R1.3).
	Duration time.Duration
	// Gap is the time since the previous request to the same address
	// ended; First is set when there was none in this run.
	Gap   time.Duration
	First bool
	// Rest is the wait this response imposes on its address before the
	// next request, and the term of R2 that set it.
	Rest Rest
}
