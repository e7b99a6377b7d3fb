package redisshare_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/redistest"
	"github.com/politecrawler/polite/politetest"
	"github.com/politecrawler/polite/redisshare"
	"github.com/redis/go-redis/v9"
)

// Fetchers that share one Redis, against the farm: what the servers saw
// over all of them. Redis keeps time by its own clock, so these runs take
// real rests (3 s each), few of them.

// sharedFetcher is a Fetcher whose Config.Shared is a Shared on srv.
func sharedFetcher(t *testing.T, srv *redistest.Server, farm *politetest.Farm) (*polite.Fetcher, *redisshare.Shared) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	sh, err := redisshare.New(rdb, redisshare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close(); rdb.Close() })
	return fetcherOn(t, sh, farm), sh
}

// fetcherOn is a Fetcher whose Config.Shared is sh.
func fetcherOn(t *testing.T, sh *redisshare.Shared, farm *politetest.Farm) *polite.Fetcher {
	t.Helper()
	f, err := polite.New(polite.Config{Shared: sh, Resolver: farm.Resolver(), AllowPrivateNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// drain adds urls and reads every Result, failing on an error of the
// fetcher (not of a URL).
func drain(t *testing.T, f *polite.Fetcher, urls []string) []*polite.Result {
	t.Helper()
	ctx := context.Background()
	for _, u := range urls {
		if err := f.Add(ctx, u); err != nil {
			t.Error(err)
		}
	}
	var out []*polite.Result
	for r, err := range f.Results(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// R1 and R2 over two fetchers given the same URLs: one request at a time
// per address and the 3 s floor between any two, whoever sent them, and
// each robots.txt fetched once (R5.3).
func TestTwoFetchersOneRedis(t *testing.T) {
	srv := redistest.Start(t)
	farm, urls := tenHosts(t)
	a, _ := sharedFetcher(t, srv, farm)
	b, _ := sharedFetcher(t, srv, farm)
	bothPolite(t, farm, a, b, urls)
}

// Two Fetchers of one process on one Shared keep R1 and R2 between them
// too: the Shared owns an address for the process, and grants it to one
// request at a time, after the rest of the one before, whichever Fetcher
// asks. (Without that, the second Fetcher's requests overlap the first's
// or follow them within the floor.)
func TestTwoFetchersOneShared(t *testing.T) {
	srv := redistest.Start(t)
	farm, urls := tenHosts(t)
	_, sh := sharedFetcher(t, srv, farm)
	bothPolite(t, farm, fetcherOn(t, sh, farm), fetcherOn(t, sh, farm), urls)
}

// tenHosts is a farm of ten hosts and a page of each.
func tenHosts(t *testing.T) (*politetest.Farm, []string) {
	farm := politetest.Start(t, politetest.Hosts(10)...)
	var urls []string
	for i := range 10 {
		urls = append(urls, farm.URL(fmt.Sprintf("host%d.test", i+1), "/page"))
	}
	return farm, urls
}

// bothPolite has a and b fetch the same urls at once, and checks what
// the farm saw: every URL answered in each, no overlap, no gap below the
// floor, robots.txt once and each page twice a host.
func bothPolite(t *testing.T, farm *politetest.Farm, a, b *polite.Fetcher, urls []string) {
	t.Helper()
	done := make(chan []*polite.Result)
	go func() { done <- drain(t, b, urls) }()
	ra := drain(t, a, urls)
	rb := <-done
	for _, rs := range [][]*polite.Result{ra, rb} {
		if len(rs) != len(urls) {
			t.Fatalf("%d Results, want one per URL added (%d)", len(rs), len(urls))
		}
		for _, r := range rs {
			if r.Err != nil || r.Status != 200 {
				t.Errorf("%s: %d %v", r.URL, r.Status, r.Err)
			}
		}
	}
	rep := farm.Audit().Report(politetest.AtLeast(polite.MinRest))
	if !rep.Polite() {
		t.Errorf("the farm saw, over both fetchers: %v", rep)
	}
	for i := range 10 {
		host := fmt.Sprintf("host%d.test", i+1)
		robots, pages := 0, 0
		for _, v := range farm.Audit().VisitsTo(host) {
			switch v.Path {
			case politetest.RobotsPath:
				robots++
			case "/page":
				pages++
			}
		}
		if robots != 1 || pages != 2 {
			t.Errorf("%s saw robots.txt %d times and /page %d times, want 1 and 2", host, robots, pages)
		}
	}
	if testing.Verbose() {
		t0 := farm.Audit().Visits()[0].Start
		for _, v := range farm.Audit().Visits() {
			t.Logf("%6.2f %s %s %s", v.Start.Sub(t0).Seconds(), v.Addr, v.Host, v.Path)
		}
	}
}
