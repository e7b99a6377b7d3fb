package schedule

import (
	"net/netip"
	"time"

	"github.com/politecrawler/polite/internal/pacing"
)

// Job is work handed out to a goroutine of its own: a lookup or a request.
type Job struct {
	resolve *host
	fetch   *Task
	budget  *Budget
	// loadCopy says the request loads its page's stored copy itself: no
	// store job has made it known (store.go).
	loadCopy bool
	// transport is the one the request goes through, chosen when the job
	// is handed out: a request for an address a host has left never
	// shares a pool with the requests for its new one (see move).
	transport any
}

// Lookup is the name of the host a lookup job resolves; "" for a request.
func (j Job) Lookup() string {
	if j.resolve == nil {
		return ""
	}
	return j.resolve.name
}

// Resolution is what the lookup job came to: the addresses the fetcher
// may dial, the first keying the budget (R1.1), or why there are none.
func (j Job) Resolution(addrs []netip.Addr, err error) *Resolution {
	return &Resolution{host: j.resolve, addrs: addrs, err: err}
}

// Task is the task a request job asks for.
func (j Job) Task() *Task { return j.fetch }

// Budget is the budget a request job holds while it is in flight (R1.1).
func (j Job) Budget() *Budget { return j.budget }

// LoadCopy reports whether the request loads its page's stored copy itself.
func (j Job) LoadCopy() bool { return j.loadCopy }

// Floor is the floor of the rest after the request (R2.1): its budget's,
// raised for a host stopped in an earlier run (R2.6).
func (j Job) Floor() time.Duration { return j.budget.floor }

// CrawlDelay is the Crawl-delay that applies to the request's budget (R2.3).
func (j Job) CrawlDelay() time.Duration { return j.budget.crawlDelay }

// Transport is the transport chosen for the request as it was handed out.
func (j Job) Transport() any { return j.transport }

// admit puts a task in its host's budget, or with the host while its
// address is being looked up.
func (s *Scheduler) admit(t *Task, name string) {
	if s.closing {
		s.turnAway(t, ErrClosed)
		return
	}
	if cause, ok := s.stoppedNames[name]; ok { // stopped, and forgotten since
		s.turnAway(t, s.root.Stopped(name, cause))
		return
	}
	h := s.hosts[name]
	if h == nil {
		h = &host{name: name, policy: s.cfg.Policy(name), floorFactor: 1}
		s.hosts[name] = h
		switch a, literal := s.root.Literal(name); {
		case s.cfg.RecallHosts || s.cfg.KeepRests: // what an earlier run learned comes first
			s.recallHost(h)
		case literal:
			s.attach(h, a.Unmap())
		default:
			h.resolving = true
			s.lookups = append(s.lookups, h)
		}
	}
	s.assign(t, h)
	switch {
	case h.err != nil:
		s.turnAway(t, h.err)
	case h.stopped != nil:
		s.turnAway(t, s.root.Stopped(h.name, h.stopped))
	case h.resolving:
		h.waiting = append(h.waiting, t)
	default:
		s.gate(t)
	}
}

// attach gives a resolved host its budget: the one of its address, shared
// with every other host there (R1.1).
func (s *Scheduler) attach(h *host, a netip.Addr) {
	b := s.budgets[a]
	if b == nil {
		b = &Budget{addr: a, index: -1}
		s.budgets[a] = b
		s.recallRest(b) // an earlier run's rest of the address (R1.4)
	}
	// Hosts sharing an address share its rest: the longest Crawl-delay
	// among them applies to all, the more polite reading of R2.3.
	b.crawlDelay = max(b.crawlDelay, h.crawlDelay)
	floor := s.cfg.Pacing.Floor
	if h.policy.API {
		floor = max(apiFloor, s.cfg.APIFloor)
	}
	floor = pacing.Scale(floor, h.floorFactor)
	if b.floor == 0 || floor > b.floor {
		b.floor = floor
	}
	if h.budget != b {
		if h.budget != nil {
			h.budget.hosts--
		}
		b.hosts++
	}
	h.budget = b
	s.applyHostRest(h, b) // an earlier run's rest of the host (R1.4)
}

// enqueue puts a task at the back of its budget's queue.
func (s *Scheduler) enqueue(b *Budget, t *Task) {
	if s.refuse(b, t) {
		return
	}
	b.queue = append(b.queue, t)
	s.arm(b)
}

// enqueueFront puts a task first in its budget's queue: robots.txt goes
// before the pages that wait for it (R5.1).
func (s *Scheduler) enqueueFront(b *Budget, t *Task) {
	if s.refuse(b, t) {
		return
	}
	if b.head > 0 {
		b.head--
		b.queue[b.head] = t
	} else {
		b.queue = append(b.queue, nil)
		copy(b.queue[1:], b.queue)
		b.queue[0] = t
	}
	s.arm(b)
}

// refuse answers a task that its budget cannot take: closed or parked.
func (s *Scheduler) refuse(b *Budget, t *Task) bool {
	switch {
	case s.closing:
		s.turnAway(t, ErrClosed)
	case b.parkedUntil.After(s.clk.Now()):
		s.turnAway(t, s.root.Parked(t.host.name, b.parkedUntil))
	default:
		return false
	}
	return true
}

// arm puts an idle budget with work in the due heap.
func (s *Scheduler) arm(b *Budget) {
	if !b.busy && !b.recall && !b.saving && b.index < 0 && b.pending() > 0 {
		s.due.push(b)
		s.countNeed(b) // work that came after its last request ended
		s.askCopy(b)
	}
}

// dispatch hands out every job due, each to a goroutine of its own, in
// the order next takes them, while the cap leaves room: the due budgets,
// not a pool, say how many requests are in flight (R1.2).
func (s *Scheduler) dispatch(now time.Time) {
	for s.running < s.cfg.MaxInFlight {
		j, ok := s.next(now)
		if !ok {
			return
		}
		s.running++
		s.root.Start(j)
	}
	s.noteCap(now)
}

// noteCap logs, once a run, that the cap, not politeness, holds back work
// that is due: the user's MaxInFlight is what to raise (R1.2).
func (s *Scheduler) noteCap(now time.Time) {
	if s.counts.capNoted || s.running < s.cfg.MaxInFlight || s.cfg.HoldFetches || s.root.ReaderBehind() {
		return
	}
	if _, due := s.due.dueAt(now); len(s.lookups) == 0 && !due {
		return
	}
	s.counts.capNoted = true
	s.cfg.Logger.Warn("polite: MaxInFlight holds back requests that politeness allows",
		"in_flight", s.running, "max_in_flight", s.cfg.MaxInFlight, "need", s.need())
}

// next takes the next job due at now: a lookup first (it unblocks
// budgets), then the budget whose rest ended earliest, a started one
// before a fresh one (dueQueue).
func (s *Scheduler) next(now time.Time) (Job, bool) {
	if len(s.lookups) > 0 {
		h := s.lookups[0]
		s.lookups[0] = nil
		s.lookups = s.lookups[1:]
		return Job{resolve: h}, true
	}
	for {
		b, due := s.due.dueAt(now)
		if !due || s.cfg.HoldFetches || !s.roomToFetch(b) || s.readerBehind() {
			break
		}
		s.due.remove(b)
		// A documented API's own rate, when stricter than the rest,
		// holds the budget a little longer (R5.5).
		if lim := b.queue[b.head].host.policy.Limiter; lim != nil {
			res := lim.ReserveN(now, 1)
			if d := res.DelayFrom(now); d > 0 {
				res.CancelAt(now)
				b.nextAt = now.Add(d)
				s.due.push(b)
				continue
			}
		}
		t := b.pop()
		if t.robots == nil {
			// A pattern found repeating while this URL waited is not asked.
			if pattern, bad := s.traps.Dropped(t.host.name, t.URL()); bad {
				s.dropTrap(t, repeated(t.URL(), pattern))
				s.arm(b)
				continue
			}
		}
		b.busy, b.coordWait = true, false
		// Read by the worker. A robots.txt request has its origin's held
		// pages behind it, to follow after its rest.
		b.conn.Drained = b.pending() == 0 && (t.robots == nil || len(t.robots.waiting) == 0)
		s.counts.fetching++
		s.countStart(b)
		j := Job{fetch: t, budget: b, transport: s.root.Transport()}
		if t.robots == nil {
			s.counts.pagesInFlight++
			j.loadCopy = s.takeCopy(t)
		}
		return j, true
	}
	return Job{}, false
}
