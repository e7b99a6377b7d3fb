package polite_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R2.1: a fast host rests exactly the 3 s floor between requests, no less
// (politeness) and no more (the scheduler loses nothing to itself).
func TestFloorBetweenRequests(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "fast.test"})
	r.start(polite.Config{AllowPrivateNetworks: true})
	r.add(r.pages(h, 4)...)
	for u, res := range r.results(4) {
		if res.Err != nil || res.Status != 200 {
			t.Errorf("%s: %d %v", u, res.Status, res.Err)
		}
		if res.Rest != (polite.Rest{polite.MinRest, polite.RestFloor}) {
			t.Errorf("%s: rest %v, want 3s (floor)", u, res.Rest)
		}
	}
	wantGaps(t, h, r.farm.Audit().VisitsTo(h), 5, polite.MinRest) // robots.txt and 4 pages
}

// R2.1 made more polite by the caller: MinRest above the floor is kept.
func TestRaisedFloor(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "fast.test"})
	r.start(polite.Config{AllowPrivateNetworks: true, MinRest: 7 * time.Second})
	r.add(r.pages(h, 3)...)
	r.results(3)
	wantGaps(t, h, r.farm.Audit().VisitsTo(h), 4, 7*time.Second)
}

// R2.1, R5.5: a caller's MinRest raises the floor of every host, a
// documented API's 1 s floor included: no option makes it less polite.
func TestRaisedFloorForAPI(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "api.test"})
	r.start(polite.Config{AllowPrivateNetworks: true, MinRest: 7 * time.Second,
		APIs: []polite.API{{Host: h, Terms: "https://api.test/terms"}}})
	r.add(r.pages(h, 3)...)
	r.results(3)
	wantGaps(t, h, r.farm.Audit().VisitsTo(h), 3, 7*time.Second) // no robots.txt (R5.5)
}

// R2.2: a host that takes 2 s per answer rests 10 s; one that takes 7 s
// rests the 30 s cap, not 35 s.
func TestDurationTermAndCap(t *testing.T) {
	for _, c := range []struct {
		latency, rest time.Duration
		term          polite.RestTerm
	}{
		{2 * time.Second, 10 * time.Second, polite.RestDuration},
		{7 * time.Second, 30 * time.Second, polite.RestDuration},
		{400 * time.Millisecond, 3 * time.Second, polite.RestFloor},
	} {
		t.Run(c.latency.String(), func(t *testing.T) {
			r := newFarmRig(t)
			h := r.site(politetest.Site{Name: "slow.test", Latency: c.latency})
			r.start(polite.Config{AllowPrivateNetworks: true})
			r.add(r.pages(h, 3)...)
			for u, res := range r.results(3) {
				if res.Duration != c.latency {
					t.Errorf("%s: duration %v, want %v", u, res.Duration, c.latency)
				}
				if res.Rest != (polite.Rest{c.rest, c.term}) {
					t.Errorf("%s: rest %v, want %v (%v)", u, res.Rest, c.rest, c.term)
				}
			}
			wantGaps(t, h, r.farm.Audit().VisitsTo(h), 4, c.rest)
		})
	}
}

// R2.3: robots.txt's Crawl-delay sets the rest when it is the longest
// term, capped at 60 s; it applies from the request after robots.txt on.
func TestCrawlDelayTermAndCap(t *testing.T) {
	for _, c := range []struct {
		delay string
		rest  time.Duration
	}{
		{"10", 10 * time.Second},
		{"2.5", polite.MinRest},
		{"300", 60 * time.Second},
	} {
		t.Run(c.delay, func(t *testing.T) {
			r := newFarmRig(t)
			h := r.site(politetest.Site{Name: "delay.test", Pages: map[string]politetest.Page{
				politetest.RobotsPath: politetest.Robots("User-agent: *\nCrawl-delay: " + c.delay + "\n"),
			}})
			r.start(polite.Config{AllowPrivateNetworks: true})
			r.add(r.pages(h, 3)...)
			term := polite.RestCrawlDelay
			if c.rest == polite.MinRest {
				term = polite.RestFloor
			}
			for u, res := range r.results(3) {
				if res.Rest != (polite.Rest{c.rest, term}) {
					t.Errorf("%s: rest %v, want %v (%v)", u, res.Rest, c.rest, term)
				}
			}
			wantGaps(t, h, r.farm.Audit().VisitsTo(h), 4, c.rest)
		})
	}
}

// R1.3: the rest counts from the end of the body, not from the request. A
// page whose body takes 10 s to arrive makes a 30 s rest (5 × 10 s, capped)
// that starts when the last byte arrived: the next request starts 40 s
// after the slow one did, not 30 s.
func TestRestFromEndOfSlowBody(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "trickle.test", Pages: map[string]politetest.Page{
		"/slow": {BodyDelay: 10 * time.Second},
	}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	slow, next := r.farm.URL(h, "/slow"), r.farm.URL(h, "/next")
	r.add(slow, next)
	res := r.results(2)
	if res[slow].Duration != 10*time.Second || res[slow].Rest != (polite.Rest{30 * time.Second, polite.RestDuration}) {
		t.Errorf("slow page: duration %v rest %v", res[slow].Duration, res[slow].Rest)
	}
	vs := pageVisits(r.farm.Audit().VisitsTo(h))
	if len(vs) != 2 {
		t.Fatalf("farm saw %d requests", len(vs))
	}
	if got := vs[0].End.Sub(vs[0].Start); got != 10*time.Second {
		t.Errorf("farm: slow visit lasted %v, want 10s", got)
	}
	if got := vs[1].Start.Sub(vs[0].End); got != 30*time.Second {
		t.Errorf("farm: gap after the body's end = %v, want 30s", got)
	}
	if got := vs[1].Start.Sub(vs[0].Start); got != 40*time.Second {
		t.Errorf("farm: start to start = %v, want 40s (rest counted from the request's start?)", got)
	}
}

// R1.1: two names on one address share one budget; the same two names on
// two addresses are fetched side by side.
func TestNamesOnOneAddressShareABudget(t *testing.T) {
	r := newFarmRig(t)
	addr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	a := r.site(politetest.Site{Name: "a.shared.test", Addr: addr})
	b := r.site(politetest.Site{Name: "b.shared.test", Addr: addr})
	c := r.site(politetest.Site{Name: "c.alone.test"})
	r.start(polite.Config{AllowPrivateNetworks: true})
	var urls []string
	for i := range 3 {
		urls = append(urls, r.farm.URL(a, fmt.Sprintf("/%d", i)), r.farm.URL(b, fmt.Sprintf("/%d", i)), r.farm.URL(c, fmt.Sprintf("/%d", i)))
	}
	r.add(urls...)
	r.results(len(urls))

	audit := r.farm.Audit()
	rep := audit.Report(restRule(polite.MinRest))
	if rep.Overlaps != 0 || len(rep.ShortGaps) != 0 {
		t.Fatalf("farm audit: %v", rep)
	}
	// Six requests on the shared address, each 3 s after the previous one.
	var shared []politetest.Visit
	for _, v := range audit.Visits() {
		if v.Addr == addr {
			shared = append(shared, v)
		}
	}
	if len(shared) != 8 {
		t.Fatalf("shared address saw %d requests, want 8 (two robots.txt, six pages)", len(shared))
	}
	for i, g := range gaps(shared) {
		if g != polite.MinRest {
			t.Errorf("shared address gap %d = %v, want 3s", i, g)
		}
	}
	// The host alone on its address is not held back by the other two:
	// its last page is at 9 s, while the shared address needs 21 s.
	alone := audit.VisitsTo(c)
	if last := alone[len(alone)-1].Start.Sub(alone[0].Start); last != 3*polite.MinRest {
		t.Errorf("lone host finished at +%v, want +9s", last)
	}
}

// R1.1, R1.2 at scale: 500 hosts on 500 addresses; the farm sees no overlap
// and no gap below the rest on any address, and every URL has its Result.
func TestFiveHundredHosts(t *testing.T) {
	r := newFarmRig(t)
	const hosts, perHost = 500, 3
	var urls []string
	for i := range hosts {
		h := r.site(politetest.Site{Name: fmt.Sprintf("h%03d.test", i)})
		urls = append(urls, r.pages(h, perHost)...)
	}
	r.start(polite.Config{AllowPrivateNetworks: true, MaxInFlight: 32})
	r.add(urls...)
	for u, res := range r.results(len(urls)) {
		if res.Err != nil || res.Status != 200 {
			t.Errorf("%s: %d %v", u, res.Status, res.Err)
		}
	}
	rep := r.farm.Audit().Report(restRule(polite.MinRest))
	if rep.Requests != hosts*(perHost+1) || rep.Addresses != hosts {
		t.Errorf("farm saw %d requests on %d addresses, want %d on %d", rep.Requests, rep.Addresses, hosts*(perHost+1), hosts)
	}
	if rep.Overlaps != 0 || len(rep.ShortGaps) != 0 {
		t.Errorf("farm audit: %v", rep)
	}
	for a, g := range rep.MinGap {
		if g < polite.MinRest {
			t.Errorf("%v: smallest gap %v", a, g)
		}
	}
}

// R1.1: a URL added while its budget has a request in flight waits for
// that request to end and for the rest after it; it is not sent alongside.
func TestAddWhileInFlightWaits(t *testing.T) {
	r := newFarmRig(t)
	gate := make(chan struct{})
	entered := make(chan string)
	a := r.site(politetest.Site{Name: "busy.test", Pages: map[string]politetest.Page{"/held": {Gate: gate, Entered: entered}}})
	c := r.site(politetest.Site{Name: "other.test", Pages: map[string]politetest.Page{politetest.RobotsPath: {Status: 404, Entered: entered}}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	r.add(r.farm.URL(a, "/held"))
	<-entered // busy.test's budget has a request in flight
	r.add(r.farm.URL(a, "/second"), r.farm.URL(c, "/x"))
	<-entered // the dispatcher has taken both adds: other.test's robots.txt is being fetched
	close(gate)
	r.results(3)
	rep := r.farm.Audit().Report(restRule(polite.MinRest))
	if rep.Overlaps != 0 || len(rep.ShortGaps) != 0 {
		t.Errorf("farm audit: %v", rep)
	}
	wantGaps(t, a, r.farm.Audit().VisitsTo(a), 3, polite.MinRest)
}
