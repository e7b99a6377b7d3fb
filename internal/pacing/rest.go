// Package pacing is R2 and R3.3 as pure functions of plain values: the
// rest after a response, the backoff after failures in a row, the wait a
// Retry-After asks for, and the cool-off after a stop. It keeps no state
// and reads no clock: the caller passes the time, and the scheduler
// applies what these return.
package pacing

import (
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

// Term names the term of R2 that set a rest.
type Term uint8

// The terms of R2, in the order a tie is reported: when two terms give the
// same wait, the earlier one is named.
const (
	Floor      Term = iota // R2.1: the floor
	Duration               // R2.2: a multiple of the last request's duration
	CrawlDelay             // R2.3: robots.txt Crawl-delay
	RetryAfter             // R2.4: the server's Retry-After
	Backoff                // R2.5: backoff after failures in a row
)

// Rest is how long a budget waits after a response, and the term that set it.
type Rest struct {
	Wait time.Duration
	Term Term
}

// Policy is a budget's share of the caller's settings, already raised to
// the floors.
type Policy struct {
	Floor  time.Duration // ≥ MinRest for web sites
	Factor int           // ≥ MinDurationFactor
}

// Outcome is what the rest depends on: how the last request went, and what
// the site asked for.
type Outcome struct {
	Duration   time.Duration // of the last request, to the end of its body (R1.3)
	CrawlDelay time.Duration // robots.txt, for the group that applies (R2.3)
	RetryAfter time.Duration // the server's Retry-After, when it sent one (R2.4)
	HasRetry   bool          // whether it sent one
	Backoff    time.Duration // after a failure without Retry-After (R2.5)
}

// Scale is d × k for k ≥ 1, saturating instead of wrapping: a caller's
// larger factor or floor may only lengthen a wait, never overflow it into
// a short or negative one.
func Scale(d time.Duration, k int) time.Duration {
	if k <= 1 || d <= 0 {
		return d
	}
	if d > math.MaxInt64/time.Duration(k) {
		return math.MaxInt64
	}
	return d * time.Duration(k)
}

// RestAfter is R2 as one pure function: the longest of the floor, factor ×
// the last request's duration (capped), Crawl-delay (capped), Retry-After
// and the backoff.
func RestAfter(p Policy, o Outcome) Rest {
	r := Rest{Wait: p.Floor, Term: Floor}
	byDuration := min(Scale(o.Duration, p.Factor), DurationRestCap)
	for _, c := range [...]Rest{
		{byDuration, Duration},
		{min(o.CrawlDelay, CrawlDelayCap), CrawlDelay},
		{o.RetryAfter, RetryAfter},
		{o.Backoff, Backoff},
	} {
		if c.Wait > r.Wait {
			r = c
		}
	}
	return r
}
