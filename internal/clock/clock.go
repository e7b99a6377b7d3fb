// Package clock is the fetcher's source of time. The real clock is the wall
// clock; the fake clock only moves when a test (or the loopback farm) moves
// it, so rules measured in seconds and minutes are checked in microseconds.
package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	Now() time.Time
	// NewTimer returns a stopped-or-running timer that fires once after d.
	NewTimer(d time.Duration) Timer
}

// Timer is the part of time.Timer the fetcher uses.
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it was running.
	Stop() bool
	// Reset makes the timer fire after d, whether it had fired or not.
	Reset(d time.Duration)
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// NewTimer wraps time.NewTimer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time   { return r.t.C }
func (r realTimer) Stop() bool            { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) { r.t.Reset(d) }
