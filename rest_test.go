package polite_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/botauth"
	"github.com/politecrawler/polite/internal/clock"
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

// R2.4: a 429 with Retry-After in seconds: the farm sees that wait before
// the next request to the host, then the floor again.
func TestRetryAfterSeconds(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "busy.test", Pages: map[string]politetest.Page{
		"/a": {Status: 429, Header: http.Header{"Retry-After": {"120"}}},
	}})
	r.start(polite.Config{AllowPrivateNetworks: true, Retries: -1})
	a := r.farm.URL(h, "/a")
	r.add(a, r.farm.URL(h, "/b"), r.farm.URL(h, "/c"))
	res := r.results(3)
	if !errors.Is(res[a].Err, polite.ErrRateLimited) || res[a].Rest != (polite.Rest{120 * time.Second, polite.RestRetryAfter}) {
		t.Errorf("429: err %v, rest %v", res[a].Err, res[a].Rest)
	}
	vs := pageVisits(r.farm.Audit().VisitsTo(h))
	if g := gaps(vs); len(g) != 2 || g[0] != 120*time.Second || g[1] != polite.MinRest {
		t.Errorf("farm gaps %v, want [2m0s 3s]", g)
	}
}

// R2.4: Retry-After as an HTTP-date counts from the response's Date.
func TestRetryAfterDate(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "maint.test", Pages: map[string]politetest.Page{
		"/a": {Status: 503, Header: http.Header{
			"Date":        {"Thu, 01 Jan 2026 00:00:00 GMT"},
			"Retry-After": {"Thu, 01 Jan 2026 00:01:30 GMT"},
		}},
	}})
	r.start(polite.Config{AllowPrivateNetworks: true, Retries: -1})
	a := r.farm.URL(h, "/a")
	r.add(a, r.farm.URL(h, "/b"))
	res := r.results(2)
	if !errors.Is(res[a].Err, polite.ErrServerFailure) || res[a].Rest != (polite.Rest{90 * time.Second, polite.RestRetryAfter}) {
		t.Errorf("503: err %v, rest %v", res[a].Err, res[a].Rest)
	}
	if g := gaps(pageVisits(r.farm.Audit().VisitsTo(h))); len(g) != 1 || g[0] != 90*time.Second {
		t.Errorf("farm gaps %v, want [1m30s]", g)
	}
}

// R2.5: 503s without Retry-After back off more after each failure in a
// row (with the jitter fixed at its middle: 7.5 s, 15 s, 30 s, 60 s); a
// success resets the count, and the floor is back.
func TestBackoffGrowsAndResets(t *testing.T) {
	r := newFarmRig(t)
	fail := politetest.Page{Status: 503}
	h := r.site(politetest.Site{Name: "flaky.test", Pages: map[string]politetest.Page{
		"/f1": fail, "/f2": fail, "/f3": fail, "/f4": fail,
	}})
	r.start(polite.Config{AllowPrivateNetworks: true, Retries: -1}, jitter(0.5))
	var urls []string
	for _, p := range []string{"/f1", "/f2", "/f3", "/f4", "/ok1", "/ok2"} {
		urls = append(urls, r.farm.URL(h, p))
	}
	r.add(urls...)
	res := r.results(len(urls))
	want := []time.Duration{7500 * time.Millisecond, 15 * time.Second, 30 * time.Second, 60 * time.Second, polite.MinRest}
	g := gaps(pageVisits(r.farm.Audit().VisitsTo(h)))
	if len(g) != len(want) {
		t.Fatalf("farm gaps %v, want %v", g, want)
	}
	for i := range want {
		if g[i] != want[i] {
			t.Errorf("gap %d = %v, want %v", i, g[i], want[i])
		}
	}
	if res[urls[0]].Rest.Term != polite.RestBackoff || res[urls[4]].Rest.Term != polite.RestFloor {
		t.Errorf("terms %v, %v", res[urls[0]].Rest, res[urls[4]].Rest)
	}
	if res[urls[5]].Err != nil {
		t.Errorf("host stopped after four failures: %v", res[urls[5]].Err)
	}
}

// R3.2: five failures in a row stop the host; its other URLs come back
// stopped, and nothing more reaches it.
func TestFiveFailuresStopTheHost(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "broken.test", Default: func(string) politetest.Page { return politetest.Page{Status: 500} }})
	r.start(polite.Config{AllowPrivateNetworks: true})
	urls := r.pages(h, 7)
	r.add(urls...)
	res := r.results(7)
	for i, u := range urls {
		err := res[u].Err
		if i < polite.FailuresToStop && !errors.Is(err, polite.ErrServerFailure) {
			t.Errorf("%s: %v, want ErrServerFailure", u, err)
		}
		if i >= polite.FailuresToStop && (!isA[*polite.StoppedError](err) || !errors.Is(err, polite.ErrFailuresInARow)) {
			t.Errorf("%s: %v, want a *StoppedError caused by ErrFailuresInARow", u, err)
		}
	}
	later := r.farm.URL(h, "/later")
	r.add(later)
	if res := r.results(1); !isA[*polite.StoppedError](res[later].Err) {
		t.Errorf("later URL: %v", res[later].Err)
	}
	if n := len(pageVisits(r.farm.Audit().VisitsTo(h))); n != polite.FailuresToStop {
		t.Errorf("farm saw %d page requests, want %d", n, polite.FailuresToStop)
	}
}

// R3.1, R3.4: a 403 stops the host at once: the refused URL carries a
// *RefusalError, the queued and later ones a *StoppedError naming it; no
// other request reaches the host; the refusal is logged with its
// evidence; another name on the same address goes on; one User-Agent
// throughout.
func TestForbiddenStopsTheHostAtOnce(t *testing.T) {
	r := newFarmRig(t)
	addr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	h := r.site(politetest.Site{Name: "closed.test", Addr: addr, Pages: map[string]politetest.Page{"/x": {Status: 403}}})
	other := r.site(politetest.Site{Name: "open.test", Addr: addr})
	logs := &logRecords{}
	r.start(polite.Config{AllowPrivateNetworks: true, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	x := r.farm.URL(h, "/x")
	urls := []string{x, r.farm.URL(h, "/y"), r.farm.URL(other, "/1"), r.farm.URL(h, "/z"), r.farm.URL(other, "/2")}
	r.add(urls...)
	res := r.results(len(urls))
	var ref *polite.RefusalError
	if !errors.As(res[x].Err, &ref) || ref.Status != 403 || ref.Host != "closed.test" || ref.Verdict.Kind != polite.ResponseRefused {
		t.Fatalf("refused URL: %v", res[x].Err)
	}
	for _, p := range []string{"/y", "/z"} {
		err := res[r.farm.URL(h, p)].Err
		if !isA[*polite.StoppedError](err) || !isA[*polite.RefusalError](err) {
			t.Errorf("%s: %v, want a *StoppedError naming the refusal", p, err)
		}
	}
	for _, p := range []string{"/1", "/2"} {
		if err := res[r.farm.URL(other, p)].Err; err != nil {
			t.Errorf("open.test%s: %v", p, err)
		}
	}
	later := r.farm.URL(h, "/later")
	r.add(later)
	if res := r.results(1); !isA[*polite.StoppedError](res[later].Err) {
		t.Errorf("later URL: %v", res[later].Err)
	}
	audit := r.farm.Audit()
	if n := len(pageVisits(audit.VisitsTo(h))); n != 1 {
		t.Errorf("farm saw %d page requests to the refusing host, want 1", n)
	}
	agents := map[string]bool{}
	for _, v := range audit.Visits() {
		agents[v.Header.Get("User-Agent")] = true
	}
	if len(agents) != 1 {
		t.Errorf("User-Agents seen: %v", agents)
	}
	var refusals []map[string]any
	for _, rec := range logs.records(t) {
		if rec["level"] == "WARN" && rec["host"] == "closed.test" {
			refusals = append(refusals, rec)
		}
	}
	if len(refusals) != 1 {
		t.Fatalf("%d refusal records, want 1: %v", len(refusals), refusals)
	}
	rec := refusals[0]
	if rec["url"] != x || rec["status"] != float64(403) || rec["kind"] != "refused" || rec["evidence"] != "status 403" || rec["time"] == nil {
		t.Errorf("refusal record %v", rec)
	}
}

// R3.1: each saved challenge page stops its host; an ordinary page with a
// CAPTCHA widget in a form does not.
func TestChallengePagesStopTheirHosts(t *testing.T) {
	r := newFarmRig(t)
	files, _ := filepath.Glob("testdata/responses/*.http")
	type site struct{ name, page, next string }
	var sites []site
	for _, path := range files {
		page, err := politetest.ReadPage(path)
		if err != nil {
			t.Fatal(err)
		}
		name := r.site(politetest.Site{Name: filepath.Base(path[:len(path)-len(".http")]) + ".test", Pages: map[string]politetest.Page{
			"/page": page,
		}})
		sites = append(sites, site{name, r.farm.URL(name, "/page"), r.farm.URL(name, "/next")})
	}
	r.start(polite.Config{AllowPrivateNetworks: true}, jitter(0))
	for _, s := range sites {
		r.add(s.page, s.next)
	}
	res := r.results(2 * len(sites))
	for _, s := range sites {
		v := res[s.page].Verdict
		stopped := isA[*polite.StoppedError](res[s.next].Err)
		if v.Kind == polite.ResponseRefused != stopped {
			t.Errorf("%s: verdict %v, next URL %v", s.name, v.Kind, res[s.next].Err)
		}
		if v.Challenge && !isA[*polite.RefusalError](res[s.page].Err) {
			t.Errorf("%s: challenge without a *RefusalError: %v", s.name, res[s.page].Err)
		}
		wantStop := map[string]bool{
			"cloudflare-challenge.test": true, "cloudflare-block.test": true, "aws-waf-challenge.test": true,
			"perimeterx-block.test": true, "datadome-block.test": true, "captcha-shell.test": true, "pay-per-crawl.test": true,
		}[s.name]
		if stopped != wantStop {
			t.Errorf("%s: stopped %v, want %v", s.name, stopped, wantStop)
		}
	}
}

// R2.4: a Retry-After beyond the horizon parks the address: queued and
// later URLs come back at once with the time they may be asked again.
func TestRetryAfterBeyondHorizonParks(t *testing.T) {
	r := newFarmRig(t)
	addr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	h := r.site(politetest.Site{Name: "away.test", Addr: addr, Pages: map[string]politetest.Page{
		"/a": {Status: 429, Header: http.Header{"Retry-After": {"7200"}}},
	}})
	sibling := r.site(politetest.Site{Name: "sibling.test", Addr: addr})
	r.start(polite.Config{AllowPrivateNetworks: true})
	a, b := r.farm.URL(h, "/a"), r.farm.URL(h, "/b")
	r.add(a, b)
	res := r.results(2)
	if !errors.Is(res[a].Err, polite.ErrRateLimited) || res[a].Rest.Wait != 2*time.Hour || res[a].Rest.Term != polite.RestRetryAfter {
		t.Errorf("429: %v, rest %v; want the 2 h the server asked, beyond the %v horizon", res[a].Err, res[a].Rest, polite.DefaultHorizon)
	}
	var parked *polite.ParkedError
	if !errors.As(res[b].Err, &parked) || !isA[*polite.ParkedError](res[b].Err) {
		t.Fatalf("queued URL: %v, want a *ParkedError", res[b].Err)
	}
	end := res[a].Started.Add(res[a].Duration)
	if !parked.Until.Equal(end.Add(2 * time.Hour)) {
		t.Errorf("parked until %v, want %v", parked.Until, end.Add(2*time.Hour))
	}
	c := r.farm.URL(sibling, "/c")
	r.add(c)
	if res := r.results(1); !isA[*polite.ParkedError](res[c].Err) {
		t.Errorf("a later URL on the same address: %v", res[c].Err)
	}
	if n := len(pageVisits(r.farm.Audit().Visits())); n != 1 {
		t.Errorf("farm saw %d page requests, want 1", n)
	}
}

// R2.4 and R2.5, seen by the server: a 503 whose Retry-After is a date in
// the past (1994: past by the farm's real-time Date header and by the
// fake clock alike) counts as no Retry-After, so four such failures in a
// row are followed by the growing backoff, not by the 3 s floor.
func TestPastRetryAfterBacksOff(t *testing.T) {
	r := newFarmRig(t)
	failing := politetest.Page{Status: http.StatusServiceUnavailable,
		Header: http.Header{"Retry-After": {"Sun, 06 Nov 1994 08:49:37 GMT"}}}
	host := r.site(politetest.Site{Name: "past.test", Default: func(string) politetest.Page { return failing }})
	r.start(polite.Config{})
	// One URL, asked once and tried again three times (R11.3): four
	// failures in a row, one short of stopping the host (R3.2).
	const n = 4
	u := r.url(host, "/a")
	r.add(u)
	res := r.results(1)[u]
	if res.Status != http.StatusServiceUnavailable || errors.Is(res.Err, polite.ErrFailuresInARow) || res.Attempts != n {
		t.Errorf("%s: status %d, %d attempts, %v; want the 503 itself after %d", u, res.Status, res.Attempts, res.Err, n)
	}
	if res.Verdict.HasRetryAfter {
		t.Errorf("%s: verdict %v has a Retry-After", u, res.Verdict)
	}
	var visits []politetest.Visit
	for _, v := range r.farm.Audit().VisitsTo(host) {
		if v.Path != politetest.RobotsPath {
			visits = append(visits, v)
		}
	}
	if len(visits) != n {
		t.Fatalf("farm saw %d page requests, want %d", len(visits), n)
	}
	for i := 1; i < n; i++ {
		gap := visits[i].Start.Sub(visits[i-1].End)
		// The i-th failure in a row backs off 10 s·2^(i−1), jittered into
		// its upper half.
		least := 10 * time.Second << (i - 1) / 2
		if gap < least {
			t.Errorf("gap after failure %d (%s): %v, want ≥ %v", i, visits[i-1].Path, gap, least)
		}
	}
}

// rawServer is a raw TCP server on addr, a loopback address of its own:
// serve has each connection, closed when it returns.
func rawServer(t *testing.T, addr string, serve func(net.Conn)) netip.AddrPort {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return netip.MustParseAddrPort(ln.Addr().String())
}

// zeroStatusServer is a raw TCP server that answers every request
// "HTTP/1.1 000", a status net/http accepts.
func zeroStatusServer(t *testing.T) (netip.AddrPort, *atomic.Int64) {
	t.Helper()
	var requests atomic.Int64
	ap := rawServer(t, "127.30.0.1:0", func(c net.Conn) {
		rd := bufio.NewReader(c)
		for {
			if _, err := http.ReadRequest(rd); err != nil {
				return
			}
			requests.Add(1)
			if _, err := c.Write([]byte("HTTP/1.1 000 Zero\r\nContent-Length: 5\r\n\r\nhello")); err != nil {
				return
			}
		}
	})
	return ap, &requests
}

// R2.5, R11.1: status 000 is no HTTP status: a failure of the host, not a
// Result with neither a page nor an error. Its robots.txt fails five times
// and stops the host; the page's Result says why.
func TestStatusZeroIsAFailure(t *testing.T) {
	ap, requests := zeroStatusServer(t)
	r := newFarmRig(t)
	r.start(polite.Config{Resolver: politetest.NewResolver(map[string]netip.Addr{"zero.test": ap.Addr()})})
	u := "http://zero.test:" + strconv.Itoa(int(ap.Port())) + "/a"
	r.add(u)
	res := r.results(1)[u]
	if res.Err == nil {
		t.Fatalf("status %d, %d bytes, no error: neither a page nor a reason", res.Status, len(res.Body))
	}
	if n := requests.Load(); n != polite.FailuresToStop {
		t.Errorf("server saw %d requests, want %d robots.txt requests then the stop", n, polite.FailuresToStop)
	}
}

// pageVisitsOf are the farm's visits to a host, robots.txt left out.
func pageVisitsOf(fm *politetest.Farm, host string) []politetest.Visit {
	var vs []politetest.Visit
	for _, v := range fm.Audit().VisitsTo(host) {
		if v.Path != politetest.RobotsPath {
			vs = append(vs, v)
		}
	}
	return vs
}

// checkBackoffGaps fails unless the visits, as the server saw them, are
// apart by at least the backoff after as many failures in a row
// (10 s·2^(n−1), jittered into its upper half: R2.5). Gaps run from start
// to start: the farm ends a stalled visit only when it notices the client
// gone, which may be after the fetcher has moved on; a visit takes no time
// on this clock.
func checkBackoffGaps(t *testing.T, vs []politetest.Visit) {
	t.Helper()
	for i := 1; i < len(vs); i++ {
		gap := vs[i].Start.Sub(vs[i-1].Start)
		if least := 10 * time.Second << (i - 1) / 2; gap < least {
			t.Errorf("gap after failure %d: %v, want ≥ %v (R2.5)", i, gap, least)
		}
	}
}

func truncatedGzip(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(strings.Repeat(text, 200)))
	w.Close()
	return b.Bytes()[:b.Len()/2]
}

// R2.5, R3.2, R5.2, R11.1: a robots.txt answered 200 whose body does not
// arrive whole is a failure: it is asked again after a growing backoff,
// five in a row stop the host, and the page held for it gets its Result.
// The page itself is never asked (R5.1).
func TestRobotsTxtWhoseBodyFailsIsAFailure(t *testing.T) {
	text := "User-agent: *\nDisallow: /private\n"
	for _, c := range []struct {
		name    string
		page    politetest.Page
		timeout time.Duration
	}{
		{"cut short of its length", politetest.Page{Cut: true, Body: []byte(text)}, 0},
		{"chunked stream cut", politetest.Page{Cut: true, Chunked: true, Body: []byte(text)}, 0},
		{"truncated gzip", politetest.Page{Body: truncatedGzip(t, text),
			Header: http.Header{"Content-Type": {"text/plain"}, "Content-Encoding": {"gzip"}}}, 0},
		// The stall is cut by Config.Timeout, a real-time bound of the
		// transport (R10.2); the rests are on the fake clock.
		{"stalled", politetest.Page{Hang: true, Body: []byte(text)}, 50 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newFarmRig(t)
			host := r.site(politetest.Site{Name: "cut.test", Pages: map[string]politetest.Page{politetest.RobotsPath: c.page}})
			r.start(polite.Config{Timeout: c.timeout})
			u := r.url(host, "/a")
			r.add(u)
			res := r.results(1)[u]
			if !isA[*polite.StoppedError](res.Err) || !errors.Is(res.Err, polite.ErrFailuresInARow) ||
				!errors.Is(res.Err, polite.ErrIncompleteBody) {
				t.Errorf("page: %v; want the host stopped by five incomplete robots.txt bodies", res.Err)
			}
			if n := r.farm.Audit().Count(host); n != polite.FailuresToStop {
				t.Errorf("server saw %d requests, want %d robots.txt requests", n, polite.FailuresToStop)
			}
			if vs := pageVisitsOf(r.farm, host); len(vs) != 0 {
				t.Errorf("server saw the page asked: %v", vs)
			}
			checkBackoffGaps(t, r.farm.Audit().VisitsTo(host))
			if r.f.Pending() != 0 {
				t.Errorf("%d Results still pending", r.f.Pending())
			}
		})
	}
}

// R2.5, R11.3: a page whose body is cut short is a failure: it is asked
// again after the backoff, three times, then its Result says what came
// (the URL, the bytes read) and how many attempts; a success resets the
// count.
func TestPageWhoseBodyIsCutIsRetriedThenFails(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "cut.test", Pages: map[string]politetest.Page{
		"/cut": {Cut: true, Body: []byte(strings.Repeat("<p>half a page</p>", 50))},
	}})
	r.start(polite.Config{})
	cut, ok := r.url(host, "/cut"), r.url(host, "/ok")
	r.add(cut, ok)
	res := r.results(2)
	err := res[cut].Err
	if !errors.Is(err, polite.ErrIncompleteBody) || res[cut].Status != 200 || res[cut].Attempts != 1+polite.DefaultRetries ||
		!strings.Contains(err.Error(), cut) || !strings.Contains(err.Error(), "450 bytes of 900") {
		t.Errorf("cut page: status %d, %d attempts, %v; want 200, %d attempts and an error naming the URL and the shortfall",
			res[cut].Status, res[cut].Attempts, err, 1+polite.DefaultRetries)
	}
	if res[ok].Err != nil || res[ok].Attempts != 1 {
		t.Errorf("next page: %d attempts, %v", res[ok].Attempts, res[ok].Err)
	}
	vs := pageVisitsOf(r.farm, host)
	if len(vs) != 1+polite.DefaultRetries+1 {
		t.Fatalf("server saw %d page requests, want %d", len(vs), 1+polite.DefaultRetries+1)
	}
	checkBackoffGaps(t, vs[:1+polite.DefaultRetries])
}

// R11.3: Config.Retries may lower the retries, never raise them.
func TestRetriesMayOnlyBeLowered(t *testing.T) {
	for _, c := range []struct{ retries, attempts int }{{-1, 1}, {1, 2}, {0, 4}, {10, 4}} {
		r := newFarmRig(t)
		host := r.site(politetest.Site{Name: "busy.test", Pages: map[string]politetest.Page{"/a": {Status: http.StatusTooManyRequests}}})
		r.start(polite.Config{Retries: c.retries})
		u := r.url(host, "/a")
		r.add(u)
		res := r.results(1)[u]
		if !errors.Is(res.Err, polite.ErrRateLimited) || res.Attempts != c.attempts {
			t.Errorf("Retries %d: %d attempts, %v; want %d", c.retries, res.Attempts, res.Err, c.attempts)
		}
		if n := len(pageVisitsOf(r.farm, host)); n != c.attempts {
			t.Errorf("Retries %d: server saw %d requests, want %d", c.retries, n, c.attempts)
		}
	}
}

// R3.1, R1.1: a host whose certificate does not verify is stopped at once
// with the x509 cause, and holds nothing up for the good host sharing its
// address: no backoff, no retry, no cool-off kept for later runs.
func TestBadCertificateStopsOnlyItsHost(t *testing.T) {
	r := newFarmRig(t)
	addr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	r.site(politetest.Site{Name: "bad.test", Addr: addr, TLS: politetest.WrongNameCert})
	r.site(politetest.Site{Name: "good.test", Addr: addr, TLS: politetest.GoodCert})
	store := polite.NewMemoryStore()
	r.start(polite.Config{RootCAs: r.farm.CertPool(), Store: store})
	bad := []string{r.httpsURL("bad.test", "/1"), r.httpsURL("bad.test", "/2"), r.httpsURL("bad.test", "/3")}
	good := []string{r.httpsURL("good.test", "/1"), r.httpsURL("good.test", "/2")}
	r.add(bad...)
	r.add(good...)
	res := r.results(len(bad) + len(good))
	for _, u := range bad {
		var cv *tls.CertificateVerificationError
		if err := res[u].Err; !isA[*polite.StoppedError](err) || !errors.Is(err, polite.ErrCertificate) ||
			!errors.As(err, &cv) || isA[*polite.RefusalError](err) {
			t.Errorf("%s: %v; want the host stopped for its certificate, the x509 cause kept", u, err)
		}
	}
	for _, u := range good {
		if res[u].Err != nil {
			t.Errorf("%s: %v", u, res[u].Err)
		}
	}
	hellos := 0
	for _, h := range r.farm.Audit().Hellos() {
		if h.ServerName == "bad.test" {
			hellos++
		}
	}
	if hellos != 1 {
		t.Errorf("bad.test saw %d handshakes, want 1: a bad certificate is not retried", hellos)
	}
	// good.test waited one floor at most behind bad.test's failed
	// handshake: its address was not backed off.
	if vs := r.farm.Audit().VisitsTo("good.test"); len(vs) != 3 || vs[0].Start.Sub(clock.Epoch) > polite.MinRest {
		t.Errorf("good.test: %d visits, the first at %v; want 3, within %v of the start", len(vs), vs[0].Start.Sub(clock.Epoch), polite.MinRest)
	}
	if _, kept, _ := store.LoadHost("bad.test"); kept {
		t.Error("a certificate failure left a cool-off for later runs (R3.3 is for refusals)")
	}
	st, _ := r.f.Stats(t.Context())
	if st.Refusals["certificate"] != 1 {
		t.Errorf("Stats.Refusals = %v, want one certificate stop", st.Refusals)
	}
}

// R3.1: a 402 is a refusal, signed request or not: the host is stopped
// and nothing is paid. When it names a price (Cloudflare's crawler-price
// header), the refusal's error and its log line show it.
func TestPaymentRequiredShowsThePrice(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "paid.test", Pages: map[string]politetest.Page{
		"/article": {Status: 402, Header: http.Header{"Crawler-Price": {"USD 0.01"}}},
	}})
	logs := &logRecords{}
	r.start(polite.Config{Signer: newSigner(t, newEd25519(t), botauth.Options{}), Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	article, next := r.url(h, "/article"), r.url(h, "/next")
	r.add(article, next)
	res := r.results(2)
	var ref *polite.RefusalError
	if !errors.As(res[article].Err, &ref) || ref.Status != 402 || !strings.Contains(res[article].Err.Error(), "crawler-price: USD 0.01") {
		t.Fatalf("402: %v", res[article].Err)
	}
	if !isA[*polite.StoppedError](res[next].Err) {
		t.Errorf("the next URL: %v", res[next].Err)
	}
	logged := false
	for _, rec := range logs.records(t) {
		if rec["status"] == float64(402) && strings.Contains(rec["evidence"].(string), "crawler-price: USD 0.01") {
			logged = true
		}
	}
	if !logged {
		t.Errorf("no refusal logged with its price: %v", logs.records(t))
	}
	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Path == "/next" || v.Header.Get("Signature") == "" {
			t.Errorf("farm saw %s, signature %q", v.Path, v.Header.Get("Signature"))
		}
	}
}

// A non-2xx body is read only as far as Classify looks (R3.5), unless it
// is of a type the caller reads (R8.1): an error page cannot make the
// fetcher download megabytes of something it does not want (R10.2).

const (
	// bigErrorBody is an error page nobody should read whole, larger than
	// loopback socket buffers (which take in some 4 MiB of an unread
	// body): the farm sees a dropped connection only beyond them.
	bigErrorBody = 16 << 20
	classifyLen  = 64 << 10 // what Classify reads of a body (R3.5)
)

var octetStream = http.Header{"Content-Type": {"application/octet-stream"}}

// finalVisit is the one visit the farm saw to host's path, once every
// handler has returned: the farm is closed first, so that a handler still
// writing into a connection the client dropped has seen it go. A client
// that read a body whole has had every byte of it written, so closing
// cannot make a drained body look cut.
func finalVisit(t *testing.T, fm *politetest.Farm, host, path string) politetest.Visit {
	t.Helper()
	fm.Close()
	var vs []politetest.Visit
	for _, v := range fm.Audit().VisitsTo(host) {
		if v.Path == path {
			vs = append(vs, v)
		}
	}
	if len(vs) != 1 {
		t.Fatalf("server saw %d requests for %s, want 1: %v", len(vs), path, vs)
	}
	return vs[0]
}

// checkCut fails unless the server saw the client go away well before
// the body's end: the connection was dropped, not drained.
func checkCut(t *testing.T, v politetest.Visit, size int64) {
	t.Helper()
	if !v.Cut || v.Written > size/2 {
		t.Errorf("%s: server wrote %d of %d bytes, cut %v; want the client gone well before the end",
			v.Path, v.Written, size, v.Cut)
	}
}

// R8.1, R3.5, R10.2: a 404 of a type the caller does not read is read only
// as far as Classify looks; it is not a failure, not retried, and the
// next page on the host is fetched.
func TestNonOKBodyOfUnreadTypeIsReadOnlyForClassify(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "blob.test", Pages: map[string]politetest.Page{
		"/blob": {Status: http.StatusNotFound, Header: octetStream, Size: bigErrorBody},
	}})
	r.start(polite.Config{MaxBodyBytes: 2 * bigErrorBody})
	blob, next := r.url(host, "/blob"), r.url(host, "/next")
	r.add(blob, next)
	res := r.results(2)
	got := res[blob]
	if got.Status != http.StatusNotFound || got.Verdict.Kind != polite.ResponseNotFound || got.Attempts != 1 {
		t.Errorf("404: status %d, verdict %v, %d attempts", got.Status, got.Verdict, got.Attempts)
	}
	if errors.Is(got.Err, polite.ErrIncompleteBody) || errors.Is(got.Err, polite.ErrBodyTooLarge) {
		t.Errorf("404: %v; a body cut at the classify prefix is neither incomplete nor too large", got.Err)
	}
	if len(got.Body) > classifyLen || !got.Truncated {
		t.Errorf("404: %d bytes read, truncated %v; want at most %d and truncated", len(got.Body), got.Truncated, classifyLen)
	}
	checkCut(t, finalVisit(t, r.farm, host, "/blob"), bigErrorBody)
	if res[next].Err != nil || res[next].Status != http.StatusOK {
		t.Errorf("next page: status %d, %v", res[next].Status, res[next].Err)
	}
}

// R8.1: a 404 of a type the caller reads (HTML by default) is read whole.
func TestNonOKBodyOfReadTypeIsReadWhole(t *testing.T) {
	const size = 1 << 20
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "gone.test", Pages: map[string]politetest.Page{
		"/gone": {Status: http.StatusNotFound, Size: size}, // generated: text/html
	}})
	r.start(polite.Config{MaxBodyBytes: 2 * bigErrorBody})
	u := r.url(host, "/gone")
	r.add(u)
	got := r.results(1)[u]
	if got.Err != nil || got.Status != http.StatusNotFound || len(got.Body) != size || got.Truncated {
		t.Errorf("404 HTML: status %d, %d bytes, truncated %v, %v; want all %d bytes",
			got.Status, len(got.Body), got.Truncated, got.Err, size)
	}
	if v := finalVisit(t, r.farm, host, "/gone"); v.Cut || v.Written != size {
		t.Errorf("server wrote %d of %d bytes, cut %v", v.Written, size, v.Cut)
	}
}

// R3.1, R3.5: a small challenge page on a 503 is still read and judged a
// refusal: its host is stopped.
func TestNonOKChallengePageIsStillClassified(t *testing.T) {
	body := []byte(`<!DOCTYPE html><html><head><title>Just a moment...</title></head>
<body><noscript>Enable JavaScript and cookies to continue</noscript>
<script>window._cf_chl_opt={cType:'managed'};</script></body></html>`)
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "check.test", Pages: map[string]politetest.Page{
		"/a": {Status: http.StatusServiceUnavailable, Body: body,
			Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}},
	}})
	r.start(polite.Config{MaxBodyBytes: 2 * bigErrorBody})
	a, b := r.url(host, "/a"), r.url(host, "/b")
	r.add(a, b)
	res := r.results(2)
	if v := res[a].Verdict; v.Kind != polite.ResponseRefused || !v.Challenge || !isA[*polite.RefusalError](res[a].Err) {
		t.Errorf("503 challenge: verdict %v, %v; want a refusal", v, res[a].Err)
	}
	if string(res[a].Body) != string(body) || res[a].Truncated {
		t.Errorf("503 challenge: %d of %d bytes, truncated %v", len(res[a].Body), len(body), res[a].Truncated)
	}
	if !isA[*polite.StoppedError](res[b].Err) {
		t.Errorf("next URL: %v, want a *StoppedError", res[b].Err)
	}
	if n := len(pageVisitsOf(r.farm, host)); n != 1 {
		t.Errorf("server saw %d page requests, want 1", n)
	}
}

// R3.1, R8.1: a 403 of a type the caller does not read still stops the
// host, and its body is read only as far as Classify looks.
func TestNonOKRefusalOfUnreadTypeStopsTheHost(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "deny.test", Pages: map[string]politetest.Page{
		"/a": {Status: http.StatusForbidden, Header: octetStream, Size: bigErrorBody},
	}})
	r.start(polite.Config{MaxBodyBytes: 2 * bigErrorBody})
	a, b := r.url(host, "/a"), r.url(host, "/b")
	r.add(a, b)
	res := r.results(2)
	if res[a].Verdict.Kind != polite.ResponseRefused || !isA[*polite.RefusalError](res[a].Err) {
		t.Errorf("403: verdict %v, %v; want a refusal", res[a].Verdict, res[a].Err)
	}
	if len(res[a].Body) > classifyLen || !res[a].Truncated {
		t.Errorf("403: %d bytes read, truncated %v; want at most %d and truncated", len(res[a].Body), res[a].Truncated, classifyLen)
	}
	if !isA[*polite.StoppedError](res[b].Err) || !isA[*polite.RefusalError](res[b].Err) {
		t.Errorf("next URL: %v, want a *StoppedError naming the refusal", res[b].Err)
	}
	checkCut(t, finalVisit(t, r.farm, host, "/a"), bigErrorBody)
	if n := len(pageVisitsOf(r.farm, host)); n != 1 {
		t.Errorf("server saw %d page requests, want 1", n)
	}
}

// R5.2, R8.1, R10.2: a robots.txt answered 404 with a big body of another
// type is read only as far as Classify looks, and means "allow all": the
// page after it is fetched.
func TestNonOKRobotsTxtIsReadOnlyForClassify(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "norobots.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Status: http.StatusNotFound, Header: octetStream, Size: bigErrorBody},
	}})
	f := r.start(polite.Config{MaxBodyBytes: 2 * bigErrorBody})
	u := r.url(host, "/page")
	r.add(u)
	got := r.results(1)[u]
	if got.Err != nil || got.Status != http.StatusOK {
		t.Fatalf("page after a 404 robots.txt: status %d, %v", got.Status, got.Err)
	}
	st, err := f.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if robots := st.Bytes - int64(len(got.Body)); robots > classifyLen {
		t.Errorf("read %d bytes of the 404 robots.txt, want at most %d", robots, classifyLen)
	}
	checkCut(t, finalVisit(t, r.farm, host, politetest.RobotsPath), bigErrorBody)
}
