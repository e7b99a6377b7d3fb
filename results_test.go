package polite_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// linkPage is a farm page linking to the given paths.
func linkPage(paths ...string) politetest.Page {
	var b strings.Builder
	b.WriteString("<html><body>\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "<a href=%q>%s</a>\n", p, p)
	}
	b.WriteString("</body></html>\n")
	return politetest.Page{Header: map[string][]string{"Content-Type": {"text/html"}}, Body: []byte(b.String())}
}

// A crawler's loop: Results yields every Result once, including those of
// URLs Added from the loop's body, and ends by itself when nothing is
// left.
func TestResultsLoopAddsLinksFromItsBody(t *testing.T) {
	r := newFarmRig(t)
	site := map[string]politetest.Page{
		"/":    linkPage("/a", "/b", "/c"),
		"/a":   linkPage("/a/1", "/a/2", "/"),
		"/b":   linkPage("/b/1", "/a"),
		"/c":   linkPage(),
		"/a/1": linkPage("/a/2"),
		"/a/2": linkPage("/b/1"),
		"/b/1": linkPage("/c", "/b/1/x"),
	}
	leaf := func(string) politetest.Page { return linkPage() } // /b/1/x
	r.site(politetest.Site{Name: "one.test", Pages: site, Default: leaf})
	r.site(politetest.Site{Name: "two.test", Pages: site, Default: leaf})
	f := r.start(polite.Config{})
	ctx := context.Background()
	added := map[string]bool{}
	add := func(u string) {
		if !added[u] {
			added[u] = true
			r.add(u)
		}
	}
	add(r.url("one.test", "/"))
	add(r.url("two.test", "/"))
	got := map[string]int{}
	for res, err := range f.Results(ctx) {
		if err != nil {
			t.Fatalf("Results: %v", err)
		}
		got[res.URL]++
		if res.Err != nil {
			t.Errorf("%s: %v", res.URL, res.Err)
		}
		for _, l := range res.Links() {
			add(l.URL)
		}
	}
	if len(added) != 16 { // 8 paths on each of two hosts
		t.Errorf("%d URLs added, want 16: %v", len(added), added)
	}
	for u := range added {
		if got[u] != 1 {
			t.Errorf("%s: %d Results, want 1", u, got[u])
		}
	}
	if len(got) != len(added) {
		t.Errorf("%d URLs answered, %d added", len(got), len(added))
	}
	if n := f.Pending(); n != 0 {
		t.Errorf("Pending() = %d after the loop", n)
	}
}

// The crawl example's race, made deterministic: the body of what would be
// the last iteration Adds one more URL. The Result in hand still counts as
// pending, so the loop goes on and delivers it.
func TestResultsAddFromTheLastBody(t *testing.T) {
	r := newFarmRig(t)
	r.site(politetest.Site{Name: "chain.test"})
	f := r.start(polite.Config{})
	chain := []string{r.url("chain.test", "/1"), r.url("chain.test", "/2"), r.url("chain.test", "/3")}
	r.add(chain[0])
	var got []string
	for res, err := range f.Results(context.Background()) {
		if err != nil {
			t.Fatalf("Results: %v", err)
		}
		got = append(got, res.URL)
		// Nothing else is queued or in flight: only this Result is pending.
		if n := f.Pending(); n != 1 {
			t.Errorf("in the body of %s, Pending() = %d, want 1 (the Result in hand)", res.URL, n)
		}
		if len(got) < len(chain) {
			r.add(chain[len(got)])
		}
	}
	if strings.Join(got, " ") != strings.Join(chain, " ") {
		t.Errorf("got %v, want %v", got, chain)
	}
	if n := f.Pending(); n != 0 {
		t.Errorf("Pending() = %d after the loop", n)
	}
}

// Two goroutines ranging over Results at once: each Result goes to one of
// them, and neither ends while the other's body holds a Result, which
// may Add more. A chain keeps exactly one URL pending at a time, so the
// loop not given it waits, and must be woken when the chain ends.
func TestResultsTwoLoopsAtOnce(t *testing.T) {
	r := newFarmRig(t)
	const n = 12
	pages := map[string]politetest.Page{}
	for i := 1; i < n; i++ {
		pages[fmt.Sprintf("/%d", i)] = linkPage(fmt.Sprintf("/%d", i+1))
	}
	pages[fmt.Sprintf("/%d", n)] = linkPage()
	r.site(politetest.Site{Name: "chain.test", Pages: pages})
	f := r.start(polite.Config{})
	r.add(r.url("chain.test", "/1"))

	var mu sync.Mutex
	got := map[string]int{}
	var inBody atomic.Int32
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for res, err := range f.Results(context.Background()) {
				if err != nil {
					t.Errorf("Results: %v", err)
					return
				}
				inBody.Add(1)
				mu.Lock()
				got[res.URL]++
				mu.Unlock()
				for _, l := range res.Links() {
					if err := f.Add(context.Background(), l.URL); err != nil {
						t.Errorf("Add(%s): %v", l.URL, err)
					}
				}
				inBody.Add(-1)
			}
			if b := inBody.Load(); b != 0 {
				t.Errorf("a loop ended while %d bodies held a Result", b)
			}
		})
	}
	wg.Wait()
	for i := 1; i <= n; i++ {
		if u := r.url("chain.test", fmt.Sprintf("/%d", i)); got[u] != 1 {
			t.Errorf("%s: %d Results, want 1", u, got[u])
		}
	}
	if f.Pending() != 0 {
		t.Errorf("Pending() = %d after both loops", f.Pending())
	}
}

// R11.2: Close from the loop's body ends the loop, after every accepted
// URL has had its Result: the ones fetched, and ErrClosed for the rest.
func TestResultsCloseMidLoop(t *testing.T) {
	r := newFarmRig(t)
	gate := make(chan struct{}) // never opened: /p9 is answered by Close
	r.site(politetest.Site{Name: "many.test", Pages: map[string]politetest.Page{"/p9": {Gate: gate}}})
	f := r.start(polite.Config{})
	var urls []string
	for i := range 10 {
		u := r.url("many.test", fmt.Sprintf("/p%d", i))
		urls = append(urls, u)
		r.add(u)
	}
	got := map[string]int{}
	closed := 0
	for res, err := range f.Results(context.Background()) {
		if err != nil {
			t.Fatalf("Results: %v", err)
		}
		got[res.URL]++
		if errors.Is(res.Err, polite.ErrClosed) {
			closed++
		}
		if len(got) == 2 {
			f.Close()
			if err := f.Add(context.Background(), r.url("many.test", "/late")); !errors.Is(err, polite.ErrClosed) {
				t.Errorf("Add after Close: %v, want ErrClosed", err)
			}
		}
	}
	for _, u := range urls {
		if got[u] != 1 {
			t.Errorf("%s: %d Results, want 1", u, got[u])
		}
	}
	if closed == 0 {
		t.Errorf("no Result carries ErrClosed; /p9 was held until Close")
	}
	if f.Pending() != 0 {
		t.Errorf("Pending() = %d after the loop", f.Pending())
	}
}

// Close from another goroutine while the loop waits for a request in
// flight: the request's Result (ErrClosed) is yielded, then the loop ends.
func TestResultsCloseWhileWaiting(t *testing.T) {
	r := newFarmRig(t)
	entered := make(chan string, 1)
	gate := make(chan struct{}) // never opened: the request stays in flight
	r.site(politetest.Site{Name: "slow.test", Pages: map[string]politetest.Page{"/": {Entered: entered, Gate: gate}}})
	f := r.start(polite.Config{})
	u := r.url("slow.test", "/")
	r.add(u)
	go func() {
		<-entered
		f.Close()
	}()
	var got []*polite.Result
	for res, err := range f.Results(context.Background()) {
		if err != nil {
			t.Fatalf("Results: %v", err)
		}
		got = append(got, res)
	}
	if len(got) != 1 || got[0].URL != u || !errors.Is(got[0].Err, polite.ErrClosed) {
		for _, res := range got {
			t.Logf("%s: %v", res.URL, res.Err)
		}
		t.Fatalf("got %d Results, want one for %s with ErrClosed", len(got), u)
	}
}

// A ctx that ends stops the loop with ctx.Err(), yielded once; the URLs
// still pending are not lost: a later loop gets them.
func TestResultsCancelledContext(t *testing.T) {
	r := newFarmRig(t)
	r.site(politetest.Site{Name: "three.test"})
	f := r.start(polite.Config{})
	for _, p := range []string{"/1", "/2", "/3"} {
		r.add(r.url("three.test", p))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	results, errs := 0, []error{}
	for res, err := range f.Results(ctx) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if res == nil {
			t.Fatal("a nil Result without an error")
		}
		results++
		cancel()
	}
	if results != 1 || len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("%d Results and errors %v; want 1 Result, then context.Canceled once", results, errs)
	}
	if n := f.Pending(); n != 2 {
		t.Errorf("Pending() = %d after the cancelled loop, want 2", n)
	}
	for _, err := range f.Results(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		results++
	}
	if results != 3 {
		t.Errorf("%d Results in all, want 3", results)
	}
}

// A ctx that ends while the loop waits for a request in flight.
func TestResultsContextEndsWhileWaiting(t *testing.T) {
	r := newFarmRig(t)
	entered := make(chan string, 1)
	gate := make(chan struct{})
	defer close(gate)
	r.site(politetest.Site{Name: "slow.test", Pages: map[string]politetest.Page{"/": {Entered: entered, Gate: gate}}})
	f := r.start(polite.Config{})
	r.add(r.url("slow.test", "/"))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-entered
		cancel()
	}()
	var errs []error
	for res, err := range f.Results(ctx) {
		if err == nil {
			t.Fatalf("a Result for %s before the gate opened", res.URL)
		}
		errs = append(errs, err)
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("errors %v, want context.Canceled once", errs)
	}
	if f.Pending() != 1 {
		t.Errorf("Pending() = %d, want 1", f.Pending())
	}
}

// A break ends the loop; the Result it broke on counts as handled.
func TestResultsBreak(t *testing.T) {
	r := newFarmRig(t)
	r.site(politetest.Site{Name: "three.test"})
	f := r.start(polite.Config{})
	for _, p := range []string{"/1", "/2", "/3"} {
		r.add(r.url("three.test", p))
	}
	for _, err := range f.Results(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if n := f.Pending(); n != 2 {
		t.Errorf("Pending() = %d after a break, want 2", n)
	}
}

// R11.1: a crawler that Adds each page's links from its Results loop
// goes on when the fetcher waits for it (MaxUnread 1): Add never waits
// for the reader, so the loop body never blocks the loop.
func TestCrawlWithMaxUnreadOneEnds(t *testing.T) {
	r := newFarmRig(t)
	pages := map[string]politetest.Page{}
	for i := range 12 {
		// Page i links to 2i+1 and 2i+2, a tree of 12 pages.
		pages[fmt.Sprintf("/p%d", i)] = politetest.Page{Body: fmt.Appendf(nil,
			`<html><body>page %d <a href="/p%d">a</a> <a href="/p%d">b</a></body></html>`, i, 2*i+1, 2*i+2)}
	}
	host := r.site(politetest.Site{Name: "tree.test", Pages: pages})
	f := r.start(polite.Config{MaxUnread: 1})
	r.add(r.url(host, "/p0"))
	ctx := context.Background()
	got, added := 0, 1
	for res, err := range f.Results(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		got++
		for _, l := range res.Links() {
			switch err := f.Add(ctx, l.URL); {
			case err == nil:
				added++
			case !errors.Is(err, polite.ErrDuplicate):
				t.Fatalf("Add(%s): %v", l.URL, err)
			}
		}
	}
	// The loop ended by itself: every URL added got its Result, and each
	// was asked once, after robots.txt.
	if got != added || added < 25 || r.farm.Audit().Count(host) != added+1 {
		t.Errorf("%d Results for %d URLs added, %d requests", got, added, r.farm.Audit().Count(host))
	}
}

// R11, R10.2: a reader that falls behind holds the fetcher back. With
// MaxUnread Results waiting, no request starts, so the Results held in
// memory (bodies up to MaxBodyBytes each) stay within MaxUnread +
// MaxInFlight however slowly the caller reads; Add still returns at once.
// Without the bound every page was fetched before the first was read.
func TestReaderBehindHoldsRequests(t *testing.T) {
	r := newFarmRig(t)
	pages := map[string]politetest.Page{}
	for i := range 8 {
		pages[fmt.Sprintf("/p%d", i)] = politetest.Page{Body: fmt.Appendf(nil, "<p>page %d</p>", i)}
	}
	host := r.site(politetest.Site{Name: "api.test", Pages: pages})
	held := make(chan struct{}, 1)
	const maxUnread, maxInFlight = 2, 1
	r.start(polite.Config{AllowPrivateNetworks: true, MaxUnread: maxUnread, MaxInFlight: maxInFlight,
		APIs: []polite.API{{Host: host, Terms: "https://api.test/terms"}}},
		onHeld(func() {
			select {
			case held <- struct{}{}:
			default:
			}
		}))
	for i := range 8 {
		r.add(r.farm.URL(host, fmt.Sprintf("/p%d", i)))
	}
	ctx := context.Background()
	for read := 0; read < 8; read++ {
		if read < 8-maxUnread { // until the last page is fetched, it waits for the reader
			<-held
			if n := r.farm.Audit().Count(host); n > read+maxUnread+maxInFlight {
				t.Fatalf("%d requests made with %d Results read; want at most %d", n, read, read+maxUnread+maxInFlight)
			}
		}
		res, err := r.f.Next(ctx)
		if err != nil || res.Err != nil {
			t.Fatalf("Result %d: %v %v", read, err, res)
		}
	}
	if n := r.farm.Audit().Count(host); n != 8 {
		t.Errorf("%d requests, want 8", n)
	}
}

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
