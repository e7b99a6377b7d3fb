package polite

import (
	"net/netip"
	"time"
)

// RequestEvent is one request the fetcher made (pages, redirect hops,
// robots.txt), given to Config.OnRequest as it ends, with its reasons.
type RequestEvent struct {
	URL      string
	Addr     netip.Addr // the server address dialled: the budget
	Robots   bool       // a robots.txt request of the fetcher's own (R5.1)
	Status   int        // 0 when no response came
	Err      error      // as in Result.Err
	Verdict  Verdict    // what the response meant (R3.5)
	Started  time.Time
	Duration time.Duration // to the last byte of the body, or the failure (R1.3)
	Gap      time.Duration // since the previous request to the address ended
	First    bool          // no previous request to the address this run
	Rest     Rest          // the rest this response set on its address (R2)
}
