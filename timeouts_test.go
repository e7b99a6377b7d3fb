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

// R10.2: when the timer fires at an earlier request's deadline, a request
// that began since runs on to its own deadline: the timer is set again,
// not the context cut. With no request in flight the timer rests. The
// test makes the timer's call itself, where the earlier deadline would
// have been, rather than wait for it.
func TestRequestContextsLaterRequestKeepsItsTime(t *testing.T) {
	rc := newRequestContexts(context.Background(), time.Hour)
	defer rc.close()
	rc.begin()
	rc.end()
	later := rc.begin()
	rc.fire() // the first request's deadline
	rc.mu.Lock()
	armed := rc.armed
	rc.mu.Unlock()
	if later.Err() != nil || !armed {
		t.Errorf("a request cut at an earlier one's deadline (err %v), or its timer not set again (%v)", context.Cause(later), armed)
	}
	rc.end()
	rc.fire() // nothing in flight
	rc.mu.Lock()
	armed = rc.armed
	rc.mu.Unlock()
	if armed || later.Err() != nil {
		t.Errorf("between requests: timer set %v, context err %v; want it resting and the context live", armed, later.Err())
	}
	if next := rc.begin(); next != later {
		t.Error("a context that was never cut was replaced")
	}
	rc.end()
}
