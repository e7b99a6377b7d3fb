package schedule

import (
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"
)

// Little's law is what the limit needs in flight (R1.2): the budgets not
// yet seen count at the mean of those seen, and a budget whose work is
// gone needs nothing.
func TestNeedIsLittlesLaw(t *testing.T) {
	const budgets = 3000
	s := New(Config{MaxInFlight: 4096}, nil)
	due := make([]*Budget, budgets)
	for i := range due {
		due[i] = &Budget{index: -1, queue: []*Task{{}}}
		s.due.push(due[i])
	}
	if got := s.need(); got != 0 {
		t.Errorf("nothing seen: need %v", got)
	}
	// 300 budgets seen answering in 1 s, resting 5 s: 1/6 each; the
	// other 2,700 count the same, so 3,000 ÷ 6 = 500 are needed.
	for _, b := range due[:300] {
		s.needs(b, time.Second, 5*time.Second)
	}
	if got := s.need(); got < 499.99 || got > 500.01 {
		t.Errorf("need %v, want 500", got)
	}
	for _, b := range due[:300] {
		s.due.remove(b)
		s.needs(b, time.Second, 5*time.Second)
	}
	if s.counts.needers != 0 || s.counts.need != 0 {
		t.Errorf("no work seen: %d budgets need %v", s.counts.needers, s.counts.need)
	}
}

// A budget that gains work after its last request ended counts its share
// again, from that request (R1.2): links added later, or pages that came
// after the request ended.
func TestNeedCountsWorkThatComesLater(t *testing.T) {
	s := New(Config{MaxInFlight: 4096}, nil)
	b := &Budget{index: -1}
	s.needs(b, time.Second, 5*time.Second) // it ended a request with nothing queued
	if got := s.need(); got != 0 {
		t.Fatalf("no work: need %v", got)
	}
	b.queue = []*Task{{}}
	s.arm(b)
	if got := s.need(); got < 1.0/6-1e-9 || got > 1.0/6+1e-9 {
		t.Errorf("work came: need %v, want 1/6", got)
	}
}

// Without a CPU gauge every request due may start, up to MaxInFlight.
func TestRoomToFetchUpToTheCap(t *testing.T) {
	s := New(Config{MaxInFlight: 8}, nil)
	for s.roomToFetch(&Budget{}) {
		s.counts.fetching++
	}
	if s.counts.fetching != 8 {
		t.Errorf("MaxInFlight 8: room for %d", s.counts.fetching)
	}
}

// fakeGauge answers Sample as told.
type fakeGauge struct {
	busy    bool
	windows int
}

func (g *fakeGauge) Sample() (bool, int) {
	w := g.windows
	g.windows = 0
	return g.busy, w
}

// The CPU's ceiling (R1.2): it holds the requests in flight at
// minInFlight to begin with; it grows by a quarter a window while the CPU
// has room and it holds a request back, and falls to three quarters of
// those in flight when the CPU is short.
func TestCeilingFollowsTheCPU(t *testing.T) {
	g := &fakeGauge{}
	var logged strings.Builder
	s := New(Config{MaxInFlight: 4096, CPU: g, Logger: slog.New(slog.NewTextHandler(&logged, nil))}, nil)
	s.counts.fetching = minInFlight
	if s.roomToFetch(&Budget{}) {
		t.Fatalf("ceiling %d, %d in flight: room for one more", s.ceiling, s.counts.fetching)
	}
	g.windows = 2 // two windows with room, and the ceiling held one back
	if !s.roomToFetch(&Budget{}) {
		t.Fatal("CPU with room: the ceiling did not grow")
	}
	if want := int(minInFlight * quietGrowth * quietGrowth); s.ceiling != want {
		t.Errorf("after 2 windows with room: ceiling %d, want %d", s.ceiling, want)
	}
	// Windows with room while nothing was held back leave it.
	s.ceiling, s.ceilingHeld = 500, false
	g.windows = 3
	s.heedCPU()
	if s.ceiling != 500 {
		t.Errorf("nothing held back: ceiling %d, want 500", s.ceiling)
	}
	// A short CPU: three quarters of what is in flight, all of it started
	// in the last second.
	s.counts.fetching = 400
	s.started[s.window%startWindows] = 150
	s.started[(s.window+5)%startWindows] = 250
	g.busy, g.windows = true, 1
	s.heedCPU()
	if s.ceiling != 300 {
		t.Errorf("CPU short, 400 in flight: ceiling %d, want 300", s.ceiling)
	}
	s.counts.fetching = 10
	g.windows = 1
	s.heedCPU()
	if s.ceiling != minInFlight {
		t.Errorf("CPU short, 10 in flight: ceiling %d, want minInFlight %d", s.ceiling, minInFlight)
	}
	// Requests in flight since before the last second wait on their
	// servers, not for the CPU: they keep their places, and minInFlight
	// more may start beside 80 of them.
	s.counts.fetching = 80
	g.windows = startWindows // a second without a start: the 400 are out of the count
	s.heedCPU()
	if s.ceiling != 80+minInFlight || !s.roomToFetch(&Budget{}) {
		t.Errorf("CPU short, 80 requests in flight for long: ceiling %d, want %d", s.ceiling, 80+minInFlight)
	}
	// A short CPU that holds a request back is logged, once.
	for range 2 {
		s.ceilingHeld, g.windows = true, 1
		s.heedCPU()
	}
	if n := strings.Count(logged.String(), "the CPU is short"); n != 1 {
		t.Errorf("%d notices of a short CPU, want 1:\n%s", n, logged.String())
	}
	// Never past MaxInFlight.
	s.cfg.MaxInFlight = 100
	s.ceilingHeld, g.busy, g.windows = true, false, 40
	s.heedCPU()
	if s.ceiling != 100 {
		t.Errorf("grown past MaxInFlight: ceiling %d", s.ceiling)
	}
}

// The runtime's account counts goroutines made runnable, and a new gauge
// has no window ended yet.
func TestRunnableWaits(t *testing.T) {
	n0, _ := RunnableWaits()
	ping := make(chan int)
	go func() {
		for i := range ping {
			ping <- i
		}
	}()
	for i := range 1000 { // goroutines made runnable, a thousand times over
		ping <- i
		<-ping
	}
	close(ping)
	n, sum := RunnableWaits()
	n -= n0
	if n == 0 || sum < 0 {
		t.Errorf("RunnableWaits: %d waits, %v s", n, sum)
	}
	g := NewCPUGauge()
	if _, w := g.Sample(); w != 0 {
		t.Errorf("a new gauge says %d windows ended", w)
	}
}

// The requests the ceiling counts as started in the last second are
// those still in flight (R1.2): a thousand slow requests started long ago
// keep their places beside the fast ones, though many more fast ones
// started and ended in that second than are in flight (the 10 s / 100 ms
// mix of BenchmarkLatency).
func TestCeilingCountsTheRequestsInFlight(t *testing.T) {
	g := &fakeGauge{}
	s := New(Config{MaxInFlight: 4096, CPU: g, Logger: slog.New(slog.DiscardHandler)}, nil)
	start := func(n int) []*Budget {
		bs := make([]*Budget, n)
		for i := range bs {
			bs[i] = &Budget{}
			s.counts.fetching++
			s.countStart(bs[i])
		}
		return bs
	}
	end := func(bs []*Budget) {
		for _, b := range bs {
			s.counts.fetching--
			s.countEnd(b)
		}
	}
	start(1000) // slow: in flight for 10 s
	g.windows = startWindows + 1
	s.heedCPU()
	for range 10 { // a second of fast requests: 290 at a time
		end(start(290))
		g.windows = 2
		s.heedCPU()
	}
	start(290)
	g.busy, g.windows = true, 1
	s.heedCPU()
	if want := 1000 + 290*3/4; s.ceiling != want {
		t.Errorf("CPU short, 1,000 slow and 290 fast requests in flight: ceiling %d, want %d", s.ceiling, want)
	}
}

// After a short CPU, the ceiling grows slowly for a second where it holds
// as many as the limit needs or more and holds back only budgets yet to
// start: the answers of the requests it lets start come within that
// second, and need the CPU too. Below the need, when a budget that has
// started waits, and once the CPU has had room for a second, it grows by a
// quarter a window (R1.2).
func TestCeilingGrowsSlowlyAfterAShortCPU(t *testing.T) {
	g := &fakeGauge{}
	s := New(Config{MaxInFlight: 1 << 20, CPU: g, Logger: slog.New(slog.DiscardHandler)}, nil)
	grow := func(windows int) {
		s.ceilingHeld, g.busy, g.windows = true, false, windows
		s.heedCPU()
	}
	// 1,000 in flight, started in this second; the limit needs 800, all
	// of them seen.
	for range 1000 {
		s.counts.fetching++
		s.countStart(&Budget{})
	}
	s.counts.needers, s.counts.need = 1000, 800
	s.ceilingHeld, g.busy, g.windows = true, true, 1
	s.heedCPU()
	if s.ceiling != 750 {
		t.Fatalf("CPU short, 1,000 in flight: ceiling %d, want 750", s.ceiling)
	}
	grown := func(c int, by float64, windows int) int {
		return int(float64(c) * math.Pow(by, float64(windows)))
	}
	grow(1)
	if want := grown(750, quietGrowth, 1); s.ceiling != want {
		t.Errorf("below the need: ceiling %d, want %d", s.ceiling, want)
	}
	c := s.ceiling
	grow(1)
	if want := grown(c, wakingGrowth, 1); s.ceiling != want {
		t.Errorf("at the need, within a second of a short CPU: ceiling %d, want %d", s.ceiling, want)
	}
	// A budget that has started held back: its next request is due now,
	// and waiting makes it late.
	c = s.ceiling
	s.counts.fetching = c
	if s.roomToFetch(&Budget{lastEnd: time.Unix(1, 0)}) {
		t.Fatalf("ceiling %d, %d in flight: room for one more", s.ceiling, s.counts.fetching)
	}
	g.windows = 1
	s.heedCPU()
	if want := grown(c, quietGrowth, 1); s.ceiling != want {
		t.Errorf("a started budget held back: ceiling %d, want %d", s.ceiling, want)
	}
	c = s.ceiling
	grow(startWindows)
	if want := grown(c, quietGrowth, startWindows); s.ceiling != want {
		t.Errorf("a second with room: ceiling %d, want %d", s.ceiling, want)
	}
	// Before any short CPU, the ceiling grows by a quarter from the start.
	s = New(Config{MaxInFlight: 1 << 20, CPU: g, Logger: slog.New(slog.DiscardHandler)}, nil)
	s.counts.fetching = minInFlight
	grow(1)
	if want := grown(minInFlight, quietGrowth, 1); s.ceiling != want {
		t.Errorf("no short CPU yet: ceiling %d, want %d", s.ceiling, want)
	}
}
