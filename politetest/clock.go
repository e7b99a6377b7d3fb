package politetest

import "time"

// Clock is the farm's time: it stamps every Visit and Hello of the audit.
// Nil, where a Clock is taken, means the wall clock. A Clock is read from
// concurrent handlers, so it must be safe for concurrent use.
type Clock interface {
	Now() time.Time
}

// FakeClock is a Clock that stands still until advanced. Given one, the
// farm advances it by each scripted wait (Site.Latency, Page.Latency,
// Page.BodyDelay) as if the handler had worked that long, and returns at
// once: a test of minute-long rules runs in microseconds. Any other Clock
// is taken to run at the wall clock's pace, and the waits sleep.
type FakeClock interface {
	Clock
	Advance(d time.Duration)
}

// wallClock is the Clock of New(nil).
type wallClock struct{}

// Now returns time.Now().
func (wallClock) Now() time.Time { return time.Now() }
