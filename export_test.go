package polite

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/politecrawler/polite/internal/clock"
	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/schedule"
	"github.com/politecrawler/polite/politetest"
)

// NewOnFakeClock starts a Fetcher whose clock is clk, for the tests of
// package polite_test: the clock jumps to the next rest's end whenever the
// fetcher has nothing else to wait for, so a rule of minutes is checked in
// microseconds. rand, when not nil, is the backoff's jitter.
func NewOnFakeClock(cfg Config, clk *clock.Fake, rand func() float64) (*Fetcher, error) {
	return newFetcher(cfg, hooks{clock: clk, onIdle: clk.Set, rand: rand})
}

// NewWithLookupTimeout is NewOnFakeClock with each host lookup bounded by
// d, not 15 s: a resolver that never answers gives up in milliseconds of
// real time (R10.2).
func NewWithLookupTimeout(cfg Config, clk *clock.Fake, rand func() float64, d time.Duration) (*Fetcher, error) {
	return newFetcher(cfg, hooks{clock: clk, onIdle: clk.Set, rand: rand, lookupTimeout: d})
}

// NewWithOnHeld is NewOnFakeClock calling held, under the scheduler's
// lock, each time Config.MaxUnread unread Results keep it from starting a
// request: a test reads the farm at the moment the reader holds it back.
func NewWithOnHeld(cfg Config, clk *clock.Fake, rand func() float64, held func()) (*Fetcher, error) {
	return newFetcher(cfg, hooks{clock: clk, onIdle: clk.Set, rand: rand, onHeld: held})
}

// NewWithIdleConnLife is NewOnFakeClock with the scheduler counting a
// kept connection closed by its transport after d of real time, not
// netguard.IdleConnTimeout.
func NewWithIdleConnLife(cfg Config, clk *clock.Fake, rand func() float64, d time.Duration) (*Fetcher, error) {
	return newFetcher(cfg, hooks{clock: clk, onIdle: clk.Set, rand: rand, idleConnLife: d})
}

// InspectHost is what the scheduler holds of a host now: a lookup under
// way, its budget's address, a request in flight there (R1.1).
func InspectHost(f *Fetcher, name string) (schedule.HostView, bool) { return f.sched.Inspect(name) }

// MovesPending reports whether a host's move to a new address waits for a
// request in flight at its old one (R1.1).
func MovesPending(f *Fetcher) bool { return f.sched.MovesPending() }

// CurrentTransport is the transport requests go out on now: a host's move
// replaces it, so no connection to the old address serves the new (R1.1).
func CurrentTransport(f *Fetcher) *http.Transport { return f.transport.Load() }

// newTask is a task for raw as Add makes it, for white-box tests of the
// worker's side (readPage).
func newTask(raw string) *schedule.Task { return schedule.NewTask(raw, raw) }

// RenewTransport takes a fresh transport, as a host's move does. It is
// called with the scheduler's lock held: from Config.OnRequest.
func RenewTransport(f *Fetcher) { f.freshTransport() }

// This file holds what package polite's own tests and benchmarks share;
// the farm tests are package polite_test's, on farmrig_test.go.

// quiet is a logger that drops everything, for tests that do not read logs.
var quiet = slog.New(slog.DiscardHandler)

// restRule is the audit's view of R2.1–R2.2: after a visit of length d the
// address must rest at least max(floor, 5d capped at 30 s). The server sees
// a visit no longer than the client does, so this bound is safe.
func restRule(floor time.Duration) func(politetest.Visit) time.Duration {
	return func(prev politetest.Visit) time.Duration {
		return restAfter(pacing.Policy{Floor: floor, Factor: MinDurationFactor}, pacing.Outcome{Duration: prev.End.Sub(prev.Start)}).Wait
	}
}

// restAfter is pacing.RestAfter (R2) told as the public Rest.
func restAfter(p pacing.Policy, o pacing.Outcome) Rest {
	r := pacing.RestAfter(p, o)
	return Rest{Wait: r.Wait, Term: RestTerm(r.Term)}
}
