package schedule

import (
	"errors"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/pacing"
)

// site is the IP literal the rest tests ask: no lookup job.
const site = "http://192.0.2.1"

// readRobots answers the site's robots.txt with a 404 (allow all) and
// returns when its rest ends.
func (r *rig) readRobots() time.Time {
	r.t.Helper()
	c := r.fetch(site+"/robots.txt", noRobots)
	return c.End.Add(rigFloor)
}

// R2.1, R2.2, R1.3: the rest after a 2xx is the longer of the floor and
// factor × the request's duration, measured from its End: after a quick
// page the floor, after one of 2 s, 5 × 2 s from when its body ended,
// not from when it was sent.
func TestRestIsFloorOrFactorTimesDurationFromTheEnd(t *testing.T) {
	r := newRig(t)
	r.add(site+"/quick", site+"/slow", site+"/next")
	at := r.readRobots()
	quick := r.answer(r.dueAt(site+"/quick", at), reply{Status: 200, Took: 100 * time.Millisecond})
	slow := r.answer(r.dueAt(site+"/slow", quick.End.Add(rigFloor)), reply{Status: 200, Took: 2 * time.Second})
	r.dueAt(site+"/next", slow.End.Add(rigFactor*2*time.Second))
	rests := map[string]pacing.Rest{}
	r.root.mu.Lock()
	for _, o := range r.root.observed {
		rests[o.url] = o.rest
	}
	r.root.mu.Unlock()
	if got := rests[site+"/quick"]; got != (pacing.Rest{Wait: rigFloor, Term: pacing.Floor}) {
		t.Errorf("rest after the quick page: %+v, want the floor", got)
	}
	if got := rests[site+"/slow"]; got != (pacing.Rest{Wait: 10 * time.Second, Term: pacing.Duration}) {
		t.Errorf("rest after the slow page: %+v, want 10 s of the duration term", got)
	}
}

// R2.5: after a 503 without Retry-After the next job of the budget waits
// the backoff, which grows with each failure in a row (5 s, then 10 s at
// the rig's jitter of 0, both above the floor), and a success resets it:
// the failure after it backs off 5 s again.
func TestBackoffAfterFailuresInARow(t *testing.T) {
	r := newRig(t)
	r.add(site+"/1", site+"/2", site+"/3", site+"/4", site+"/5")
	at := r.readRobots()
	c := r.answer(r.dueAt(site+"/1", at), unavailable)
	if e := r.result(site + "/1"); e.Err == nil || e.Response != c {
		t.Errorf("the failed page: %+v, want its failure", e)
	}
	c = r.answer(r.dueAt(site+"/2", c.End.Add(5*time.Second)), unavailable)
	c = r.answer(r.dueAt(site+"/3", c.End.Add(10*time.Second)), ok)
	c = r.answer(r.dueAt(site+"/4", c.End.Add(rigFloor)), unavailable)
	r.dueAt(site+"/5", c.End.Add(5*time.Second))
}

// R2.4: a 503's Retry-After longer than the backoff is the wait: the next
// job of the budget goes a minute after the response, not 5 s after.
func TestRetryAfterBeyondTheBackoffWins(t *testing.T) {
	r := newRig(t)
	r.add(site+"/1", site+"/2")
	at := r.readRobots()
	c := r.answer(r.dueAt(site+"/1", at), reply{Status: 503, Failed: true, RetryAfter: time.Minute})
	r.dueAt(site+"/2", c.End.Add(time.Minute))
}

// R2.4: a Retry-After beyond the horizon parks the address: its queued
// URLs, and those added while the park lasts, are answered at once with
// the root's Parked error carrying the server's time, and nothing is
// asked; after that time the host is asked again.
func TestRetryAfterBeyondTheHorizonParks(t *testing.T) {
	r := newRig(t)
	r.add(site+"/1", site+"/2", site+"/3")
	at := r.readRobots()
	c := r.answer(r.dueAt(site+"/1", at), reply{Status: 503, Failed: true, RetryAfter: 2 * rigHorizon})
	until := c.End.Add(2 * rigHorizon)
	r.clk.Advance(rigHorizon + time.Minute) // past the budget's own rest, within the park
	r.add(site + "/4")
	for _, p := range []string{"/2", "/3", "/4"} {
		var parked *parkedErr
		if e := r.result(site + p); !errors.As(e.Err, &parked) || !parked.until.Equal(until) || e.Response != nil {
			t.Errorf("%s: %v, want parked until %v with no request", p, e.Err, until)
		}
	}
	if got := r.out(); len(got) != 0 {
		t.Fatalf("out while parked: %v", got)
	}
	r.clk.Set(until)
	r.add(site + "/5")
	r.take(site + "/5")
}
