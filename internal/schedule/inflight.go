package schedule

import (
	"math"
	"time"
)

// How many requests are in flight follows the work (R1.2). Every budget
// due may start, as long as the CPU has room (the ceiling, cpu.go) and
// MaxInFlight allows; and while no budget has waited past its rest more
// than lateSlack, no more are in flight than headroom times what Little's
// law says the limit needs: a budget whose last request took d and rests r
// needs d ÷ (r + d) of a request in flight. That bound keeps the requests
// in flight, each of which costs the CPU and memory, at what the rate
// needs where a burst falls due at once; the slack lets a backlog drain,
// once one forms, at what the CPU allows. BenchmarkPoliteness at 10,000
// hosts (2026-12-02): with the ceiling alone, 0.992 of the limit, each
// request measured 19 ms longer than the farm saw it; with the bound too,
// 0.998. BenchmarkLatency at 50 ms: with the bound and no slack, 0.935, a
// backlog of 2,800 budgets waited while 64 were in flight.

// headroom is how far the requests in flight may go past Little's mean,
// for budgets that fall due in bursts.
const headroom = 2

// lateSlack is how long past its rest a budget waits for Little's bound
// before it starts anyway: a hundredth of the 3 s floor (R2.1) is about a
// hundredth of the limit.
const lateSlack = 10 * time.Millisecond

// minInFlight is the least the requests in flight are held to, by Little's
// bound or the CPU's ceiling: what a farm that answers at once needs at
// 10,000 hosts (BenchmarkPoliteness).
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

// needBound is headroom times the need, at least minInFlight.
func (s *Scheduler) needBound() int {
	return max(minInFlight, int(math.Ceil(headroom*s.need())))
}

// roomToFetch reports whether a budget due at due may start at now: fewer
// requests are in flight than MaxInFlight and the CPU's ceiling, and than
// Little's bound unless the budget is lateSlack late.
func (s *Scheduler) roomToFetch(due, now time.Time) bool {
	at, ok := s.startAt(due, now)
	return ok && !at.After(now)
}

// startAt is the earliest a budget due at due may start, as things stand
// at now: due, or lateSlack after it while Little's bound is full; not at
// all (false) while the cap or the CPU's ceiling is.
func (s *Scheduler) startAt(due, now time.Time) (time.Time, bool) {
	s.heedCPU(now)
	n := s.counts.fetching
	if n >= s.cfg.MaxInFlight {
		return time.Time{}, false
	}
	if s.cfg.CPU != nil && n >= s.ceiling {
		s.ceilingHeld = true
		return time.Time{}, false
	}
	if n >= s.needBound() {
		return due.Add(lateSlack), true
	}
	return due, true
}
