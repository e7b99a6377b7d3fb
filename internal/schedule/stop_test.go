package schedule

import (
	"errors"
	"testing"
	"time"
)

// wantStopped fails the test unless u was answered with the root's
// Stopped error for failures in a row (R3.2), and no request of its own.
func (r *rig) wantStopped(u string) {
	r.t.Helper()
	e := r.result(u)
	var stopped *stoppedErr
	if !errors.As(e.Err, &stopped) || !errors.Is(e.Err, ErrFailuresInARow) || e.Response != nil {
		r.t.Errorf("%s: %v, want the host stopped for failures in a row, with no request", u, e.Err)
	}
}

// R3.2: FailuresToStop failures in a row stop the host: each waits its
// backoff (R2.5), and after the last the URLs queued behind it, and those
// added later, are answered with the root's Stopped error; nothing more
// is asked.
func TestFailuresInARowStopTheHost(t *testing.T) {
	r := newRig(t)
	r.add(site+"/1", site+"/2", site+"/3", site+"/4", site+"/5", site+"/6", site+"/7")
	at := r.readRobots()
	for i, wait := range []time.Duration{0, 5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second} {
		at = r.answer(r.dueAt(site+"/"+string(rune('1'+i)), at.Add(wait)), unavailable).End
	}
	r.add(site + "/8")
	for _, p := range []string{"/6", "/7", "/8"} {
		r.wantStopped(site + p)
	}
	r.clk.Advance(time.Hour)
	if got := r.out(); len(got) != 0 {
		t.Errorf("out after the stop: %v", got)
	}
	r.root.mu.Lock()
	defer r.root.mu.Unlock()
	if cause := r.root.stops["192.0.2.1"]; !errors.Is(cause, ErrFailuresInARow) {
		t.Errorf("the stop logged: %v, want failures in a row", cause)
	}
}

// R3.2: a lookup that answers does not reset the failures of the host's
// requests: four failed pages, the host looked up again as its
// robots.txt falls due, and that robots.txt failing are five in a row.
func TestLookupDoesNotResetRequestFailures(t *testing.T) {
	r := newRig(t)
	const h = "http://failing.test"
	r.add(h + "/a")
	r.resolve(r.take("lookup failing.test"), "192.0.2.1")
	r.fetch(h+"/robots.txt", noRobots)
	r.answer(r.dueAt(h+"/a", clockAt(rigFloor)), ok)
	// Within the robots period the pages need neither robots.txt nor a lookup.
	r.clk.Set(clockAt(RobotsMaxAge - 2*time.Minute))
	r.add(h+"/f1", h+"/f2", h+"/f3", h+"/f4")
	at := r.fetch(h+"/f1", unavailable).End
	for i, wait := range []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second} {
		at = r.answer(r.dueAt(h+"/f"+string(rune('2'+i)), at.Add(wait)), unavailable).End
	}
	r.clk.Set(clockAt(RobotsMaxAge + time.Minute))
	r.add(h + "/g") // robots.txt is due again, and the host is looked up first
	r.resolve(r.take("lookup failing.test"), "192.0.2.1")
	r.fetch(h+"/robots.txt", robotsDownFive)
	r.wantStopped(h + "/g")
}
