package polite

import (
	"fmt"
	"time"

	"github.com/politecrawler/polite/internal/pacing"
)

// The pacing rules of R2 that no option can loosen.
const (
	MinRest           = pacing.MinRest           // the floor after a request to a web site: 3 s (R2.1)
	MinDurationFactor = pacing.MinDurationFactor // the least multiple of the last request's duration rested: 5 (R2.2)
	DurationRestCap   = pacing.DurationRestCap   // the cap of the duration term: 30 s (R2.2)
	CrawlDelayCap     = pacing.CrawlDelayCap     // the cap of the Crawl-delay term: 60 s (R2.3)
)

// RestTerm names the term of R2 that set a rest.
type RestTerm uint8

// The terms of R2, in the order a tie is reported: when two terms give the
// same wait, the earlier one is named.
const (
	RestFloor      RestTerm = RestTerm(pacing.Floor)      // R2.1: the floor
	RestDuration   RestTerm = RestTerm(pacing.Duration)   // R2.2: a multiple of the last request's duration
	RestCrawlDelay RestTerm = RestTerm(pacing.CrawlDelay) // R2.3: robots.txt Crawl-delay
	RestRetryAfter RestTerm = RestTerm(pacing.RetryAfter) // R2.4: the server's Retry-After
	RestBackoff    RestTerm = RestTerm(pacing.Backoff)    // R2.5: backoff after failures in a row
)

var restTermNames = [...]string{
	RestFloor:      "floor",
	RestDuration:   "duration",
	RestCrawlDelay: "crawl-delay",
	RestRetryAfter: "retry-after",
	RestBackoff:    "backoff",
}

// String returns the term's short name: "floor", "duration", "crawl-delay",
// "retry-after" or "backoff".
func (t RestTerm) String() string {
	if int(t) < len(restTermNames) {
		return restTermNames[t]
	}
	return fmt.Sprintf("RestTerm(%d)", uint8(t))
}

// Rest is how long a budget waits after a response before its next
// request, measured from the end of that response (R1.3), and the term of
// R2 that set it.
type Rest struct {
	Wait time.Duration
	Term RestTerm
}

// String reads like "3s (floor)", the wait rounded to the millisecond;
// the zero Rest, of a Result for which no request was made, reads "none".
func (r Rest) String() string {
	if r == (Rest{}) {
		return "none"
	}
	return fmt.Sprintf("%v (%v)", r.Wait.Round(time.Millisecond), r.Term)
}
