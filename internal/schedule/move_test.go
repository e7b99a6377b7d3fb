package schedule

import (
	"errors"
	"net/netip"
	"testing"
	"time"
)

// mover is the host the move tests look up again.
const mover = "http://mover.test"

var (
	oldAddr = netip.MustParseAddr("192.0.2.1")
	newAddr = netip.MustParseAddr("192.0.2.2")
)

// settledMover is a rig whose mover.test was looked up at oldAddr and
// read robots.txt at the clock's start, and answered /a after its rest.
func settledMover(t *testing.T) *rig {
	t.Helper()
	r := newRig(t)
	r.add(mover + "/a")
	r.resolve(r.take("lookup mover.test"), oldAddr.String())
	r.fetch(mover+"/robots.txt", noRobots)
	r.answer(r.dueAt(mover+"/a", clockAt(rigFloor)), ok)
	return r
}

// addr is the address of a host's budget, and whether a move of it waits.
func (r *rig) addr(host string) (netip.Addr, bool) {
	r.t.Helper()
	r.settle()
	v, ok := r.s.Inspect(host)
	if !ok {
		r.t.Fatalf("no host %s", host)
	}
	return v.Addr, r.s.MovesPending()
}

func (r *rig) freshTransports() int {
	r.root.mu.Lock()
	defer r.root.mu.Unlock()
	return r.root.fresh
}

// R1.1: a host whose lookup finds a new address while a job is out at its
// old one moves only when that job is reported: until then it stays, and
// its robots.txt waits at the old budget behind the job; after, it goes
// to the new address, on a fresh transport, and no sooner than the rest
// the job set.
func TestMoveWaitsForTheJobInFlight(t *testing.T) {
	r := settledMover(t)
	r.clk.Set(clockAt(RobotsMaxAge))
	r.add(mover + "/slow") // robots.txt due again: looked up first, at the same address
	r.resolve(r.take("lookup mover.test"), oldAddr.String())
	refreshed := r.fetch(mover+"/robots.txt", noRobots)
	slow := r.dueAt(mover+"/slow", refreshed.End.Add(rigFloor))
	r.clk.Advance(RobotsMaxAge)
	r.add(mover + "/c") // robots.txt due again: the lookup finds the new address
	r.resolve(r.take("lookup mover.test"), newAddr.String())
	if a, pending := r.addr("mover.test"); a != oldAddr || !pending {
		t.Fatalf("with /slow out: at %v, move pending %v; want %v and a move waiting", a, pending, oldAddr)
	}
	if got := r.out(); len(got) != 0 {
		t.Fatalf("out beside /slow: %v", got)
	}
	fresh := r.freshTransports()
	c := r.answer(slow, ok)
	if a, pending := r.addr("mover.test"); a != newAddr || pending {
		t.Fatalf("after /slow: at %v, move pending %v; want %v and none", a, pending, newAddr)
	}
	if r.freshTransports() == fresh {
		t.Error("moved on the transport of the old address")
	}
	if j := r.dueAt(mover+"/robots.txt", c.End.Add(rigFloor)); j.Budget().Addr() != newAddr {
		t.Errorf("robots.txt after the move asked at %v, want %v", j.Budget().Addr(), newAddr)
	}
}

// R1.3, R2.2: a host that moves right after a slow response at its old
// address keeps the rest that response set: 10 s, capped at 30 s, before
// its first job at the new one, as the two addresses may be one server.
func TestMovedHostKeepsItsRest(t *testing.T) {
	r := settledMover(t)
	r.clk.Set(clockAt(RobotsMaxAge - 10*time.Second)) // robots.txt still fresh
	r.add(mover + "/slow")
	c := r.fetch(mover+"/slow", reply{Status: 200, Took: 10 * time.Second})
	r.add(mover + "/c") // it ended a robots period after robots.txt: looked up, it moves
	r.resolve(r.take("lookup mover.test"), newAddr.String())
	if a, _ := r.addr("mover.test"); a != newAddr {
		t.Fatalf("at %v after the lookup, want %v", a, newAddr)
	}
	r.dueAt(mover+"/robots.txt", c.End.Add(30*time.Second))
}

// R1.1: a lookup that lists the host's address again, in another order
// (round-robin DNS), is no move: the host stays, on the same transport.
func TestRoundRobinOrderIsNoMove(t *testing.T) {
	r := settledMover(t)
	fresh := r.freshTransports()
	r.clk.Set(clockAt(RobotsMaxAge))
	r.add(mover + "/b")
	r.resolve(r.take("lookup mover.test"), newAddr.String(), oldAddr.String())
	if j := r.take(mover + "/robots.txt"); j.Budget().Addr() != oldAddr {
		t.Errorf("robots.txt asked at %v, want the host's %v", j.Budget().Addr(), oldAddr)
	}
	if r.freshTransports() != fresh {
		t.Error("a fresh transport for a host that did not move")
	}
}

// R2.4, R1.1: a lookup does not move a host out of its address's park:
// the URLs added meanwhile come back parked, no further lookup is made
// before the park ends, and the first robots.txt after it looks the host
// up again and goes to the new address.
func TestParkedHostDoesNotMove(t *testing.T) {
	r := settledMover(t)
	r.add(mover + "/r")
	c := r.answer(r.dueAt(mover+"/r", clockAt(2*rigFloor)), reply{Status: 503, Failed: true, RetryAfter: 48 * time.Hour})
	until := c.End.Add(48 * time.Hour)
	r.clk.Set(clockAt(25 * time.Hour))
	r.add(mover + "/c") // robots.txt due again: the host is looked up
	r.resolve(r.take("lookup mover.test"), newAddr.String())
	r.add(mover + "/d")
	for _, p := range []string{"/c", "/d"} {
		var parked *parkedErr
		if e := r.result(mover + p); !errors.As(e.Err, &parked) || !parked.until.Equal(until) {
			t.Errorf("%s: %v, want parked until %v", p, e.Err, until)
		}
	}
	if a, _ := r.addr("mover.test"); a != oldAddr {
		t.Errorf("moved to %v out of the park", a)
	}
	if got := r.out(); len(got) != 0 {
		t.Fatalf("out while parked: %v", got)
	}
	r.clk.Set(until.Add(time.Minute))
	r.add(mover + "/e")
	r.resolve(r.take("lookup mover.test"), newAddr.String())
	if j := r.take(mover + "/robots.txt"); j.Budget().Addr() != newAddr {
		t.Errorf("robots.txt after the park asked at %v, want %v", j.Budget().Addr(), newAddr)
	}
}
