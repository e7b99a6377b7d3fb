package polite

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// responseError is the error of a response that is not a page: a refusal,
// a rate limit or a server failure. Other answers (404, 304, redirects)
// are not errors: their Status and Verdict say what they are.
func responseError(host, url string, status int, v Verdict, at time.Time) error {
	switch v.Kind {
	case KindRefused:
		return &RefusalError{Host: host, URL: url, Status: status, Verdict: v, At: at}
	case KindRateLimited:
		return fmt.Errorf("%w: %d from %s", ErrRateLimited, status, url)
	case KindServerFailure:
		return fmt.Errorf("%w: %d from %s", ErrServerFailure, status, url)
	}
	return nil
}

// isNetworkFailure says whether a request error counts as a failure of the
// host (timeouts, resets, refused connections), rather than of the fetcher
// (closed) or of the page (too large, invalid).
func isNetworkFailure(err error) bool {
	return err != nil && !errors.Is(err, ErrClosed) && !errors.Is(err, ErrBodyTooLarge) &&
		!errors.Is(err, ErrInvalidURL) && !errors.Is(err, context.Canceled)
}

// stop ends a host for the run (R3.1, R3.2): the cause is logged, with the
// evidence an operator needs (R3.4), and every queued URL of the host
// comes back naming it. Later URLs are turned away in admit.
func (s *scheduler) stop(h *host, cause error, at time.Time) {
	if h.stopped != nil {
		return
	}
	h.stopped = cause
	if s.counts.refusals == nil {
		s.counts.refusals = make(map[string]int)
	}
	s.counts.refusals[stopKind(cause)]++
	s.recordStop(h, cause, at)
	attrs := []any{"host", h.name, "time", at, "cause", cause.Error()}
	var ref *RefusalError
	if errors.As(cause, &ref) {
		attrs = append(attrs, "url", ref.URL, "status", ref.Status, "kind", ref.Verdict.Kind.String(),
			"challenge", ref.Verdict.Challenge, "vendor", ref.Verdict.Vendor, "evidence", ref.Verdict.Evidence)
		s.f.set.logger.Warn("polite: refused; host stopped for the run", attrs...)
	} else {
		attrs = append(attrs, "kind", "failures", "failures", h.failures)
		s.f.set.logger.Warn("polite: failures in a row; host stopped for the run", attrs...)
	}
	s.dropHost(h, &StoppedError{Host: h.name, Cause: cause})
}

// park turns away every queued URL of a budget whose server asked for a
// wait beyond the horizon (R2.4): each comes back with the time it may be
// asked again, rather than waiting unseen.
func (s *scheduler) park(b *budget, at time.Time) {
	s.f.set.logger.Warn("polite: Retry-After beyond the horizon; address parked",
		"address", b.addr, "until", b.parkedUntil, "horizon", s.f.set.horizon, "time", at)
	for b.pending() > 0 {
		t := b.pop()
		s.finish(t, &Result{Err: &ParkedError{Host: t.host.name, Until: b.parkedUntil}})
	}
}
