package redisshare_test

import (
	"fmt"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/redistest"
	"github.com/politecrawler/polite/politetest"
	"github.com/politecrawler/polite/redisshare"
)

// Faults across processes: a process killed mid-request, Redis stopped,
// Redis restarted without its data, a refusal in one process. The farm's
// audit over every process says what the servers saw. These run on real
// time (Redis keeps its own); the fetchers' Timeout is 2 s, so a lease
// lasts 7 s.

const faultTimeout = 2 * time.Second

// A process killed while its request is in flight leaves the address to
// no one until the lease ends (Timeout + 5 s), and then rests it as after
// a failure of a request that lasted the whole lease (R2.2's cap, 30 s)
// before another process may ask it.
func TestKilledMidRequest(t *testing.T) {
	srv := redistest.Start(t)
	fc := startFarm(t, 1, 0)
	dead := startFetcher(t, srv.Addr(), fc, []string{fc.url(0, hangPath)}, faultTimeout)
	fc.awaitEntered(t)
	dead.cmd.Process.Signal(syscall.SIGKILL)
	dead.cmd.Wait()
	next := startFetcher(t, srv.Addr(), fc, []string{fc.url(0, "/page")}, faultTimeout)
	answered(t, next.wait(t), []string{fc.url(0, "/page")})

	vs := fc.visits(t)
	report(t, vs)
	var hang, page *politetest.Visit
	for i, v := range vs {
		switch v.Path {
		case hangPath:
			hang = &vs[i]
		case "/page":
			page = &vs[i]
		}
	}
	if hang == nil || page == nil {
		t.Fatalf("visits %v: want the killed request and the next", vs)
	}
	// The lease was granted just before the killed request began.
	want := faultTimeout + 5*time.Second + polite.DurationRestCap - 200*time.Millisecond
	if gap := page.Start.Sub(hang.Start); gap < want {
		t.Errorf("the next request came %v after the killed one began, want at least %v (lease, then a failure's rest)", gap, want)
	}
}

// twoProcesses runs two fetchers on the same 40 hosts' two pages, each
// answered in 500 ms, so that a fetcher often asks for an address while
// the other's request to it is in flight; calls fault once the farm has
// seen 60 requests begin, robots.txt and pages in flight; and checks the whole
// run as the farm saw it: no overlap, no gap below the floor, every URL
// answered, and robots.txt once per host unless the fault lost the copies.
func twoProcesses(t *testing.T, lostCopies bool, fault func(srv *redistest.Server, fc *farmChild)) ([]politetest.Visit, []*fetcherChild) {
	t.Helper()
	const hosts = 40
	srv := redistest.Start(t)
	fc := startFarm(t, hosts, 500*time.Millisecond)
	urls := append(urlsOf(fc, hosts, "/page"), urlsOf(fc, hosts, "/page2")...)
	a := startFetcher(t, srv.Addr(), fc, urls, faultTimeout, nameEnv+"=a@farm.test")
	b := startFetcher(t, srv.Addr(), fc, urls, faultTimeout, nameEnv+"=b@farm.test")
	fc.awaitSeen(t, hosts+hosts/2)
	fault(srv, fc)
	answered(t, a.wait(t), urls)
	answered(t, b.wait(t), urls)
	vs := fc.visits(t)
	report(t, vs)
	if !lostCopies {
		robotsOnce(t, vs, hosts)
	}
	if t.Failed() {
		for _, v := range vs {
			t.Logf("%s %s %s %s", v.Start.Format("05.000"), fromOf(v), v.Host, v.Path)
		}
	}
	return vs, []*fetcherChild{a, b}
}

// Fail closed: while Redis is down for 10 s no request is sent, and when
// it is back every URL is answered.
func TestRedisStoppedTenSeconds(t *testing.T) {
	var stopped, back time.Time
	vs, ps := twoProcesses(t, false, func(srv *redistest.Server, fc *farmChild) {
		srv.Stop()
		stopped = time.Now()
		time.Sleep(10 * time.Second) // the outage itself, not a rule's wait
		back = time.Now()
		srv.Restart()
	})
	// A Take granted as Redis went down may start its request just after.
	for _, v := range vs {
		if v.Start.After(stopped.Add(500*time.Millisecond)) && v.Start.Before(back) {
			t.Errorf("%s %s began %v into Redis's outage: nothing may be sent while it is down",
				v.Host, v.Path, v.Start.Sub(stopped))
		}
	}
	for _, p := range ps {
		if p.final.SharedErrors == 0 {
			t.Errorf("a process's Stats.SharedErrors is 0 after a 10 s outage")
		}
	}
}

// A Redis that restarts without its data costs a rest, never an overlap
// or a short gap: the processes write back their leases and rests within
// its grace. (The robots.txt copies went with the data: a process that
// had not read one yet asks the site again.) Each process logs the loss
// once, though it meets it in one slot after another as the run goes on.
func TestRedisRestartedEmpty(t *testing.T) {
	_, ps := twoProcesses(t, true, func(srv *redistest.Server, fc *farmChild) {
		srv.Kill()
		srv.Restart()
	})
	const lost = "redisshare: Redis lost its data"
	total := 0
	for i, p := range ps {
		n := p.final.logged(lost)
		if n > 1 {
			t.Errorf("process %d logged %q %d times for one restart, want once", i, lost, n)
		}
		total += n
	}
	if total == 0 {
		t.Errorf("no process logged %q", lost)
	}
	t.Logf("%q logged %d times over the processes", lost, total)
}

// R3 shared: a 403 met by one of four processes stops the host in all
// before their next request to it: the host sees its robots.txt and the
// one request refused, nothing after.
func TestRefusalStopsHostEverywhere(t *testing.T) {
	srv := redistest.Start(t)
	fc := startFarm(t, 3, 0)
	urls := []string{fc.url(0, refusePath), fc.url(0, "/page"), fc.url(1, "/page"), fc.url(2, "/page")}
	var ps []*fetcherChild
	for range 4 {
		ps = append(ps, startFetcher(t, srv.Addr(), fc, urls, faultTimeout))
	}
	for _, p := range ps {
		got := p.wait(t)
		if len(got) != len(urls) {
			t.Errorf("%d Results, want %d", len(got), len(urls))
		}
		for _, o := range got {
			refusedHost := strings.Contains(o.URL, fc.hello.Names[0])
			if refusedHost != (o.Err != "") {
				t.Errorf("%s: %d %q", o.URL, o.Status, o.Err)
			}
		}
	}
	vs := fc.visits(t)
	report(t, vs)
	var paths []string
	for _, v := range vs {
		if v.Host == fc.hello.Names[0] {
			paths = append(paths, v.Path)
		}
	}
	if strings.Join(paths, " ") != politetest.RobotsPath+" "+refusePath {
		t.Errorf("the refused host saw %v, want its robots.txt and the refused request only", paths)
	}
}

// R2.4 shared: a Retry-After beyond the horizon that one process met
// parks the address in another, whose URL comes back parked, unasked.
func TestParkShared(t *testing.T) {
	srv := redistest.Start(t)
	fc := startFarm(t, 1, 0)
	first := startFetcher(t, srv.Addr(), fc, []string{fc.url(0, busyPath)}, faultTimeout)
	if got := first.wait(t); len(got) != 1 || got[0].Status != 503 {
		t.Fatalf("the process that met the Retry-After: %+v, want its 503", got)
	}
	second := startFetcher(t, srv.Addr(), fc, []string{fc.url(0, "/page")}, faultTimeout)
	if got := second.wait(t); len(got) != 1 || !got[0].Parked {
		t.Errorf("another process's URL of the parked address: %+v, want it parked", got)
	}
	var paths []string
	for _, v := range fc.visits(t) {
		paths = append(paths, v.Path)
	}
	if strings.Join(paths, " ") != politetest.RobotsPath+" "+busyPath {
		t.Errorf("the parked host saw %v, want its robots.txt and the request answered 503", paths)
	}
}

// fromOf is the process a visit came from: its From header (nameEnv).
func fromOf(v politetest.Visit) string { return v.Header.Get("From") }

// A process paused (SIGSTOP) for longer than its leases, then let go on
// (SIGCONT), finds its leases ran out and sends nothing before it claims
// again. The first process owns every address when it is paused, with
// more queued and another process waiting; each address it asked last
// then rests as after a failure from its lease's end (LeaseRest, 30 s at
// least), so its next request, by either process, comes 30 s or more
// after that last one began: one the paused process sent on waking,
// before it claimed again, would come sooner. (Take out the owner's
// checks, before a request and at each beat, and it does.)
func TestPausedPastItsLease(t *testing.T) {
	const hosts = 20
	srv := redistest.Start(t)
	fc := startFarm(t, hosts, 200*time.Millisecond)
	var urls []string
	for p := range 6 {
		urls = append(urls, urlsOf(fc, hosts, fmt.Sprintf("/page%d", p))...)
	}
	a := startFetcher(t, srv.Addr(), fc, urls, faultTimeout, nameEnv+"=a@farm.test")
	fc.awaitSeen(t, 2*hosts) // a alone: robots.txt and a page of every host
	b := startFetcher(t, srv.Addr(), fc, urls, faultTimeout, nameEnv+"=b@farm.test")
	// b waits, a owns every address and rests: none in flight, so none
	// fails for the pause and ends a's ownership by itself.
	fc.awaitEnded(t, 3*hosts)
	a.cmd.Process.Signal(syscall.SIGSTOP)
	paused := time.Now()
	// Its leases last 2 × (Timeout + 5 s) = 14 s; the pause, longer.
	time.Sleep(20 * time.Second) // the fault itself, not a rule's wait
	resumed := time.Now()
	a.cmd.Process.Signal(syscall.SIGCONT)
	answered(t, a.wait(t), urls)
	answered(t, b.wait(t), urls)
	vs := fc.visits(t)
	report(t, vs)
	byAddr := map[netip.Addr][]politetest.Visit{}
	for _, v := range vs {
		byAddr[v.Addr] = append(byAddr[v.Addr], v)
	}
	checked, aAfter := 0, 0
	for addr, vs := range byAddr {
		last := -1
		for i, v := range vs {
			if v.Start.Before(paused) {
				last = i
			}
			if fromOf(v) == "a@farm.test" && v.Start.After(resumed) {
				aAfter++
			}
		}
		if last < 0 || last+1 == len(vs) || fromOf(vs[last]) != "a@farm.test" {
			continue
		}
		checked++
		if gap := vs[last+1].Start.Sub(vs[last].Start); gap < polite.DurationRestCap {
			t.Errorf("%v: %s's %s came %v after the paused process's last request before its pause, want %v or more: it was sent before the address was owned again",
				addr, fromOf(vs[last+1]), vs[last+1].Path, gap, polite.DurationRestCap)
		}
	}
	if checked < hosts/2 || aAfter == 0 {
		t.Errorf("the paused process asked %d addresses last before its pause and sent %d requests after: want most of the %d, and some", checked, aAfter, hosts)
	}
}

// A Redis that hangs (SIGSTOP, its connections open and unanswered) for
// 20 s, under three processes that each want every address: within
// Silence no process sends anything more, though the leases it owns
// (130 s, of the default Timeout) have long to run; and after it answers
// again, the releases and claims sent meanwhile, which Redis runs late
// (some twice: the client sends a pipeline again on a new connection),
// leave one owner an address: no overlap, no short gap, every URL
// answered. (Take out the check that the server answered within Silence
// and the owners go on sending through the hang; let a late release
// free an address claimed again since, and two owners share it after.)
func TestRedisHangsTwentySeconds(t *testing.T) {
	const hosts, procs = 20, 3
	srv := redistest.Start(t)
	fc := startFarm(t, hosts, 200*time.Millisecond)
	var urls []string
	for p := range 6 {
		urls = append(urls, urlsOf(fc, hosts, fmt.Sprintf("/page%d", p))...)
	}
	var ps []*fetcherChild
	for i := range procs {
		ps = append(ps, startFetcher(t, srv.Addr(), fc, urls, 0, nameEnv+fmt.Sprintf("=p%d@farm.test", i)))
	}
	fc.awaitSeen(t, 3*hosts)
	vs, hung, back := outage(t, fc, ps, urls, srv.Pause, srv.Resume, 20*time.Second)
	robotsOnce(t, vs, hosts)
	// An owner asks nothing of Redis while its server answered within
	// Silence, and a request granted then may still begin.
	quiet := hung.Add(redisshare.Silence + 500*time.Millisecond)
	n := 0
	for _, v := range vs {
		if v.Start.After(quiet) && v.Start.Before(back) {
			t.Errorf("%s %s began %v into Redis's hang: nothing may be sent while it does not answer",
				v.Host, v.Path, v.Start.Sub(hung))
		}
		if v.Start.After(back) {
			n++
		}
	}
	if n == 0 {
		t.Error("no request after Redis answered again")
	}
}

// No process starves: one with a long queue at an address gives it up
// within the hold once another waits for it, though its own queue is not
// done. (Without the hold, the waiter's one page comes after all 30 of
// the owner's, 90 s and more.)
func TestOwnerGivesUpWithinTheHold(t *testing.T) {
	const hold = 10 * time.Second
	srv := redistest.Start(t)
	fc := startFarm(t, 1, 0)
	var long []string
	for p := range 30 {
		long = append(long, fc.url(0, fmt.Sprintf("/page%d", p)))
	}
	owner := startFetcher(t, srv.Addr(), fc, long, faultTimeout, holdEnv+"="+hold.String())
	fc.awaitSeen(t, 3) // robots.txt and two pages: the owner holds the address
	asked := time.Now()
	waiter := startFetcher(t, srv.Addr(), fc, []string{fc.url(0, "/wanted")}, faultTimeout, holdEnv+"="+hold.String())
	answered(t, waiter.wait(t), []string{fc.url(0, "/wanted")})
	owner.cmd.Process.Kill()
	vs := fc.visits(t)
	report(t, vs)
	for _, v := range vs {
		if v.Path != "/wanted" {
			continue
		}
		// The hold, counted from the owner's claim, then the rest after
		// its last request, and a second for the processes to hear.
		if wait := v.Start.Sub(asked); wait > hold+polite.MinRest+time.Second {
			t.Errorf("the waiting process's page came %v after it asked, want within the hold (%v) and a rest", wait, hold)
		}
		return
	}
	t.Error("the waiting process's page never reached the farm")
}

// outage stops (a server), waits d, starts it again, then waits for every
// process and checks the whole run as the farm saw it: no overlap, no gap
// below the floor, every URL answered. It returns the visits and when the
// outage began and ended.
func outage(t *testing.T, fc *farmChild, ps []*fetcherChild, urls []string, stop, start func(), d time.Duration) (vs []politetest.Visit, from, to time.Time) {
	t.Helper()
	stop()
	from = time.Now()
	time.Sleep(d) // the outage itself, not a rule's wait
	to = time.Now()
	start()
	for _, p := range ps {
		answered(t, p.wait(t), urls)
	}
	vs = fc.visits(t)
	report(t, vs)
	return vs, from, to
}
