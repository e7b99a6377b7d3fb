package polite

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
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
// (closed), of the page (too large, invalid) or of the host's certificate
// (which stops it at once, see certificateFailure).
func isNetworkFailure(err error) bool {
	return err != nil && !errors.Is(err, ErrClosed) && !errors.Is(err, ErrBodyTooLarge) &&
		!errors.Is(err, ErrInvalidURL) && !errors.Is(err, context.Canceled) && !certificateFailure(err)
}

// ErrCertificate: the host's TLS certificate did not verify (wrong name,
// unknown authority, expired…). The host is stopped for the run at once,
// with nothing fetched from it; its address is not backed off, and no
// cool-off is kept across runs, as it is not a refusal. The cause of the
// *StoppedError keeps the x509 error for errors.As.
var ErrCertificate = errors.New("polite: certificate not trusted")

// certificateFailure says whether a request failed because the server's
// certificate did not verify: a fact about that host, not a failure of
// its address.
func certificateFailure(err error) bool {
	if err == nil {
		return false
	}
	var cv *tls.CertificateVerificationError
	var host x509.HostnameError
	var ca x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &cv) || errors.As(err, &host) || errors.As(err, &ca) || errors.As(err, &invalid)
}

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
		s.counts.refusals = make(map[string]int)
	}
	s.counts.refusals[stopKind(cause)]++
	attrs := []any{"host", h.name, "time", at, "cause", cause.Error()}
	var ref *RefusalError
	switch {
	case errors.Is(cause, ErrCertificate):
		// Not a refusal: nothing is kept for later runs (R3.3).
		attrs = append(attrs, "kind", "certificate")
		s.f.set.logger.Warn("polite: certificate not trusted; host stopped for the run", attrs...)
	case errors.As(cause, &ref):
		s.recordStop(h, cause, at)
		attrs = append(attrs, "url", ref.URL, "status", ref.Status, "kind", ref.Verdict.Kind.String(),
			"challenge", ref.Verdict.Challenge, "vendor", ref.Verdict.Vendor, "evidence", ref.Verdict.Evidence)
		s.f.set.logger.Warn("polite: refused; host stopped for the run", attrs...)
	default:
		s.recordStop(h, cause, at)
		attrs = append(attrs, "kind", "failures", "failures", h.failures)
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
