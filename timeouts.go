package polite

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// requestTimeoutError is the cause of a request cancelled for taking
// longer than Config.Timeout, or of a host lookup cancelled for taking
// longer than resolveTimeout (R10.2). It matches
// context.DeadlineExceeded, as a deadline's error would.
type requestTimeoutError struct {
	after  time.Duration
	lookup bool
}

func (e *requestTimeoutError) Error() string {
	if e.lookup {
		return fmt.Sprintf("lookup took longer than %v", e.after)
	}
	return fmt.Sprintf("request took longer than %v (Config.Timeout)", e.after)
}

func (e *requestTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// Timeout makes it a timeout to net.Error and os.IsTimeout.
func (e *requestTimeoutError) Timeout() bool { return true }

// requestContexts gives one job goroutine's requests their context:
// cancelled by Close, and after the request timeout (R10.2). A goroutine
// makes one request at a time, so one cancellable context and one timer
// serve all its requests, and when it ends they serve the next goroutine's
// (spareContexts); a new pair is made only after a timeout used them up.
// A goroutine keeps a second set for its host lookups, with their own
// timeout. A context.WithTimeoutCause per request costs 10 allocations
// more and 1.345 of the bare loop in BenchmarkRequestCost (this: 1.243),
// past the 1.3 the fetcher keeps to.
//
// The timer is not set again for each request. A request notes its
// deadline; when the timer fires it ends a request past its deadline, is
// set again for a request that began since it was set, and rests while no
// request is in flight. A busy worker's timer so fires about once per
// timeout, and no request is cut before its own deadline.
type requestContexts struct {
	parent  context.Context
	timeout time.Duration
	cause   *requestTimeoutError // what the timer cancels with

	mu       sync.Mutex // guards what follows against the timer's call
	ctx      context.Context
	cancel   context.CancelCauseFunc
	timer    *time.Timer
	deadline time.Time // of the request in flight; zero between requests
	armed    bool      // the timer will fire
	spent    bool      // the timer cancelled ctx: the next request needs a new one
}

func newRequestContexts(parent context.Context, timeout time.Duration) *requestContexts {
	return &requestContexts{parent: parent, timeout: timeout, cause: &requestTimeoutError{after: timeout}}
}

// newLookupContexts is newRequestContexts for host lookups.
func newLookupContexts(parent context.Context, timeout time.Duration) *requestContexts {
	return &requestContexts{parent: parent, timeout: timeout, cause: &requestTimeoutError{after: timeout, lookup: true}}
}

// begin returns the context for the next request and starts its clock.
func (rc *requestContexts) begin() context.Context {
	deadline := time.Now().Add(rc.timeout)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.ctx == nil {
		rc.ctx, rc.cancel = context.WithCancelCause(rc.parent)
		rc.spent, rc.armed = false, true
		rc.timer = time.AfterFunc(rc.timeout, rc.fire)
	} else if !rc.armed {
		rc.armed = true
		rc.timer.Reset(rc.timeout)
	}
	rc.deadline = deadline
	return rc.ctx
}

// fire is the timer's call.
func (rc *requestContexts) fire() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	switch left := time.Until(rc.deadline); {
	case rc.spent || rc.deadline.IsZero():
		rc.armed = false // no request in flight: rest until the next
	case left > 0:
		rc.timer.Reset(left) // a request that began since the timer was set
	default:
		rc.armed, rc.spent = false, true
		rc.cancel(rc.cause)
	}
}

// end stops the request's clock. When the timer has cancelled the
// context, the context is spent: the next request gets a fresh one.
func (rc *requestContexts) end() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.deadline = time.Time{}
	if rc.spent {
		rc.ctx, rc.cancel, rc.timer = nil, nil, nil
	}
}

// close releases the current context, if any.
func (rc *requestContexts) close() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.ctx != nil {
		rc.timer.Stop()
		rc.cancel(nil)
		rc.ctx = nil
	}
}

// timedOut reports the timeout that cancelled ctx, if that is what did.
func timedOut(ctx context.Context) (*requestTimeoutError, bool) {
	e, ok := context.Cause(ctx).(*requestTimeoutError)
	return e, ok
}

// jobContexts are one job goroutine's request and lookup contexts.
type jobContexts struct{ request, lookup *requestContexts }

// spareContexts keeps the contexts of job goroutines that ended for the
// ones that start: a goroutine per request in flight costs no new context
// and timer per request (see requestContexts). It holds at most maxSpare,
// and Close releases them.
type spareContexts struct {
	mu    sync.Mutex
	spare []*jobContexts
}

// take returns spare contexts, or new ones with these timeouts.
func (s *spareContexts) take(parent context.Context, timeout, lookupTimeout time.Duration) *jobContexts {
	s.mu.Lock()
	if n := len(s.spare); n > 0 {
		c := s.spare[n-1]
		s.spare[n-1] = nil
		s.spare = s.spare[:n-1]
		s.mu.Unlock()
		return c
	}
	s.mu.Unlock()
	return &jobContexts{
		request: newRequestContexts(parent, timeout),
		lookup:  newLookupContexts(parent, lookupTimeout),
	}
}

// maxSpare bounds the contexts kept, as idleWorkers bounds the goroutines:
// keeping all a burst made holds them through the run
// (BenchmarkMemoryPerHostAndURL: 1,040 bytes an idle host, 981 with 64).
const maxSpare = idleWorkers

// put keeps a goroutine's contexts for the next, or releases them when
// maxSpare are kept.
func (s *spareContexts) put(c *jobContexts) {
	s.mu.Lock()
	if len(s.spare) < maxSpare {
		s.spare = append(s.spare, c)
		c = nil
	}
	s.mu.Unlock()
	if c != nil {
		c.request.close()
		c.lookup.close()
	}
}

// close releases every spare context; called once no goroutine runs a job.
func (s *spareContexts) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.spare {
		c.request.close()
		c.lookup.close()
	}
	s.spare = nil
}
