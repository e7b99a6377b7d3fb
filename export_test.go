package polite

import "github.com/politecrawler/polite/internal/clock"

// NewOnFakeClock starts a Fetcher whose clock is clk, for the tests of
// package polite_test: the clock jumps to the next rest's end whenever the
// fetcher has nothing else to wait for, so a rule of minutes is checked in
// microseconds. rand, when not nil, is the backoff's jitter.
func NewOnFakeClock(cfg Config, clk *clock.Fake, rand func() float64) (*Fetcher, error) {
	return newFetcher(cfg, hooks{clock: clk, onIdle: clk.Set, rand: rand})
}
