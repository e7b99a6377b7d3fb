package schedule

import (
	"math"
	"runtime/metrics"
	"time"
)

// The CPU is work too. Where it is short, a request started now waits for
// it inside the fetcher, and that wait is part of its duration: every
// request in flight takes longer, and R2.2 rests five times as long. So
// while goroutines wait to run, the requests in flight are held below a
// ceiling that backs off to three quarters of those in flight that started
// in the last second, beside those in flight for longer (heedCPU), and
// that grows again for each window the CPU had room while the ceiling held
// a request back: slowly for a second after a short CPU, unless it holds
// fewer than the limit needs or a budget that has started waits (R1.2).
// Without it (BenchmarkLatency, 50 ms, 10,000 hosts at once) goroutines
// waited 8.5 ms to run, and each request took 100 ms longer.

// CPUGauge tells whether the CPU is short. Sample reports whether
// goroutines waited to run over the last window, and how many windows
// ended since the last call (0: the answer is the last window's). It is
// called with the scheduler's lock held.
type CPUGauge interface {
	Sample() (busy bool, windows int)
}

// NewCPUGauge returns the Go runtime's account (runtime/metrics'
// /sched/latencies:seconds): the CPU is short over a window of 50 ms
// when the goroutines made runnable in it waited 1.5 ms on average
// before they ran. It runs on the wall clock: the CPU's time is real.
func NewCPUGauge() CPUGauge {
	g := &schedGauge{sample: []metrics.Sample{{Name: "/sched/latencies:seconds"}}}
	g.n, g.sum = g.read()
	g.at = time.Now()
	return g
}

// cpuWindow is the gauge's window, and cpuBusy the mean wait to run that
// makes it busy: a fetcher that keeps up waits 0.1-0.8 ms, an unbounded one
// 5-9 ms; 1.5 ms kept more of the limit than 4 ms (BenchmarkPoliteness).
const (
	cpuWindow = 50 * time.Millisecond
	cpuBusy   = 1500 * time.Microsecond
)

type schedGauge struct {
	sample []metrics.Sample
	at     time.Time // when the window began
	n      uint64    // waits counted when it began
	sum    float64   // their sum, in seconds
	busy   bool
}

// Sample reads the runtime's account once a window, on the wall clock.
func (g *schedGauge) Sample() (busy bool, windows int) {
	now := time.Now()
	windows = int(now.Sub(g.at) / cpuWindow)
	if windows == 0 {
		return g.busy, 0
	}
	n, sum := g.read()
	if n > g.n {
		g.busy = (sum-g.sum)/float64(n-g.n) > cpuBusy.Seconds()
	}
	g.at, g.n, g.sum = now, n, sum
	return g.busy, windows
}

// read is readWaits over the gauge's own sample.
func (g *schedGauge) read() (n uint64, sum float64) { return readWaits(g.sample) }

// RunnableWaits is the Go runtime's account of goroutines waiting to run
// since the process began: how many waits, and their sum in seconds.
func RunnableWaits() (n uint64, sum float64) {
	return readWaits([]metrics.Sample{{Name: "/sched/latencies:seconds"}})
}

// readWaits reads the histogram into sample and sums it, each wait
// counted at its bucket's middle.
func readWaits(sample []metrics.Sample) (n uint64, sum float64) {
	metrics.Read(sample)
	h := sample[0].Value.Float64Histogram()
	for i, c := range h.Counts {
		lo, hi := h.Buckets[i], h.Buckets[i+1]
		if math.IsInf(lo, -1) {
			lo = 0
		}
		if math.IsInf(hi, 1) {
			hi = lo
		}
		n += c
		sum += float64(c) * (lo + hi) / 2
	}
	return n, sum
}

// startWindows is how many of the gauge's windows the requests started are
// counted over: a second. A request in flight for longer waits on its
// server, not for the CPU, whose delays are tens of ms; over 100 ms, those
// slowed by the CPU counted as waiting on servers.
const startWindows = 20

// quietGrowth is how much the ceiling grows in a window once the CPU has
// had room for a second, and wakingGrowth in a window of that second,
// while the ceiling holds as many requests as the limit needs or more and
// has held back only budgets yet to start. A request started now needs the
// CPU again when its answer comes, up to a second later: growing by a
// quarter from the first window after a cut, the ceiling refilled the CPU
// before the answers of the requests just started had come, and each
// robots.txt took 30-45 ms longer (R2.2 rests five times that). A budget
// that has started loses its rate when it waits past its rest, one yet to
// start does not: so growth is slow only while those alone wait, and only
// at the need or above.
const (
	quietGrowth  = 1.25
	wakingGrowth = 1.03
)

// countStart counts b's request, started now, in the current window,
// and among its first requests if b had not started (firststarts.go).
func (s *Scheduler) countStart(b *Budget) {
	b.startedIn = s.window
	s.started[s.window%startWindows]++
	if b.lastEnd.IsZero() {
		s.firstStarts++
	}
}

// countEnd takes b's request, ended now, out of the window it started in,
// if that is one of the last startWindows. Counting every start instead,
// requests in flight for long counted as started in the last second
// whenever more requests had started and ended in it than were in flight:
// in BenchmarkLatency's mix, a thousand requests to 10 s servers took the
// places of the 100 ms ones when the CPU was short.
func (s *Scheduler) countEnd(b *Budget) {
	if s.window-b.startedIn < startWindows {
		s.started[b.startedIn%startWindows]--
	}
}

// heedCPU moves the ceiling by the gauge's latest windows: when the CPU
// was short, down to three quarters of the requests in flight that started
// in the last second, beside those in flight since before it; when it was
// not, up by quietGrowth or wakingGrowth a window if the ceiling held a
// request back since the last; never below minInFlight beside the older
// requests, nor past MaxInFlight. The older ones wait on their servers: a
// hundred servers that never answer would otherwise take every place under
// the ceiling while the caller's own work keeps the CPU short, and no
// other request would start (an outside trial: fast hosts' pages 14.6 s
// apart instead of 3 s beside 400 such servers and four busy goroutines of
// the caller's). The first time a short CPU holds a request back, the log
// says so.
func (s *Scheduler) heedCPU() {
	if s.cfg.CPU == nil {
		return
	}
	busy, windows := s.cfg.CPU.Sample()

	if windows == 0 {
		return
	}
	s.firstStarts = 0
	for range min(windows, startWindows) { // a window for each that ended
		s.window++
		s.started[s.window%startWindows] = 0
	}
	s.window += uint64(max(windows-startWindows, 0))
	if busy {
		s.quiet = 0
	} else {
		s.quiet = min(s.quiet+windows, startWindows)
	}
	switch {
	case busy:
		young := 0
		for _, n := range s.started {
			young += n
		}
		young = min(young, s.counts.fetching) // a guard: each is in flight
		old := s.counts.fetching - young
		s.ceiling = min(old+max(minInFlight, young*3/4), s.cfg.MaxInFlight)
		if s.ceilingHeld && !s.counts.cpuNoted {
			s.counts.cpuNoted = true
			s.cfg.Logger.Info("polite: the CPU is short, and holds back requests that politeness allows",
				"in_flight", s.counts.fetching, "ceiling", s.ceiling, "need", s.need())
		}
	case s.ceilingHeld:
		by := quietGrowth
		if s.quiet < startWindows && !s.startedHeld && float64(s.ceiling) >= s.need() {
			by = wakingGrowth
		}
		grown := float64(s.ceiling) * math.Pow(by, float64(windows))
		s.ceiling = int(min(grown, float64(s.cfg.MaxInFlight)))
	}
	s.ceilingHeld, s.startedHeld = false, false
}
