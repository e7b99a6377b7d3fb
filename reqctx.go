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

// requestContext is the context of one request: ended by Close (parent)
// and after timeout, with a cause that says which (R10.2).
func requestContext(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(parent, timeout, &requestTimeoutError{after: timeout})
}

// lookupContext is requestContext for a host lookup.
func lookupContext(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(parent, timeout, &requestTimeoutError{after: timeout, lookup: true})
}

// timedOut reports the timeout that cancelled ctx, if that is what did.
func timedOut(ctx context.Context) (*requestTimeoutError, bool) {
	e, ok := context.Cause(ctx).(*requestTimeoutError)
	return e, ok
}
