package schedule

import "time"

// Budgets yet to start are paced (R1.2): while the CPU's gauge runs, no
// more of their first requests start in one of its windows than the
// ceiling spread over a request's mean duration, ceiling × window ÷ mean.
// Started in a burst, as the ceiling grew, hundreds of first requests had
// their answers come back together a duration later, met the next burst
// of starts there, and waited for the CPU on both sides: at 1 s, robots.txt
// reached the farm 10-19 ms after the fetcher sent it, and R2.2 rested five
// times the lag. A budget yet to start loses no rate by waiting for its
// first request, and one that has started is never paced: its rest says
// when it is due. Requests of 50 ms or less (a window) are not paced:
// their answers come back before the next window's starts, and pacing
// them delays their first requests into every page's rest.

// durationWeight is how many requests the mean duration is mostly made
// of: each new one moves it by 1/durationWeight of its distance.
const durationWeight = 64

// durationSpan caps the duration a request counts for in the mean: a
// second, the span of the ceiling's count of starts (startWindows). A
// request that timed out after minutes would otherwise hold the pace of
// every new budget for as many requests again.
const durationSpan = startWindows * cpuWindow

// noteDuration counts a request's duration in the mean.
func (s *Scheduler) noteDuration(d time.Duration) {
	d = min(d, durationSpan)
	if s.meanDuration == 0 {
		s.meanDuration = d
		return
	}
	s.meanDuration += (d - s.meanDuration) / durationWeight
}

// paced reports whether b's request must wait for the gauge's next
// window: b has yet to start, requests take longer than a window, and
// this window's first requests have reached ceiling × window ÷ mean.
func (s *Scheduler) paced(b *Budget) bool {
	if s.cfg.CPU == nil || !b.lastEnd.IsZero() || s.meanDuration <= cpuWindow {
		return false
	}
	room := max(1, float64(s.ceiling)*cpuWindow.Seconds()/s.meanDuration.Seconds())
	return float64(s.firstStarts) >= room
}
