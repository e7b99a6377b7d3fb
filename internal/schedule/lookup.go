package schedule

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/politecrawler/polite/internal/pacing"
)

// A lookup that fails for a moment (a DNS timeout, a server failure) makes
// the site unreachable, not gone (R5.2): its URLs wait, and the lookup is
// tried again after the backoff of R2.5; five failures in a row stop the
// host (R3.2). A name that does not exist is final at once.

// lookupRetries orders hosts waiting to be looked up again by when.
type lookupRetries []*host

func (h lookupRetries) Len() int           { return len(h) }
func (h lookupRetries) Less(i, j int) bool { return h[i].retryAt.Before(h[j].retryAt) }
func (h lookupRetries) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lookupRetries) Push(x any)        { *h = append(*h, x.(*host)) }
func (h *lookupRetries) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

// passing reports whether a lookup error may go away by itself.
func passing(err error) bool {
	var dns *net.DNSError
	switch {
	case errors.Is(err, ErrClosed):
		return false
	case errors.As(err, &dns):
		return !dns.IsNotFound
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// lookupFailed decides what follows a failed lookup: another try after
// the backoff, or the end. It reports whether the host's URLs wait on.
func (s *Scheduler) lookupFailed(h *host, err error, now time.Time) bool {
	if s.closing || !passing(err) {
		return false
	}
	h.lookupFailures++
	if h.lookupFailures >= s.cfg.FailuresToStop {
		h.err = s.root.Stopped(h.name, fmt.Errorf("%w: %d lookups, the last: %w", ErrFailuresInARow, h.lookupFailures, Nested(err)))
		s.cfg.Logger.Warn("polite: lookups failing; host stopped for the run", "host", h.name, "failures", h.lookupFailures, "err", err, "time", now)
		return false
	}
	h.resolving = true
	h.retryAt = now.Add(pacing.BackoffAfter(h.lookupFailures, s.cfg.MaxBackoff, s.cfg.Rand()))
	heap.Push(&s.relookups, h)
	return true
}

// dueLookups moves the hosts whose retry time has come back to the
// lookup queue.
func (s *Scheduler) dueLookups(now time.Time) {
	for len(s.relookups) > 0 && !s.relookups[0].retryAt.After(now) {
		s.lookups = append(s.lookups, heap.Pop(&s.relookups).(*host))
	}
}
