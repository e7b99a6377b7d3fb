package polite_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R11.1, R11.2: Close in the middle of a run still yields exactly one
// Result per accepted URL: the finished ones, the ones in flight (held open
// by the farm until the client goes away), and the ones still queued; then
// io.EOF; and no goroutine of the fetcher is left (checked by the rig on
// cleanup).
func TestCloseMidRunLosesNothing(t *testing.T) {
	r := newFarmRig(t)
	entered := make(chan string)
	never := make(chan struct{}) // the gate stays shut: only Close ends these
	var urls []string
	for i := range 40 {
		s := politetest.Site{Name: fmt.Sprintf("c%02d.test", i)}
		if i%4 == 0 {
			s.Pages = map[string]politetest.Page{"/p1": {Entered: entered, Gate: never}}
		}
		h := r.site(s)
		urls = append(urls, r.pages(h, 5)...)
	}
	f := r.start(polite.Config{AllowPrivateNetworks: true, MaxInFlight: 8})
	r.add(urls...)
	<-entered // a request is in flight, others are done or queued
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Add(context.Background(), urls[0]); !errors.Is(err, polite.ErrClosed) {
		t.Errorf("Add after Close = %v, want ErrClosed", err)
	}
	all := drain(t, f)

	seen := make(map[string]int)
	closed, done := 0, 0
	for _, res := range all {
		seen[res.URL]++
		switch {
		case errors.Is(res.Err, polite.ErrClosed):
			closed++
		case res.Err == nil:
			done++
		default:
			t.Errorf("%s: %v", res.URL, res.Err)
		}
	}
	for _, u := range urls {
		if seen[u] != 1 {
			t.Errorf("%s: %d Results, want exactly 1", u, seen[u])
		}
	}
	if len(all) != len(urls) {
		t.Errorf("%d Results for %d URLs", len(all), len(urls))
	}
	if closed == 0 || done == 0 {
		t.Errorf("%d done and %d closed: Close did not come mid-run", done, closed)
	}
	if _, err := f.Next(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("Next after drain = %v, want io.EOF", err)
	}
	if f.Pending() != 0 {
		t.Errorf("Pending() = %d after drain", f.Pending())
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if rep := r.farm.Audit().Report(restRule(polite.MinRest)); rep.Overlaps != 0 || len(rep.ShortGaps) != 0 {
		t.Errorf("farm audit: %v", rep)
	}
}

// Close with nothing queued and nothing read returns at once and leaves
// no goroutine behind; Next then says io.EOF.
func TestCloseIdle(t *testing.T) {
	checkNoLeaks(t)
	f, err := polite.New(polite.Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if f.UserAgent() != "PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)" {
		t.Errorf("User-Agent %q", f.UserAgent())
	}
	f.Close()
	if _, err := f.Next(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("Next = %v, want io.EOF", err)
	}
}

// Next honours its context while nothing is ready.
func TestNextContext(t *testing.T) {
	checkNoLeaks(t)
	f, err := polite.New(polite.Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next = %v, want context.Canceled", err)
	}
	if err := f.Add(ctx, "https://example.org/"); !errors.Is(err, context.Canceled) ||
		!strings.HasPrefix(err.Error(), "polite: https://example.org/ not added") {
		t.Errorf("Add with a cancelled context = %v; want context.Canceled, the URL named", err)
	}
}

// Many readers and writers at once: every Result reaches exactly one
// reader (run under -race).
func TestConcurrentAddAndNext(t *testing.T) {
	r := newFarmRig(t)
	var hosts []string
	for i := range 20 {
		hosts = append(hosts, r.site(politetest.Site{Name: fmt.Sprintf("cc%02d.test", i)}))
	}
	f := r.start(polite.Config{AllowPrivateNetworks: true})
	const perHost = 3
	errs := make(chan error, len(hosts))
	for _, h := range hosts {
		go func() {
			for _, u := range r.pages(h, perHost) {
				if err := f.Add(context.Background(), u); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range hosts {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan string, len(hosts)*perHost)
	ctx := context.Background()
	for range 4 {
		go func() {
			for {
				res, err := f.Next(ctx)
				if err != nil {
					return
				}
				got <- res.URL
			}
		}()
	}
	seen := make(map[string]bool)
	for range len(hosts) * perHost {
		select {
		case u := <-got:
			if seen[u] {
				t.Errorf("%s delivered twice", u)
			}
			seen[u] = true
		case <-ctx.Done():
			t.Fatalf("only %d Results", len(seen))
		}
	}
	f.Close()
}

// R11.2: a URL whose try failed before Close comes, and that waits to be
// tried again or is being tried, gets ErrClosed with the failure of its
// last try, so the caller learns why it was not fetched as well as that
// the fetcher closed.
func TestCloseKeepsTheLastTrysFailure(t *testing.T) {
	if err := closedAfterA503(t); !errors.Is(err, polite.ErrClosed) || !strings.Contains(fmt.Sprint(err), "503") {
		t.Errorf("Result after Close: %v; want ErrClosed and the 503 before it", err)
	}
}

// closedAfterA503 closes a fetcher once a page's first try has failed
// with a 503, and returns the page's Result's error.
func closedAfterA503(t *testing.T) error {
	t.Helper()
	r := newFarmRig(t)
	name := r.site(politetest.Site{Name: "busy.test",
		Pages: map[string]politetest.Page{"/p": {Status: http.StatusServiceUnavailable}}})
	u := r.url(name, "/p")
	// OnRequest runs under the fetcher's lock: it never waits here, and
	// the first two requests, robots.txt and the page, always fit.
	ended := make(chan string, 2)
	// A lookup held for the whole test keeps the fetcher from idling, so
	// the fake clock moves only when the test moves it: the page's retry
	// cannot come before Close.
	held := &gateResolver{Resolver: r.farm.Resolver(), hold: "held.test", open: make(chan struct{})}
	f := r.start(polite.Config{Resolver: held, OnRequest: func(q polite.RequestEvent) {
		select {
		case ended <- q.URL:
		default:
		}
	}})
	r.add("http://held.test/", u)
	<-ended // robots.txt, then its rest
	r.clk.Advance(polite.MinRest)
	if got := <-ended; got != u {
		t.Fatalf("second request: %s, want %s", got, u)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return r.results(2)[u].Err
}
