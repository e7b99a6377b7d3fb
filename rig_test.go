package polite

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/clock"
	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/politetest"
)

// rig is a loopback farm and a Fetcher on one fake clock. Time moves only
// when the farm says a handler worked for a while, or when the fetcher has
// nothing to do but wait for a rest to end: a 3 s floor takes microseconds.
type rig struct {
	t    *testing.T
	clk  *clock.Fake
	farm *politetest.Farm
	f    *Fetcher
}

// quiet is a logger that drops everything, for tests that do not read logs.
var quiet = slog.New(slog.DiscardHandler)

func newRig(t *testing.T) *rig {
	t.Helper()
	checkNoLeaks(t)
	clk := clock.NewFake()
	fm := politetest.New(clk)
	t.Cleanup(func() { fm.Close() })
	return &rig{t: t, clk: clk, farm: fm}
}

// site adds a farm site and returns its name.
func (r *rig) site(s politetest.Site) string {
	r.t.Helper()
	if _, err := r.farm.AddSite(s); err != nil {
		r.t.Fatal(err)
	}
	return s.Name
}

// start makes the Fetcher; cfg gets the farm's resolver, loopback access and
// a quiet logger unless it sets its own.
func (r *rig) start(cfg Config, hk hooks) *Fetcher {
	r.t.Helper()
	if cfg.Resolver == nil {
		cfg.Resolver = r.farm.Resolver()
	}
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	hk.clock = r.clk
	hk.onIdle = r.clk.Set
	f, err := newFetcher(cfg, hk)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { f.Close() })
	r.f = f
	return f
}

func (r *rig) add(urls ...string) {
	r.t.Helper()
	for _, u := range urls {
		if err := r.f.Add(context.Background(), u); err != nil {
			r.t.Fatalf("Add(%s): %v", u, err)
		}
	}
}

// results reads n Results. A hang is go test's -timeout to catch: no test
// here has a wall-clock limit of its own.
func (r *rig) results(n int) map[string]*Result {
	r.t.Helper()
	ctx := context.Background()
	out := make(map[string]*Result, n)
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

// drain reads every remaining Result until io.EOF (after Close).
func drain(t *testing.T, f *Fetcher) []*Result {
	t.Helper()
	ctx := context.Background()
	var out []*Result
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

// restRule is the audit's view of R2.1–R2.2: after a visit of length d the
// address must rest at least max(floor, 5d capped at 30 s). The server sees
// a visit no longer than the client does, so this bound is safe.
func restRule(floor time.Duration) func(politetest.Visit) time.Duration {
	return func(prev politetest.Visit) time.Duration {
		return restAfter(pacing.Policy{Floor: floor, Factor: MinDurationFactor}, pacing.Outcome{Duration: prev.End.Sub(prev.Start)}).Wait
	}
}

// checkNoLeaks fails the test if a goroutine of the fetcher or of its HTTP
// transport outlives the test's cleanups (Close must end them all).
func checkNoLeaks(t *testing.T) {
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for {
			leaked := fetcherGoroutines()
			if len(leaked) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines left after Close:\n%s", len(leaked), strings.Join(leaked, "\n\n"))
				return
			}
			runtime.Gosched()
			time.Sleep(10 * time.Millisecond) // goroutine exit is asynchronous; this waits for no rule
		}
	})
}

func fetcherGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var leaked []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "polite.(*Fetcher)") || strings.Contains(g, "schedule.(*Scheduler)") ||
			strings.Contains(g, "net/http.(*persistConn)") {
			leaked = append(leaked, g)
		}
	}
	return leaked
}
