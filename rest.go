package polite

import (
	"fmt"
	"math"
	"time"
)

// The pacing rules of R2 that no option can loosen.
const (
	// MinRest is the shortest rest after a request to a web site (R2.1).
	MinRest = 3 * time.Second
	// MinDurationFactor is the smallest multiple of the last request's
	// duration that a budget rests (R2.2).
	MinDurationFactor = 5
	// DurationRestCap caps the duration term of the rest (R2.2).
	DurationRestCap = 30 * time.Second
	// CrawlDelayCap caps the Crawl-delay term of the rest (R2.3).
	CrawlDelayCap = 60 * time.Second
)

// RestTerm names the term of R2 that set a rest.
type RestTerm uint8

// The terms of R2, in the order a tie is reported: when two terms give the
// same wait, the earlier one is named.
const (
	RestFloor      RestTerm = iota // R2.1: the floor
	RestDuration                   // R2.2: a multiple of the last request's duration
	RestCrawlDelay                 // R2.3: robots.txt Crawl-delay
	RestRetryAfter                 // R2.4: the server's Retry-After
	RestBackoff                    // R2.5: backoff after failures in a row
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

// String reads like "3s (floor)", the wait rounded to the millisecond.
func (r Rest) String() string { return fmt.Sprintf("%v (%v)", r.Wait.Round(time.Millisecond), r.Term) }

// pacing is a budget's share of the Config: already raised to the floors.
type pacing struct {
	floor  time.Duration // ≥ MinRest for web sites
	factor int           // ≥ MinDurationFactor
}

// outcome is what the rest depends on: how the last request went, and what
// the site asked for.
type outcome struct {
	duration   time.Duration // of the last request, to the end of its body (R1.3)
	crawlDelay time.Duration // robots.txt, for the group that applies (R2.3)
	retryAfter time.Duration // the server's Retry-After, when it sent one (R2.4)
	hasRetry   bool
	backoff    time.Duration // after a failure without Retry-After (R2.5)
}

// scale is d × k for k ≥ 1, saturating instead of wrapping: a caller's
// larger factor or floor may only lengthen a wait, never overflow it into
// a short or negative one.
func scale(d time.Duration, k int) time.Duration {
	if k <= 1 || d <= 0 {
		return d
	}
	if d > math.MaxInt64/time.Duration(k) {
		return math.MaxInt64
	}
	return d * time.Duration(k)
}

// restAfter is R2 as one pure function: the longest of the floor, factor ×
// the last request's duration (capped), Crawl-delay (capped), Retry-After
// and the backoff.
func restAfter(p pacing, o outcome) Rest {
	r := Rest{Wait: p.floor, Term: RestFloor}
	byDuration := min(scale(o.duration, p.factor), DurationRestCap)
	for _, c := range [...]Rest{
		{byDuration, RestDuration},
		{min(o.crawlDelay, CrawlDelayCap), RestCrawlDelay},
		{o.retryAfter, RestRetryAfter},
		{o.backoff, RestBackoff},
	} {
		if c.Wait > r.Wait {
			r = c
		}
	}
	return r
}
