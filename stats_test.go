package polite_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// Stats agrees with what the farm saw, during and after a run.
func TestStats(t *testing.T) {
	r := newFarmRig(t)
	a := r.site(politetest.Site{Name: "a.test"})
	b := r.site(politetest.Site{Name: "b.test"})
	no := r.site(politetest.Site{Name: "no.test", Default: func(string) politetest.Page { return politetest.Page{Status: 403} }})
	f := r.start(polite.Config{AllowPrivateNetworks: true})
	r.add(r.pages(a, 3)...)
	r.add(r.pages(b, 2)...)
	r.add(r.pages(no, 2)...)
	r.results(7)
	st, err := f.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Hosts != 3 || st.Stopped != 1 || st.Refusals["refused"] != 1 || st.Queued != 0 || st.InFlight != 0 || st.Active != 0 {
		t.Errorf("stats %+v", st)
	}
	if want := len(r.farm.Audit().Visits()); st.Requests != want {
		t.Errorf("stats say %d requests, the farm saw %d", st.Requests, want)
	}
	if st.Bytes == 0 {
		t.Error("no bytes counted")
	}
	f.Close()
	after, err := f.Stats(context.Background())
	if err != nil || after.Requests != st.Requests {
		t.Errorf("after Close: %+v %v", after, err)
	}
}

// R1.2: with the default Config, the requests in flight follow the work,
// not a pool of 64: every request due starts (the fake clock's fetcher has
// no CPU gauge to hold them down; internal/schedule tests the ceiling).
// Thirty hosts whose robots.txt took 1 s or more (the farm's fake clock
// moves 1 s for each, so up to 30 s) rest 5 times that, capped at 30 s,
// each needing 1/6 or more of a request in flight (Stats.InFlightNeed).
// With their pages held, 270 new hosts, each counted at that mean once
// its held robots.txt request is in flight, bring the need to 50 or more.
// The check waits for all 270 to reach the farm: a host still being
// looked up has no budget to count yet. A fetcher that stopped at 64
// would hang here, for go test's -timeout to catch.
func TestInFlightFollowsTheNeed(t *testing.T) {
	r := newFarmRig(t)
	const seen, fresh = 30, 270
	pagesHeld, robotsHeld := make(chan struct{}), make(chan struct{})
	entered := make(chan string)
	var urls []string
	for i := range seen {
		h := r.site(politetest.Site{Name: fmt.Sprintf("s%02d.test", i), Pages: map[string]politetest.Page{
			politetest.RobotsPath: {Status: 404, Latency: time.Second},
			"/p0":                 {Gate: pagesHeld},
			"/p1":                 {Gate: pagesHeld},
		}})
		urls = append(urls, r.pages(h, 2)...)
	}
	var logs logRecords
	f := r.start(polite.Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	r.add(urls...)
	ctx := context.Background()
	for { // a hang is -timeout's to catch
		st, err := f.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Requests == seen {
			break
		}
		runtime.Gosched()
	}
	var later []string
	for i := range fresh {
		h := r.site(politetest.Site{Name: fmt.Sprintf("f%03d.test", i), Pages: map[string]politetest.Page{
			politetest.RobotsPath: {Status: 404, Gate: robotsHeld, Entered: entered},
		}})
		later = append(later, r.url(h, "/page"))
	}
	r.add(later...)
	for range fresh {
		<-entered
	}
	st, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const need = (seen + fresh) / 6.0 // a float sum may end a hair below
	if st.InFlight < fresh || st.InFlightNeed < need-1e-9 || st.MaxInFlight != polite.DefaultMaxInFlight {
		t.Errorf("%d in flight, %.1f needed, cap %d; want %d or more in flight, %.0f or more needed, cap %d",
			st.InFlight, st.InFlightNeed, st.MaxInFlight, fresh, need, polite.DefaultMaxInFlight)
	}
	close(robotsHeld)
	close(pagesHeld)
	for u, res := range r.results(len(urls) + len(later)) {
		if res.Err != nil || res.Status != 200 {
			t.Errorf("%s: %d %v", u, res.Status, res.Err)
		}
	}
	if rep := r.farm.Audit().Report(restRule(polite.MinRest)); rep.Overlaps != 0 || len(rep.ShortGaps) != 0 {
		t.Errorf("farm audit: %v", rep)
	}
	if n := capNotices(t, &logs); n != 0 {
		t.Errorf("%d notices of the cap holding requests back, under the default cap", n)
	}
	// Once idle, the goroutines made for the burst end, but for the 64
	// kept waiting for work: this waits for them without a clock, and a
	// hang is -timeout's to catch.
	for jobGoroutines() > 64 {
		runtime.Gosched()
	}
}

// capNotices counts the log's notices that MaxInFlight held requests back.
func capNotices(t *testing.T, logs *logRecords) int {
	n := 0
	for _, rec := range logs.records(t) {
		if strings.HasPrefix(rec["msg"].(string), "polite: MaxInFlight holds back") {
			n++
		}
	}
	return n
}

// MaxInFlight still caps the requests in flight: with 8, 8 of the held
// robots.txt requests are in flight, and the others wait for them.
func TestMaxInFlightCaps(t *testing.T) {
	r := newFarmRig(t)
	const hosts, limit = 40, 8
	gate := make(chan struct{})
	entered := make(chan string)
	held := map[string]politetest.Page{politetest.RobotsPath: {Status: 404, Gate: gate, Entered: entered}}
	var urls []string
	for i := range hosts {
		h := r.site(politetest.Site{Name: fmt.Sprintf("c%02d.test", i), Pages: held})
		urls = append(urls, r.url(h, "/page"))
	}
	var logs logRecords
	f := r.start(polite.Config{MaxInFlight: limit, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	r.add(urls...)
	for range limit {
		<-entered
	}
	st, err := f.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.InFlight != limit || st.MaxInFlight != limit {
		t.Errorf("%d requests in flight, cap %d, with MaxInFlight %d", st.InFlight, st.MaxInFlight, limit)
	}
	go func() { // the others enter as the first end
		for range hosts - limit {
			<-entered
		}
	}()
	close(gate)
	for u, res := range r.results(hosts) {
		if res.Err != nil || res.Status != 200 {
			t.Errorf("%s: %d %v", u, res.Status, res.Err)
		}
	}
	if n := capNotices(t, &logs); n != 1 {
		t.Errorf("%d notices of the cap holding requests back; want 1, once a run", n)
	}
}

// Stats.InFlightNeed is Little's law over the addresses with work: a host
// answering in 1 s rests 5 s (R2.2), so while pages wait there it needs
// 1/6 of a request in flight; once its work is done, nothing.
func TestStatsInFlightNeed(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "slow.test", Latency: time.Second})
	// One unread Result holds the next request: the state stays put.
	f := r.start(polite.Config{MaxUnread: 1})
	urls := r.pages(h, 3)
	r.add(urls...)
	ctx := context.Background()
	for {
		st, err := f.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Requests == 2 && st.InFlight == 0 { // robots.txt and a page
			if want := 1.0 / 6; math.Abs(st.InFlightNeed-want) > 1e-3 {
				t.Errorf("need %.4f requests in flight with pages waiting, want %.4f", st.InFlightNeed, want)
			}
			break
		}
		runtime.Gosched() // a hang is -timeout's to catch
	}
	r.results(len(urls))
	st, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.InFlightNeed != 0 {
		t.Errorf("need %v requests in flight with no work left, want 0", st.InFlightNeed)
	}
	// The fake clock's fetcher has no CPU gauge: the ceiling is the cap.
	if st.CPUCeiling != st.MaxInFlight {
		t.Errorf("CPU ceiling %d, cap %d", st.CPUCeiling, st.MaxInFlight)
	}
}

// R1.2: Close turns every queued URL away, and the need for requests in
// flight goes with them: Stats after Close says 0, not the need of work
// that no longer waits.
func TestCloseEndsTheNeed(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "slow.test", Latency: time.Second})
	f := r.start(polite.Config{MaxUnread: 1}) // the second page waits behind the first's unread Result
	r.add(r.pages(h, 3)...)
	ctx := context.Background()
	for { // a hang is -timeout's to catch
		st, err := f.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Requests == 2 && st.InFlight == 0 && st.InFlightNeed > 0 {
			break
		}
		runtime.Gosched()
	}
	f.Close()
	st, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Queued != 0 || st.InFlightNeed != 0 {
		t.Errorf("after Close: %d URLs queued, need %v requests in flight; want 0 and 0", st.Queued, st.InFlightNeed)
	}
}

// jobGoroutines counts the goroutines running a Fetcher's jobs.
func jobGoroutines() int {
	n := 0
	for _, g := range fetcherGoroutines() {
		if strings.Contains(g, "polite.(*Fetcher).work(") {
			n++
		}
	}
	return n
}

// R1.2: the CPU's ceiling starts at 64 requests in flight and grows while
// the CPU has room, though no request ends. Eighty hosts on the real clock
// (the gauge reads the real CPU) hold their robots.txt requests in flight;
// the ceiling grew only when a request ended, so all 80 reach the farm only
// if the dispatcher heeds the gauge by itself. A fetcher held at 64 would
// hang here, for go test's -timeout to catch.
func TestCeilingGrowsWhileNoRequestEnds(t *testing.T) {
	checkNoLeaks(t)
	const hosts = 80
	held := make(chan struct{})
	entered := make(chan string, hosts)
	fm := politetest.Start(t)
	t.Cleanup(func() { close(held) })
	var urls []string
	for i := range hosts {
		name := fmt.Sprintf("h%02d.test", i)
		if _, err := fm.AddSite(politetest.Site{Name: name, Pages: map[string]politetest.Page{
			politetest.RobotsPath: {Gate: held, Entered: entered},
		}}); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, fm.URL(name, "/page"))
	}
	f := crawlOnRealClock(t, fm, urls)
	for range hosts {
		<-entered
	}
	st, err := f.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.InFlight != hosts || st.CPUCeiling < hosts {
		t.Errorf("Stats: %d in flight, ceiling %d; want %d and at least that", st.InFlight, st.CPUCeiling, hosts)
	}
}

// R1.2: a server that never answers holds one request, and nothing else.
// A hundred such hosts are added first, on the real clock, then ten fast
// ones: the fast hosts get robots.txt and their page, 3 s apart, while
// every stalled request is still held. Before the CPU's ceiling grew by
// itself, the first 64 stalled requests held every other back; that
// hangs here, for go test's -timeout to catch.
func TestStalledHostsHoldNoFastOne(t *testing.T) {
	checkNoLeaks(t)
	const stalled, fast = 100, 10
	held := make(chan struct{})
	fm := politetest.Start(t)
	t.Cleanup(func() { close(held) })
	var urls, fastNames []string
	for i := range stalled + fast {
		name := fmt.Sprintf("h%03d.test", i)
		site := politetest.Site{Name: name}
		if i < stalled {
			site.Pages = map[string]politetest.Page{politetest.RobotsPath: {Gate: held}}
		} else {
			fastNames = append(fastNames, name)
		}
		if _, err := fm.AddSite(site); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, fm.URL(name, "/page"))
	}
	f := crawlOnRealClock(t, fm, urls)
	ctx := context.Background()
	for range fast { // the stalled hosts' Results come only when Close ends them
		res, err := f.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Err != nil || res.Status != 200 {
			t.Errorf("%s: %d %v", res.URL, res.Status, res.Err)
		}
	}
	for _, name := range fastNames {
		vs := fm.Audit().VisitsTo(name)
		if len(vs) != 2 || vs[0].Path != politetest.RobotsPath || vs[1].Start.Sub(vs[0].End) < polite.MinRest {
			t.Errorf("%s: the farm saw %d requests, want robots.txt and the page 3 s after it", name, len(vs))
		}
	}
	if rep := fm.Audit().Report(politetest.AtLeast(polite.MinRest)); !rep.Polite() {
		t.Error(rep)
	}
}

// crawlOnRealClock adds urls to a Fetcher with the default Config on the
// real clock, so with the CPU's gauge, reaching fm's sites.
func crawlOnRealClock(t *testing.T, fm *politetest.Farm, urls []string) *polite.Fetcher {
	t.Helper()
	f, err := polite.New(polite.Config{Resolver: fm.Resolver(), AllowPrivateNetworks: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	for _, u := range urls {
		if err := f.Add(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// unanswered is a Resolver that answers no name: each lookup waits for its
// context to end.
type unanswered struct{}

func (unanswered) LookupNetIP(ctx context.Context, _, _ string) ([]netip.Addr, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// Stats counts the host lookups under way beside the requests in flight:
// three hosts whose names are not answered show 3 lookups, no request, and
// their 3 URLs queued.
func TestStatsCountsLookups(t *testing.T) {
	r := newFarmRig(t)
	f := r.start(polite.Config{Resolver: unanswered{}})
	r.add("http://a.test/", "http://b.test/", "http://c.test/")
	ctx := context.Background()
	for { // a hang is -timeout's to catch
		st, err := f.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.Lookups == 3 {
			if st.InFlight != 0 || st.Queued != 3 {
				t.Errorf("3 lookups under way: %d requests in flight, %d URLs queued; want 0 and 3", st.InFlight, st.Queued)
			}
			break
		}
		runtime.Gosched()
	}
}
