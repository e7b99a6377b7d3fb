package schedule

import (
	"math"
	"time"
)

// How many requests are in flight follows the work, by Little's law: to
// keep every budget at its limit, a budget whose last request took d and
// rests r needs d ÷ (r + d) of a request in flight, and the scheduler lets
// headroom times the sum of those be in flight at once, never fewer than
// minInFlight nor more than MaxInFlight (R1.2). Starting every request due
// at once instead, thousands at the start of a run, queues them for the
// CPU inside the fetcher: each one's duration, and so its rest (R2.2),
// grows with that wait (BenchmarkPoliteness at 10,000 hosts fell from
// 0.998 to 0.92 of the limit).

// headroom is how far the requests in flight may go past Little's mean,
// for budgets that fall due in bursts. More is worse where the CPU is
// short: a duration measured here includes the fetcher's own wait for the
// CPU, so more in flight raises the need it is bound by. BenchmarkPoliteness
// at 10,000 hosts: 0.992 of the limit at 2, 0.977 at 4; BenchmarkLatency
// at 1 s: 0.85 at 2, 0.88 with no bound below 4,096 (2026-12-02).
const headroom = 2

// minInFlight is the least the requests in flight are held to: what a
// farm that answers at once needs at 10,000 hosts (BenchmarkPoliteness).
const minInFlight = 64

// needs sets a budget's share of the requests in flight the limit needs:
// Little's law, from its last request's duration and rest, while work
// waits at it (R1.2).
func (s *Scheduler) needs(b *Budget, d, rest time.Duration) {
	n := 0.0
	if b.index >= 0 && d+rest > 0 {
		n = d.Seconds() / (d + rest).Seconds()
	}
	switch {
	case n > 0 && b.need == 0:
		s.counts.needers++
	case n == 0 && b.need > 0:
		s.counts.needers--
	}
	s.counts.need += n - b.need
	b.need = n
	if s.counts.needers == 0 {
		s.counts.need = 0 // what the sum's rounding left
	}
}

// need is the requests in flight the limit needs now: the budgets with
// work and a request seen, and those without one counted at their mean.
func (s *Scheduler) need() float64 {
	need := max(s.counts.need, 0) // a sum of floats may end a hair below
	if s.counts.needers == 0 {
		return need
	}
	unseen := len(s.due) + s.counts.fetching - s.counts.needers
	return need + float64(max(unseen, 0))*need/float64(s.counts.needers)
}

// roomToFetch reports whether one more request may start: fewer are in
// flight than headroom times what the limit needs, or than minInFlight.
func (s *Scheduler) roomToFetch() bool {
	limit := max(minInFlight, int(math.Ceil(headroom*s.need())))
	return s.counts.fetching < min(limit, s.cfg.MaxInFlight)
}
