package schedule

import "time"

// How many requests are in flight follows the work (R1.2): every budget
// due starts, as long as MaxInFlight and the CPU (the ceiling, cpu.go)
// have room. Little's law says what the limit needs — a budget whose last
// request took d and rests r needs d ÷ (r + d) of a request in flight —
// and Stats reports it beside what is in flight, so a user sees when the
// cap, not politeness, holds the fetcher back.
//
// Little's law is a measure, not a bound: as a cap it queued requests in
// the fetcher, where each one's duration, and so the need, grew with the
// requests in flight, and budgets due in a burst waited behind it. The
// CPU's ceiling alone bounds them.

// minInFlight is the least the CPU's ceiling holds the requests in flight
// to: what a farm that answers at once needs at 10,000 hosts
// (BenchmarkPoliteness).
const minInFlight = 64

// needs sets a budget's share of the requests in flight the limit needs
// from its last request: Little's law on its duration and rest (R1.2).
// The share counts while work waits at the budget (countNeed).
func (s *Scheduler) needs(b *Budget, d, rest time.Duration) {
	s.noteDuration(d)
	b.share = 0
	if d+rest > 0 {
		b.share = d.Seconds() / (d + rest).Seconds()
	}
	s.countNeed(b)
}

// countNeed counts b's share in the need while it is in the due heap,
// with work waiting, and not when it has none: called when it ends a
// request, gains work after its last one ended, or loses all its work.
func (s *Scheduler) countNeed(b *Budget) {
	n := 0.0
	if b.index >= 0 {
		n = b.share
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
	unseen := s.due.len() + s.counts.fetching - s.counts.needers
	return need + float64(max(unseen, 0))*need/float64(s.counts.needers)
}

// roomToFetch reports whether b's request may start: fewer are in flight
// than MaxInFlight and the CPU's ceiling, and a budget yet to start is
// not paced (firststarts.go). A request the ceiling holds back is noted, and
// whether its budget has started, for the ceiling to grow (heedCPU).
func (s *Scheduler) roomToFetch(b *Budget) bool {
	s.heedCPU()
	n := s.counts.fetching
	if n >= s.cfg.MaxInFlight {
		return false
	}
	if s.cfg.CPU != nil && (n >= s.ceiling || s.paced(b)) {
		s.ceilingHeld = true
		s.startedHeld = s.startedHeld || !b.lastEnd.IsZero()
		return false
	}
	return true
}
