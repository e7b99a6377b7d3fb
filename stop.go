package polite

import (
	"errors"
	"slices"
	"time"
)

// stop ends a host for the run (R3.1, R3.2): the cause is logged, with the
// evidence an operator needs (R3.4), and every queued URL of the host
// comes back naming it. Later URLs are turned away in admit.
func (s *scheduler) stop(h *host, cause error, at time.Time) {
	if h.stopped != nil {
		return
	}
	h.stopped = cause
	s.counts.stopped++
	if s.counts.refusals == nil {
		s.counts.refusals = make(map[StopKind]int)
	}
	s.counts.refusals[stopKind(cause)]++
	attrs := []any{"host", h.name, "time", at, "cause", cause.Error()}
	var ref *RefusalError
	switch {
	case errors.Is(cause, ErrCertificate):
		// Not a refusal: nothing is kept for later runs (R3.3).
		attrs = append(attrs, "kind", StopCertificate)
		s.f.set.logger.Warn("polite: certificate not trusted; host stopped for the run", attrs...)
	case errors.As(cause, &ref):
		s.recordStop(h, cause, at)
		attrs = append(attrs, "url", ref.URL, "status", ref.Status, "kind", ref.Verdict.Kind.String(),
			"challenge", ref.Verdict.Challenge, "vendor", ref.Verdict.Vendor, "evidence", ref.Verdict.Evidence)
		s.f.set.logger.Warn("polite: refused; host stopped for the run", attrs...)
	default:
		s.recordStop(h, cause, at)
		attrs = append(attrs, "kind", StopFailures, "failures", h.failures)
		s.f.set.logger.Warn("polite: failures in a row; host stopped for the run", attrs...)
	}
	s.dropHost(h, &StoppedError{Host: h.name, Cause: cause})
}

// park turns away every queued URL of a budget whose server asked for a
// wait beyond the horizon (R2.4): each comes back with the time it may be
// asked again, rather than waiting unseen.
func (s *scheduler) park(b *budget, at time.Time) {
	if s.pruneParked(at); !slices.Contains(s.parked, b) {
		s.parked = append(s.parked, b)
	}
	s.f.set.logger.Warn("polite: Retry-After beyond the horizon; address parked",
		"address", b.addr, "until", b.parkedUntil, "horizon", s.f.set.horizon, "time", at)
	for b.pending() > 0 {
		t := b.pop()
		s.turnAway(t, &ParkedError{Host: t.host.name, Until: b.parkedUntil})
	}
}

// pruneParked forgets the parked budgets whose time is over, and returns
// how many are parked still.
func (s *scheduler) pruneParked(now time.Time) int {
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
