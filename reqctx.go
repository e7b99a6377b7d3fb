package polite

import (
	"context"
	"fmt"
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

// requestContexts gives one worker's requests their context: cancelled
// by Close, and after the request timeout (R10.2). A worker makes one
// request at a time, so one cancellable context and one timer serve all
// its requests; a new pair is made only after a timeout used them up.
// Compared with a context.WithTimeout per request, this saves the
// allocations, the timer and the lock on the fetcher's context that every
// request would otherwise take. A worker keeps a second set for its host
// lookups, with their own timeout.
type requestContexts struct {
	parent  context.Context
	timeout time.Duration
	cause   *requestTimeoutError // what the timer cancels with
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timer   *time.Timer
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
	if rc.ctx == nil {
		rc.ctx, rc.cancel = context.WithCancelCause(rc.parent)
		cancel, cause := rc.cancel, rc.cause
		rc.timer = time.AfterFunc(rc.timeout, func() { cancel(cause) })
		return rc.ctx
	}
	rc.timer.Reset(rc.timeout)
	return rc.ctx
}

// end stops the request's clock. When the timer fired, or is firing, the
// context is spent: the next request gets a fresh one.
func (rc *requestContexts) end() {
	if !rc.timer.Stop() {
		rc.cancel(nil)
		rc.ctx, rc.cancel, rc.timer = nil, nil, nil
	}
}

// close releases the current context, if any.
func (rc *requestContexts) close() {
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
