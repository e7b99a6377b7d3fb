package schedule

import (
	"testing"
	"time"
)

// The requests in flight follow the work (R1.2): with nothing seen yet,
// minInFlight may start; once requests are seen, headroom times what
// Little's law asks, the budgets not yet seen counted at the mean of those seen; and
// never more than MaxInFlight.
func TestRoomToFetchFollowsTheNeed(t *testing.T) {
	const budgets = 3000
	s := New(Config{MaxInFlight: 4096}, nil)
	due := make([]*Budget, budgets)
	for i := range due {
		due[i] = &Budget{index: -1, queue: []*Task{{}}}
		s.due.push(due[i])
	}
	room := func() int { // how many may be in flight at once now
		var busy []*Budget // a budget in flight leaves the due heap
		for s.roomToFetch() && len(s.due) > 0 {
			busy = append(busy, s.due.pop())
			s.counts.fetching++
		}
		for _, b := range busy {
			s.due.push(b)
		}
		s.counts.fetching = 0
		return len(busy)
	}
	if n := room(); n != minInFlight {
		t.Errorf("nothing seen: room for %d, want minInFlight %d", n, minInFlight)
	}
	// 300 budgets seen answering in 1 s, resting 5 s: 1/6 each; the
	// other 2,700 count the same, so 3,000 ÷ 6 = 500 are needed.
	for _, b := range due[:300] {
		s.needs(b, time.Second, 5*time.Second)
	}
	if n := room(); n != headroom*500 {
		t.Errorf("500 needed: room for %d, want %d", n, headroom*500)
	}
	if got := s.need(); got < 499.99 || got > 500.01 {
		t.Errorf("need %v, want 500", got)
	}
	// Answers in 10 ms need little: the floor holds.
	for _, b := range due[:300] {
		s.needs(b, 10*time.Millisecond, 3*time.Second)
	}
	if n := room(); n != minInFlight {
		t.Errorf("short answers: room for %d, want minInFlight %d", n, minInFlight)
	}
	// A budget whose work is gone needs nothing.
	for _, b := range due[:300] {
		s.due.remove(b.index)
		s.needs(b, time.Second, 5*time.Second)
	}
	if s.counts.needers != 0 || s.counts.need != 0 {
		t.Errorf("no work seen: %d budgets need %v", s.counts.needers, s.counts.need)
	}
	// MaxInFlight caps it.
	s.cfg.MaxInFlight = 8
	if n := room(); n != 8 {
		t.Errorf("MaxInFlight 8: room for %d", n)
	}
}
