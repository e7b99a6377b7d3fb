package schedule

import (
	"log/slog"
	"testing"
	"time"
)

// R1.2: budgets yet to start are paced by the CPU's ceiling spread over
// the requests' mean duration. With a ceiling of 1,000 and requests of
// 1 s, 50 first requests start in a window (1,000 × 50 ms ÷ 1 s), and
// more in the next as the ceiling grows; a budget that has started is not held by the pace;
// with requests of a window or less there is no pace, and a request that
// took minutes counts for a second.
func TestFirstRequestsArePaced(t *testing.T) {
	g := &fakeGauge{}
	s := New(Config{MaxInFlight: 4096, CPU: g, Logger: slog.New(slog.DiscardHandler)}, nil)
	s.ceiling = 1000
	for range durationWeight {
		s.noteDuration(time.Second)
	}
	startFirst := func() int {
		n := 0
		for s.roomToFetch(&Budget{}) {
			s.counts.fetching++
			s.countStart(&Budget{})
			n++
		}
		return n
	}
	if n := startFirst(); n != 50 {
		t.Errorf("requests of 1 s, ceiling 1,000: %d first requests in a window, want 50", n)
	}
	if !s.roomToFetch(&Budget{lastEnd: time.Unix(1, 0)}) {
		t.Error("a budget that has started is held by the first requests' pace")
	}
	// The pace held a request back with the CPU quiet: in the next
	// window the ceiling has grown, and so has the pace (1,250 × 50 ms ÷
	// 1 s = 62.5: the 63rd reaches it).
	g.windows = 1
	if n := startFirst(); n != 63 || s.ceiling != int(1000*quietGrowth) {
		t.Errorf("the next window: %d first requests, ceiling %d; want 63 and %d", n, s.ceiling, int(1000*quietGrowth))
	}

	s = New(Config{MaxInFlight: 4096, CPU: g, Logger: slog.New(slog.DiscardHandler)}, nil)
	s.noteDuration(cpuWindow)
	if n := startFirst(); n != minInFlight {
		t.Errorf("requests of a window: %d first requests in a window, want the ceiling's %d", n, minInFlight)
	}
	s.noteDuration(10 * time.Minute)
	if s.meanDuration > durationSpan {
		t.Errorf("a request of 10 min moved the mean to %v, past %v", s.meanDuration, durationSpan)
	}

	s = New(Config{MaxInFlight: 4096, Logger: slog.New(slog.DiscardHandler)}, nil)
	s.noteDuration(time.Second)
	if n := startFirst(); n != 4096 {
		t.Errorf("no CPU gauge: %d first requests, want MaxInFlight's 4096", n)
	}
}
