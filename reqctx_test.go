package polite

import (
	"context"
	"errors"
	"testing"
	"time"
)

// R10.2: a request's context ends at the timeout with a cause that says
// so, a timeout matching context.DeadlineExceeded, and the request after
// it starts with a fresh, live context; a request ended by its own end or
// by Close is not read as a timeout.
func TestRequestContexts(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.Background())
	defer cancelParent()

	first, end := requestContext(parent, time.Millisecond)
	<-first.Done() // the timeout fires
	if te, ok := timedOut(first); !ok || !errors.Is(te, context.DeadlineExceeded) || !te.Timeout() {
		t.Fatalf("cause %v, want the request timeout", context.Cause(first))
	}
	end()
	if _, ok := timedOut(first); !ok {
		t.Error("the end of a request that timed out hid its timeout")
	}
	second, end := requestContext(parent, time.Hour)
	if second == first || second.Err() != nil {
		t.Fatalf("after a timeout: same context %v, err %v; want a fresh live one", second == first, second.Err())
	}
	end()

	a, end := requestContext(parent, time.Hour)
	end()
	if _, ok := timedOut(a); ok {
		t.Error("a request's own end read as a timeout")
	}
	b, end := requestContext(parent, time.Hour)
	defer end()
	if b.Err() != nil {
		t.Errorf("no timeout: the next request's context is spent (%v)", b.Err())
	}
	cancelParent()
	<-b.Done()
	if _, ok := timedOut(b); ok {
		t.Error("Close's cancellation read as a timeout")
	}
}

// R10.2: a request that begins after an earlier one runs on to its own
// deadline, not the earlier one's, and outlives the earlier one's end;
// an ended request leaves no timer running.
func TestRequestContextsLaterRequestKeepsItsTime(t *testing.T) {
	first, endFirst := requestContext(context.Background(), time.Hour)
	d1, _ := first.Deadline()
	began := time.Now()
	later, endLater := requestContext(context.Background(), time.Hour)
	defer endLater()
	endFirst()
	d2, ok := later.Deadline()
	if !ok || d2.Before(d1) || d2.Before(began.Add(time.Hour)) {
		t.Errorf("a later request's deadline %v (set %v), before the earlier one's %v or its own start + timeout", d2, ok, d1)
	}
	if later.Err() != nil {
		t.Errorf("a request cut at an earlier one's end: %v", context.Cause(later))
	}
	if !errors.Is(first.Err(), context.Canceled) {
		t.Errorf("an ended request's context: %v; want it released, its timer stopped", first.Err())
	}
}

// R10.2: a lookup's timeout says it was the lookup's.
func TestLookupContextSaysLookup(t *testing.T) {
	ctx, end := lookupContext(context.Background(), time.Millisecond)
	defer end()
	<-ctx.Done()
	if te, ok := timedOut(ctx); !ok || !te.lookup || !errors.Is(te, context.DeadlineExceeded) || !te.Timeout() {
		t.Errorf("cause %v, want the lookup timeout", context.Cause(ctx))
	}
}
