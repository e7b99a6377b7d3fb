package schedule

import (
	"errors"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/clock"
)

// storeRig is a rig whose scheduler keeps rests (Config.KeepRests, R1.4):
// the test answers its store jobs, as the fetcher's store workers do,
// through StoreDone. At the test's end, store jobs still out are answered
// with nothing, so that Close can end the run.
type storeRig struct {
	*rig
	mu      sync.Mutex
	pending []StoreJob // handed out and not yet taken by the test
	taken   []StoreJob // taken by the test and not yet answered
}

func newStoreRig(t *testing.T) *storeRig {
	t.Helper()
	r := &storeRig{rig: newRig(t, func(c *Config) { c.KeepRests = true })}
	t.Cleanup(func() { // before the rig's close: cleanups run last first
		for {
			r.mu.Lock()
			left := append(r.pending, r.taken...)
			r.pending, r.taken = nil, nil
			r.mu.Unlock()
			if len(left) == 0 {
				break
			}
			for _, j := range left {
				r.done(j, StoreAnswer{}) // the next job it hands out joins pending
			}
		}
		go func() { // as the fetcher's store workers do, till the run ends
			for j := range r.s.StoreJobs() {
				for more := true; more; {
					j, more = r.s.StoreDone(&StoreAnswer{Job: j})
				}
			}
		}()
	})
	return r
}

// storeJob takes the store job out that match says is the one; the test
// fails if there is none.
func (r *storeRig) storeJob(what string, match func(StoreJob) bool) StoreJob {
	r.t.Helper()
	r.settle()
	r.mu.Lock()
	defer r.mu.Unlock()
	for more := true; more; {
		select {
		case j := <-r.s.StoreJobs():
			r.pending = append(r.pending, j)
		default:
			more = false
		}
	}
	for i, j := range r.pending {
		if match(j) {
			r.pending = slices.Delete(r.pending, i, i+1)
			r.taken = append(r.taken, j)
			return j
		}
	}
	r.t.Fatalf("no store job out for %s (%d out)", what, len(r.pending))
	return StoreJob{}
}

// done answers a store job; the job the worker is handed next waits for
// storeJob.
func (r *storeRig) done(j StoreJob, a StoreAnswer) {
	r.mu.Lock()
	r.taken = slices.DeleteFunc(r.taken, func(k StoreJob) bool { return k == j })
	r.mu.Unlock()
	a.Job = j
	if next, ok := r.s.StoreDone(&a); ok {
		r.mu.Lock()
		r.pending = append(r.pending, next)
		r.mu.Unlock()
	}
}

// recallHost and recallAddr answer the store job of a new host or of a
// new address: the rest an earlier run left it, if any.
func (r *storeRig) recallHost(host string, rest *RestRecord) {
	r.t.Helper()
	r.done(r.storeJob("host "+host, func(j StoreJob) bool { return j.Host() == host }), restAnswer(rest))
}

func (r *storeRig) recallAddr(addr netip.Addr, rest *RestRecord) {
	r.t.Helper()
	r.done(r.storeJob("address "+addr.String(), func(j StoreJob) bool { return j.Addr() == addr }), restAnswer(rest))
}

// restAnswer is a store job's answer of rest; none when nil.
func restAnswer(rest *RestRecord) StoreAnswer {
	if rest == nil {
		return StoreAnswer{}
	}
	return StoreAnswer{Rest: *rest, HasRest: true}
}

// isRests says a store job is rests to keep.
func isRests(j StoreJob) bool { return j.Rests() != nil }

// R1.4, R1.3: the rest a response sets is handed to the Store as its
// address's and its host's, ending its length after the response's end;
// the address is not asked again, its rest over or not, until the Store
// has answered the write: at most one rest of an address is ever
// unwritten, the one a crash at that moment loses.
func TestRestIsKeptBeforeTheAddressIsAskedAgain(t *testing.T) {
	r := newStoreRig(t)
	addr := netip.MustParseAddr("192.0.2.1")
	r.add(site+"/a", site+"/b")
	r.recallHost("192.0.2.1", nil)
	r.recallAddr(addr, nil)
	c := r.fetch(site+"/robots.txt", noRobots)
	save := r.storeJob("the robots.txt's rest", isRests)
	want := RestRecord{Addr: addr, Host: "192.0.2.1", Until: c.End.Add(rigFloor), Rest: rigFloor}
	if got := save.Rests(); len(got) != 1 || got[0] != want {
		t.Errorf("rests kept: %+v, want %+v", got, want)
	}
	r.clk.Set(c.End.Add(time.Hour))
	if r.isOut(site + "/a") {
		t.Fatal("/a asked before the rest after robots.txt was written")
	}
	r.done(save, StoreAnswer{})
	c = r.fetch(site+"/a", ok)

	// A write that fails is logged, and lets the address go on all the same.
	save = r.storeJob("/a's rest", isRests)
	r.done(save, StoreAnswer{Err: errors.New("disk full")})
	r.dueAt(site+"/b", c.End.Add(rigFloor))
}

// R1.4, R1.1, R2.4: a rest an earlier run left is waited out before the
// first request to its address or host, robots.txt included, to the end
// the Store keeps, but no longer than the rest's length from now (a clock
// set back between runs holds the address no longer than the rest); what
// is left beyond the horizon parks the address; one that is over holds
// nothing.
func TestStoredRestIsWaitedOut(t *testing.T) {
	epoch := clock.Epoch
	addr := netip.MustParseAddr("192.0.2.1")
	for _, c := range []struct {
		name               string
		hostRest, addrRest *RestRecord
		due                time.Time // robots.txt's; zero: parked until parked
		parked             time.Time
	}{
		{name: "the address's", addrRest: &RestRecord{Until: epoch.Add(10 * time.Second), Rest: 10 * time.Second},
			due: epoch.Add(10 * time.Second)},
		{name: "the host's", hostRest: &RestRecord{Until: epoch.Add(20 * time.Second), Rest: 30 * time.Second},
			due: epoch.Add(20 * time.Second)},
		{name: "the longer of both", hostRest: &RestRecord{Until: epoch.Add(7 * time.Second), Rest: 7 * time.Second},
			addrRest: &RestRecord{Until: epoch.Add(4 * time.Second), Rest: 4 * time.Second}, due: epoch.Add(7 * time.Second)},
		{name: "a clock set back", addrRest: &RestRecord{Until: epoch.Add(time.Hour), Rest: 5 * time.Second},
			due: epoch.Add(5 * time.Second)},
		{name: "one over", addrRest: &RestRecord{Until: epoch.Add(-time.Second), Rest: 3 * time.Second}, due: epoch},
		{name: "beyond the horizon", addrRest: &RestRecord{Until: epoch.Add(2 * time.Hour), Rest: 2 * time.Hour},
			parked: epoch.Add(2 * time.Hour)},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newStoreRig(t)
			r.add(site + "/a")
			r.recallHost("192.0.2.1", c.hostRest)
			r.recallAddr(addr, c.addrRest)
			if !c.parked.IsZero() {
				var pe *parkedErr
				if e := r.result(site + "/a"); !errors.As(e.Err, &pe) || !pe.until.Equal(c.parked) {
					t.Fatalf("/a: %v, want parked until %v", e.Err, c.parked)
				}
				if out := r.out(); len(out) != 0 {
					t.Errorf("jobs out at a parked address: %v", out)
				}
				return
			}
			if c.due.After(epoch) {
				r.dueAt(site+"/robots.txt", c.due)
			} else {
				r.take(site + "/robots.txt")
			}
		})
	}
}

// R1.4, R1.1: the rest an earlier run left a host is applied to the
// budget its lookup gives it, at an address that has none of its own.
func TestHostRestGoesToItsNewAddress(t *testing.T) {
	r := newStoreRig(t)
	r.add("http://moved.test/a")
	r.recallHost("moved.test", &RestRecord{Addr: netip.MustParseAddr("192.0.2.1"), Until: clockAt(9 * time.Second), Rest: 9 * time.Second})
	r.resolve(r.take("lookup moved.test"), "192.0.2.9")
	r.recallAddr(netip.MustParseAddr("192.0.2.9"), nil)
	r.dueAt("http://moved.test/robots.txt", clockAt(9*time.Second))
}

// R1.4: rests that end while a write is under way wait for it, and go
// together in the next: one write at a time, whatever the responses, each
// address held until the write of its own rest has returned.
func TestRestsWaitingAreWrittenTogether(t *testing.T) {
	r := newStoreRig(t)
	const other = "http://192.0.2.2"
	r.add(site+"/a", other+"/a", "http://192.0.2.3/a")
	for _, h := range []string{"192.0.2.1", "192.0.2.2", "192.0.2.3"} {
		r.recallHost(h, nil)
		r.recallAddr(netip.MustParseAddr(h), nil)
	}
	r.fetch(site+"/robots.txt", noRobots)
	first := r.storeJob("the first rest", isRests)
	r.fetch(other+"/robots.txt", noRobots)
	r.fetch("http://192.0.2.3/robots.txt", noRobots)
	r.settle()
	r.mu.Lock()
	queued := len(r.pending) + len(r.s.StoreJobs())
	r.mu.Unlock()
	if queued != 0 {
		t.Fatalf("%d store jobs out while the first write is under way, want none", queued)
	}
	r.clk.Set(clockAt(time.Minute))
	r.done(first, StoreAnswer{})
	second := r.storeJob("the rests that came meanwhile", isRests)
	if got := second.Rests(); len(got) != 2 || got[0].Addr != netip.MustParseAddr("192.0.2.2") || got[1].Addr != netip.MustParseAddr("192.0.2.3") {
		t.Errorf("second write: %+v, want the two rests that ended during the first", got)
	}
	if out := r.out(); len(out) != 1 || out[0] != site+"/a" {
		t.Errorf("out while the second write is under way: %v, want only %s/a", out, site)
	}
	r.done(second, StoreAnswer{})
	r.take(other + "/a")
	r.take("http://192.0.2.3/a")
}
