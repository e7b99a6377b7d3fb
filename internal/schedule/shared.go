package schedule

import "time"

// With a coordinator shared by many processes (the root's Coordinator),
// R1 and R2 hold over all of them: before each request its worker asks
// the coordinator for the address, and after it gives the address back
// with the rest. The scheduler keeps its own budgets as in one process;
// the coordinator is one more check before a request, never one fewer.
//
//   - Not given (Completion.Withheld): no request was made. The task goes
//     back first in its budget, which rests until the coordinator's time;
//     a time beyond the horizon parks it (R2.4) as a Retry-After would;
//     a host stopped by another process stops here too (R3); an origin
//     whose robots.txt another process has just fetched loads that copy
//     instead of asking again (R5.3).
//   - Given (Completion.Leased): the budget stays held after the response
//     until the worker has told the coordinator the rest and called
//     Released, so no request of this process can come before the rest
//     is known to all.

// withheld takes back a task whose request the coordinator did not
// allow; it runs in place of completed.
func (s *Scheduler) withheld(c *Completion) {
	b, t := c.Budget, c.Task
	h := t.host
	b.busy = false
	s.counts.fetching--
	s.countEnd(b)
	if t.robots == nil {
		s.counts.pagesInFlight--
	}
	s.counts.withheld++
	now := s.clk.Now()
	switch {
	case c.Elsewhere != nil:
		s.enqueueFront(b, t) // answered with the host's other URLs
		s.stopElsewhere(h, c.Elsewhere, now)
	case c.RobotsElsewhere && t.robots != nil && s.cfg.RecallRobots:
		// The task ends here; the copy answers its held pages.
		o := t.robots
		o.fetching = false
		o.recalling = true
		o.fromElsewhere = true
		s.askStore(StoreJob{origin: o})
	case c.Wait > s.cfg.Horizon:
		b.parkedUntil = now.Add(c.Wait)
		s.enqueueFront(b, t)
		s.park(b, now)
	default:
		if until := now.Add(c.Wait); until.After(b.nextAt) {
			if !b.coordWait {
				b.ownRest = b.nextAt
			}
			b.nextAt, b.coordWait = until, true
		}
		s.enqueueFront(b, t)
	}
	s.arm(b)
}

// stopElsewhere stops a host that another process stopped (R3): its URLs
// come back with the cause, and nothing is kept, since the process that
// stopped it kept the stop for all.
func (s *Scheduler) stopElsewhere(h *host, cause error, at time.Time) {
	if h.stopped != nil {
		return
	}
	h.stopped = cause
	s.counts.stopped++
	s.cfg.Logger.Warn("polite: host stopped by another process; stopped here too",
		"host", h.name, "cause", cause.Error(), "time", at)
	s.dropHost(h, s.root.Stopped(h.name, cause))
}

// Released gives back a budget whose request held the coordinator's
// lease, once its worker has told the coordinator the rest (or failed
// to: the lease then ends by itself, and the coordinator rests the
// address as after a failure).
func (s *Scheduler) Released(b *Budget) {
	s.mu.Lock()
	b.busy = false
	s.arm(b)
	s.movePending(b)
	next, due := s.nextWake()
	wake := s.closing || due && (s.wakeAt.IsZero() || next.Before(s.wakeAt))
	s.mu.Unlock()
	if wake {
		s.Poke()
	}
}

// Wake ends early the wait a coordinator set on a budget (withheld): the
// coordinator says the address may be asked now, as another process gave
// it up. The budget's own rest still holds. It may be called from any
// goroutine, and more than once.
func (s *Scheduler) Wake(b *Budget) {
	s.mu.Lock()
	if !b.coordWait || b.busy {
		s.mu.Unlock()
		return
	}
	b.coordWait = false
	b.nextAt = b.ownRest
	if now := s.clk.Now(); b.nextAt.Before(now) {
		b.nextAt = now
	}
	if b.index >= 0 {
		s.due.fix(b)
	}
	next, due := s.nextWake()
	wake := due && (s.wakeAt.IsZero() || next.Before(s.wakeAt))
	s.mu.Unlock()
	if wake {
		s.Poke()
	}
}
