package polite_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/clock"
	"github.com/politecrawler/polite/politetest"
)

// farmRig is a loopback farm and a Fetcher on one fake clock, used as a
// user would use them: through the public API only. Time moves when a
// farm handler works for a while, or when the fetcher has nothing to do
// but wait for a rest to end.
type farmRig struct {
	t    *testing.T
	clk  *clock.Fake
	farm *politetest.Farm
	f    *polite.Fetcher
}

func newFarmRig(t *testing.T) *farmRig {
	t.Helper()
	clk := clock.NewFake()
	fm := politetest.New(clk)
	t.Cleanup(func() { fm.Close() })
	return &farmRig{t: t, clk: clk, farm: fm}
}

// site adds a farm site and returns its name.
func (r *farmRig) site(s politetest.Site) string {
	r.t.Helper()
	if _, err := r.farm.AddSite(s); err != nil {
		r.t.Fatal(err)
	}
	return s.Name
}

// start makes the Fetcher; cfg gets the farm's resolver, loopback access
// and a quiet logger unless it sets its own.
func (r *farmRig) start(cfg polite.Config) *polite.Fetcher {
	r.t.Helper()
	if cfg.Resolver == nil {
		cfg.Resolver = r.farm.Resolver()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.AllowPrivateNetworks = true
	f, err := polite.NewOnFakeClock(cfg, r.clk, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { f.Close() })
	r.f = f
	return f
}

// add Adds every URL, failing the test on an error.
func (r *farmRig) add(urls ...string) {
	r.t.Helper()
	for _, u := range urls {
		if err := r.f.Add(context.Background(), u); err != nil {
			r.t.Fatalf("Add(%s): %v", u, err)
		}
	}
}

// results reads n Results, by URL. A hang is go test's -timeout to catch:
// no test here has a wall-clock limit of its own.
func (r *farmRig) results(n int) map[string]*polite.Result {
	r.t.Helper()
	ctx := context.Background()
	out := make(map[string]*polite.Result, n)
	for range n {
		res, err := r.f.Next(ctx)
		if err != nil {
			r.t.Fatalf("Next after %d of %d results: %v", len(out), n, err)
		}
		if _, dup := out[res.URL]; dup {
			r.t.Fatalf("two Results for %s", res.URL)
		}
		out[res.URL] = res
	}
	return out
}

// url is the farm URL of a site's path.
func (r *farmRig) url(name, path string) string { return r.farm.URL(name, path) }
