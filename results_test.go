package polite_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

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
