package polite

import (
	"fmt"
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
)

var restTermNames = [...]string{
	RestFloor:      "floor",
	RestDuration:   "duration",
	RestCrawlDelay: "crawl-delay",
}

// String returns the term's short name: "floor", "duration", "crawl-delay".
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

// String reads like "3s (floor)".
func (r Rest) String() string { return fmt.Sprintf("%v (%v)", r.Wait, r.Term) }

// pacing is a budget's share of the Config: already raised to the floors.
type pacing struct {
	floor  time.Duration // ≥ MinRest for web sites
	factor int           // ≥ MinDurationFactor
}

// restAfter is R2.1–R2.3 as one pure function: the longest of the floor,
// factor × the last request's duration (capped), and Crawl-delay (capped).
func restAfter(p pacing, last, crawlDelay time.Duration) Rest {
	r := Rest{Wait: p.floor, Term: RestFloor}
	byDuration := min(last*time.Duration(p.factor), DurationRestCap)
	if last > DurationRestCap { // guard the multiplication against overflow
		byDuration = DurationRestCap
	}
	if byDuration > r.Wait {
		r = Rest{Wait: byDuration, Term: RestDuration}
	}
	if cd := min(crawlDelay, CrawlDelayCap); cd > r.Wait {
		r = Rest{Wait: cd, Term: RestCrawlDelay}
	}
	return r
}
