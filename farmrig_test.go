package polite_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"testing"
	"time"

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

// quiet is a logger that drops everything, for tests that do not read logs.
var quiet = slog.New(slog.DiscardHandler)

// newFarmRig makes the farm; no goroutine of a Fetcher may outlive the
// test's cleanups (checkNoLeaks).
func newFarmRig(t *testing.T) *farmRig {
	t.Helper()
	checkNoLeaks(t)
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

// startSeams are the test seams of export_test.go a start may use.
type startSeams struct {
	jitter        func() float64
	lookupTimeout time.Duration
	held          func()
	guarded       bool
	idleConnLife  time.Duration
}

// count is how many of the seams that pick a constructor are set.
func (s *startSeams) count() int {
	n := 0
	for _, set := range []bool{s.lookupTimeout > 0, s.held != nil, s.idleConnLife > 0} {
		if set {
			n++
		}
	}
	return n
}

// startOption sets one of the seams of start.
type startOption func(*startSeams)

// jitter fixes the backoff's jitter at x, in [0, 1): 0.5 is its middle.
func jitter(x float64) startOption {
	return func(s *startSeams) { s.jitter = func() float64 { return x } }
}

// lookupTimeout bounds each host lookup by d of real time.
func lookupTimeout(d time.Duration) startOption {
	return func(s *startSeams) { s.lookupTimeout = d }
}

// onHeld is called each time Config.MaxUnread unread Results hold
// requests back.
func onHeld(held func()) startOption {
	return func(s *startSeams) { s.held = held }
}

// idleConnLife has the fetcher count a kept connection closed by its
// transport after d of real time.
func idleConnLife(d time.Duration) startOption {
	return func(s *startSeams) { s.idleConnLife = d }
}

// guarded leaves Config.AllowPrivateNetworks as the test set it (R10.1).
func guarded(s *startSeams) { s.guarded = true }

// start makes the Fetcher; cfg gets the farm's resolver, loopback access
// (unless guarded) and a quiet logger unless it sets its own.
func (r *farmRig) start(cfg polite.Config, opts ...startOption) *polite.Fetcher {
	r.t.Helper()
	var s startSeams
	for _, o := range opts {
		o(&s)
	}
	if cfg.Resolver == nil {
		cfg.Resolver = r.farm.Resolver()
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	if !s.guarded {
		cfg.AllowPrivateNetworks = true
	}
	var f *polite.Fetcher
	var err error
	switch {
	case s.count() > 1:
		r.t.Fatal("no seam takes more than one of a lookup timeout, onHeld and an idle connection's life")
	case s.idleConnLife > 0:
		f, err = polite.NewWithIdleConnLife(cfg, r.clk, s.jitter, s.idleConnLife)
	case s.lookupTimeout > 0:
		f, err = polite.NewWithLookupTimeout(cfg, r.clk, s.jitter, s.lookupTimeout)
	case s.held != nil:
		f, err = polite.NewWithOnHeld(cfg, r.clk, s.jitter, s.held)
	default:
		f, err = polite.NewOnFakeClock(cfg, r.clk, s.jitter)
	}
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

// pages returns n URLs of one farm host.
func (r *farmRig) pages(host string, n int) []string {
	urls := make([]string, n)
	for i := range urls {
		urls[i] = r.farm.URL(host, fmt.Sprintf("/p%d", i))
	}
	return urls
}

// drain reads every remaining Result until io.EOF (after Close).
func drain(t *testing.T, f *polite.Fetcher) []*polite.Result {
	t.Helper()
	ctx := context.Background()
	var out []*polite.Result
	for {
		res, err := f.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, res)
	}
}

// gateResolver holds each lookup of a name (every name when hold is
// empty) until open is closed or the lookup's context ends. A lookup held
// is a job in flight, so the fetcher is not idle and a fake clock moves
// only as the farm or the test moves it.
type gateResolver struct {
	polite.Resolver
	hold string
	open chan struct{}
}

func (g *gateResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if g.hold == "" || host == g.hold {
		select {
		case <-g.open:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Resolver.LookupNetIP(ctx, network, host)
}
