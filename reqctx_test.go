package polite

import (
	"context"
	"errors"
	"testing"
	"time"
)

// R10.2: a worker's request context ends at the timeout with a cause that
// says so, and the request after it starts with a fresh context; without
// a timeout the same context serves request after request.
func TestRequestContexts(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.Background())
	defer cancelParent()
	rc := newRequestContexts(parent, time.Millisecond)
	defer rc.close()

	first := rc.begin()
	<-first.Done() // the timeout fires
	if te, ok := timedOut(first); !ok || !errors.Is(te, context.DeadlineExceeded) {
		t.Fatalf("cause %v, want the request timeout", context.Cause(first))
	}
	rc.end()
	second := rc.begin()
	if second == first || second.Err() != nil {
		t.Fatalf("after a timeout: same context %v, err %v; want a fresh live one", second == first, second.Err())
	}
	rc.end()

	rc = newRequestContexts(parent, time.Hour)
	defer rc.close()
	a := rc.begin()
	rc.end()
	if b := rc.begin(); b != a || b.Err() != nil {
		t.Errorf("no timeout: a new context (%v) or a spent one (%v)", b != a, b.Err())
	}
	cancelParent()
	<-a.Done()
	if _, ok := timedOut(a); ok {
		t.Error("Close's cancellation read as a timeout")
	}
	rc.end()
}

// R10.2: a request that begins while the timer is still set for an
// earlier request's deadline runs to its own deadline, and is then cut.
// The pause between the two requests is what sets the deadlines apart.
func TestRequestContextsLaterRequestKeepsItsTime(t *testing.T) {
	const timeout = 200 * time.Millisecond
	rc := newRequestContexts(context.Background(), timeout)
	defer rc.close()
	rc.begin()
	rc.end()
	time.Sleep(timeout / 2)
	rc.mu.Lock()
	armed := rc.armed
	rc.mu.Unlock()
	if !armed {
		t.Skip("the pause outlasted the first request's deadline: nothing to test")
	}
	start := time.Now()
	ctx := rc.begin()
	select {
	case <-ctx.Done():
	case <-time.After(10 * timeout):
		t.Fatal("the request was never cut")
	}
	if waited := time.Since(start); waited < timeout {
		t.Errorf("cut after %v, before its own timeout of %v", waited, timeout)
	}
	if _, ok := timedOut(ctx); !ok {
		t.Errorf("cause %v, want the request timeout", context.Cause(ctx))
	}
	rc.end()
	if next := rc.begin(); next == ctx || next.Err() != nil {
		t.Errorf("after a timeout: same context %v, err %v; want a fresh live one", next == ctx, next.Err())
	}
	rc.end()
}
