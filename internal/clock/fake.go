package clock

import (
	"sync"
	"time"
)

// Fake is a clock that stands still until Advance or Set moves it. Timers
// whose deadline is reached fire in deadline order, each on a channel with a
// one-slot buffer, exactly as time.Timer does since Go 1.23.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers map[*fakeTimer]struct{}
}

// Epoch is where a new fake clock starts: a fixed instant, so test output
// is the same on every run.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// NewFake returns a fake clock set to Epoch.
func NewFake() *Fake {
	return &Fake{now: Epoch, timers: make(map[*fakeTimer]struct{})}
}

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the clock forward by d and fires the timers that fall due.
func (f *Fake) Advance(d time.Duration) {
	if d < 0 {
		return
	}
	f.mu.Lock()
	target := f.now.Add(d)
	f.mu.Unlock()
	f.Set(target)
}

// Set moves the clock forward to t (never backwards) and fires the timers
// that fall due, earliest first.
func (f *Fake) Set(t time.Time) {
	for {
		f.mu.Lock()
		var next *fakeTimer
		for tm := range f.timers {
			if !tm.when.After(t) && (next == nil || tm.when.Before(next.when)) {
				next = tm
			}
		}
		if next == nil {
			if t.After(f.now) {
				f.now = t
			}
			f.mu.Unlock()
			return
		}
		if next.when.After(f.now) {
			f.now = next.when
		}
		delete(f.timers, next)
		now := f.now
		f.mu.Unlock()
		select {
		case next.c <- now:
		default:
		}
	}
}

// NextDeadline reports the earliest pending timer's deadline.
func (f *Fake) NextDeadline() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var min time.Time
	found := false
	for tm := range f.timers {
		if !found || tm.when.Before(min) {
			min, found = tm.when, true
		}
	}
	return min, found
}

// NewTimer returns a timer that fires when the fake clock reaches now+d.
func (f *Fake) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{clock: f, c: make(chan time.Time, 1)}
	t.Reset(d)
	return t
}

type fakeTimer struct {
	clock *Fake
	c     chan time.Time
	when  time.Time
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	_, running := t.clock.timers[t]
	delete(t.clock.timers, t)
	return running
}

func (t *fakeTimer) Reset(d time.Duration) {
	t.clock.mu.Lock()
	// Like time.Timer since Go 1.23: a reset drops a value not yet received.
	select {
	case <-t.c:
	default:
	}
	t.when = t.clock.now.Add(d)
	t.clock.timers[t] = struct{}{}
	t.clock.mu.Unlock()
	if d <= 0 {
		t.clock.Set(t.clock.Now())
	}
}
