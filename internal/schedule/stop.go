package schedule

import (
	"fmt"
	"slices"
	"time"
)

// stop ends a host for the run (R3.1, R3.2): the cause is logged, with the
// evidence an operator needs (R3.4), and every queued URL of the host
// comes back naming it. Later URLs are turned away in admit.
func (s *Scheduler) stop(h *host, cause error, at time.Time) {
	if h.stopped != nil {
		return
	}
	h.stopped = cause
	s.counts.stopped++
	kind, keep := s.root.LogStop(h.name, cause, at, h.failures)
	if s.counts.refusals == nil {
		s.counts.refusals = make(map[string]int)
	}
	s.counts.refusals[kind]++
	if keep {
		s.recordStop(h, cause, at)
	}
	s.dropHost(h, s.root.Stopped(h.name, cause))
}

// park turns away every queued URL of a budget whose server asked for a
// wait beyond the horizon (R2.4): each comes back with the time it may be
// asked again, rather than waiting unseen.
func (s *Scheduler) park(b *Budget, at time.Time) {
	if s.pruneParked(at); !slices.Contains(s.parked, b) {
		s.parked = append(s.parked, b)
	}
	s.cfg.Logger.Warn("polite: Retry-After beyond the horizon; address parked",
		"address", b.addr, "until", b.parkedUntil, "horizon", s.cfg.Horizon, "time", at)
	for b.pending() > 0 {
		t := b.pop()
		s.turnAway(t, s.root.Parked(t.host.name, b.parkedUntil))
	}
}

// pruneParked forgets the parked budgets whose time is over, and returns
// how many are parked still.
func (s *Scheduler) pruneParked(now time.Time) int {
	kept := s.parked[:0]
	for _, b := range s.parked {
		if b.parkedUntil.After(now) {
			kept = append(kept, b)
		}
	}
	clear(s.parked[len(kept):])
	s.parked = kept
	return len(kept)
}

// recallHost asks the Store what an earlier run learned of a new host,
// before it is looked up; its URLs wait meanwhile, as for a lookup.
func (s *Scheduler) recallHost(h *host) {
	h.resolving = true
	s.askStore(StoreJob{host: h})
}

// hostRecalled takes up what an earlier run learned of a host: a cool-off
// that keeps it stopped, or the slower floor it comes back with (R2.6),
// and the rest it left (R1.4). Then the host is looked up, or given its
// budget if it is an address.
func (s *Scheduler) hostRecalled(h *host, a *StoreAnswer) {
	if a.Err != nil {
		s.cfg.Logger.Warn("polite: store: loading host", "host", h.name, "err", a.Err)
	}
	if rec := a.Host; a.Err == nil && a.Found && rec.Stops > 0 {
		if until := rec.CoolOffUntil; until.After(s.clk.Now()) {
			h.stopped = fmt.Errorf("%w: left alone until %s (stop %d: %s)", ErrCoolingOff,
				until.UTC().Format(time.RFC3339), rec.Stops, NestedText(rec.LastReason))
			s.counts.stopped++
		} else {
			h.floorFactor = 1 << min(rec.Stops, 10) // 2× after the first cool-off, 4× after the second…
		}
	}
	if h.stopped == nil && !s.closing {
		s.hostRestKept(h, a) // for the budget it is given
	}
	switch a, literal := s.root.Literal(h.name); {
	case h.stopped != nil:
		h.resolving = false
		s.endWaiting(h, s.root.Stopped(h.name, h.stopped))
	case s.closing:
		h.resolving = false
		s.endWaiting(h, ErrClosed)
	case literal:
		h.resolving = false
		s.attach(h, a.Unmap())
		waiting := h.waiting
		h.waiting = nil
		for _, t := range waiting {
			s.gate(t)
		}
	default:
		s.lookups = append(s.lookups, h) // still resolving
	}
}

// recordStop keeps a stop for later runs, by a store job: the refusal
// record (R3.4) and the host's grown cool-off (R3.3).
func (s *Scheduler) recordStop(h *host, cause error, at time.Time) {
	if !s.cfg.RecallHosts {
		return // the host is stopped for this run; the log has the refusal
	}
	s.askStore(StoreJob{stop: &StopRecord{Host: h.name, Cause: cause, At: at}})
}
