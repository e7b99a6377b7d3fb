package clock

import (
	"testing"
	"time"
)

func fired(t Timer) bool {
	select {
	case <-t.C():
		return true
	default:
		return false
	}
}

func TestFakeTimers(t *testing.T) {
	c := NewFake()
	a, b := c.NewTimer(3*time.Second), c.NewTimer(time.Second)
	c.Advance(999 * time.Millisecond)
	if fired(a) || fired(b) {
		t.Fatal("fired early")
	}
	c.Advance(time.Millisecond)
	if !fired(b) || fired(a) {
		t.Fatal("b should fire at 1s, a not yet")
	}
	if next, ok := c.NextDeadline(); !ok || next != Epoch.Add(3*time.Second) {
		t.Fatalf("NextDeadline = %v %v", next, ok)
	}
	c.Set(Epoch.Add(10 * time.Second))
	if !fired(a) {
		t.Fatal("a should have fired")
	}
	if got := c.Now(); got != Epoch.Add(10*time.Second) {
		t.Fatalf("Now = %v", got)
	}
	c.Set(Epoch) // never backwards
	if got := c.Now(); got != Epoch.Add(10*time.Second) {
		t.Fatalf("clock went back to %v", got)
	}
}

func TestFakeStopAndReset(t *testing.T) {
	c := NewFake()
	tm := c.NewTimer(time.Second)
	if !tm.Stop() {
		t.Fatal("Stop of a running timer reported false")
	}
	c.Advance(time.Hour)
	if fired(tm) {
		t.Fatal("stopped timer fired")
	}
	tm.Reset(time.Second)
	c.Advance(time.Second)
	tm.Reset(time.Minute) // drops the unread value, like time.Timer
	if fired(tm) {
		t.Fatal("Reset kept a stale value")
	}
	tm.Reset(0)
	if !fired(tm) {
		t.Fatal("a zero reset should fire at once")
	}
}
