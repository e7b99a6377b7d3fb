// Package schedule keeps R1 and R2: one request in flight per budget (a
// server address), many budgets in parallel, each resting after a
// response. It holds the budgets and their due heap, the host lookups, the
// robots.txt gate, stops and parks, the forgetting of idle hosts and the
// store jobs; it decides, and the fetcher around it acts (Root) and speaks
// in public terms. It makes no request itself: no net/http here.
package schedule

import (
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/politecrawler/polite/internal/clock"
	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/robotstxt"
	"github.com/politecrawler/polite/internal/urltrap"
)

// Config is what the scheduler is told, settled by the fetcher: plain values.
type Config struct {
	Clock  clock.Clock
	OnIdle func(time.Time) // called when only the passing of time moves the run on
	Rand   func() float64  // the backoff's jitter, uniform in [0, 1)
	// HoldFetches keeps every request queued (lookups still run).
	HoldFetches bool
	// IdleConnLife is how long, in real time, the transport keeps a
	// connection idle before it closes it (forget.go).
	IdleConnLife time.Duration
	// OnHeld is called, with the lock held, when the reader is behind.
	OnHeld func()
	// MaxInFlight caps the jobs (requests and lookups) running at once.
	MaxInFlight int
	// CPU, when set, holds the requests in flight down while the CPU is
	// short (cpu.go).
	CPU            CPUGauge
	Pacing         pacing.Policy // the web floor and duration factor (R2.1, R2.2)
	APIFloor       time.Duration // a documented API's floor when above 1 s: the caller's MinRest (R2.1)
	MaxBackoff     time.Duration // R2.5's cap
	Horizon        time.Duration // a Retry-After beyond it parks (R2.4)
	Retries        int           // tries again of a transient failure (R11.3)
	FailuresToStop int           // failures in a row that stop a host (R3.2)
	Agent          string        // the product token robots.txt is read for (R4.4)
	// Policy says what the Config says of a host name.
	Policy func(name string) Policy
	// KeepRests says there is a store for rests (R1.4, rests.go).
	KeepRests bool
	// RecallHosts, RecallRobots and PageCopies say which stores there are.
	RecallHosts, RecallRobots, PageCopies bool
	Logger                                *slog.Logger
	Traps                                 urltrap.Limits
}

// Root is the fetcher around the scheduler: what it does on the
// scheduler's word, and the public errors it makes of the scheduler's
// outcomes. Every method is called with the scheduler's lock held.
type Root interface {
	// Deliver gives a page its one answer (R11.1).
	Deliver(t *Task, e End)
	// Observed reports a request that ended (Config.OnRequest).
	Observed(c *Completion, gap time.Duration, first bool, rest pacing.Rest)
	// Stopped is the error of a URL of a host stopped for cause (R3).
	Stopped(host string, cause error) error
	// Parked is the error of a URL of an address parked until then (R2.4).
	Parked(host string, until time.Time) error
	// Disallowed is the error of a URL robots.txt disallows (R5.4).
	Disallowed(url, agent string, d robotstxt.Decision) error
	// Trapped is the error of a URL dropped as a trap (R9).
	Trapped(url string, kind urltrap.Kind, reason string) error
	// Silent is the error of a robots.txt answer that says nothing of its rules.
	Silent(c *Completion) error
	// LogStop logs a stop with its evidence (R3.4), and says its kind and
	// whether it is kept for later runs (R3.3).
	LogStop(host string, cause error, at time.Time, failures int) (kind string, keep bool)
	// ReaderBehind reports whether Config.MaxUnread Results wait unread.
	ReaderBehind() bool
	// Transport is the one a request handed out now goes through.
	Transport() any
	// FreshTransport replaces the transport by one with no connections.
	FreshTransport()
	// HoldAdds keeps Add out while idle hosts are forgotten; ReleaseAdds lets it in.
	HoldAdds()
	// ReleaseAdds ends HoldAdds.
	ReleaseAdds()
	// ForgetAdded forgets the URLs added for a host (R9's duplicates).
	ForgetAdded(host string)
	// Literal reports whether a host name is an IP address, and which.
	Literal(name string) (netip.Addr, bool)
	// Start runs a job handed out on a goroutine of its own, which
	// reports it (Report) and runs what Report hands it next.
	Start(j Job)
}

// event is a message to the dispatcher; exactly one field is set.
type event struct {
	add      *Task           // accepted by Add
	hostName string          // the host of add, lower-case
	close    bool            // Close was called
	query    chan<- Snapshot // Stats was called
}

// Scheduler is the scheduling state and its dispatcher. Its model: a
// budget per server address (R1.1) holds its hosts' queued tasks and is
// due when its rest ends (R2); the due heap orders the budgets, and a
// budget with a job out is off the heap until the job is reported, so at
// most one request is in flight per address.
//
// Goroutines: the dispatcher (Run) takes Add's URLs from an inbox, sleeps
// on one timer until the earliest budget is due, and hands each job due to
// a goroutine of its own (Root.Start) while MaxInFlight and the CPU's
// ceiling have room (inflight.go, cpu.go). A goroutine that ends a job
// reports it itself (Report), under mu, and takes the next job due at once
// or ends. Report is where a response is acted on (complete.go): its rest,
// from internal/pacing's RestAfter and BackoffAfter, re-arms the budget,
// and a refusal, failures in a row or a far Retry-After stop or park it
// (stop.go). No goroutine per host or URL waiting, and no polling.
//
// Locks, always taken in this order: mu, which guards all scheduling
// state; the root's Add lock (Root.HoldAdds, taken under mu only to forget
// idle hosts); inboxMu, which guards the inbox and is taken by Add with
// the Add lock held. No goroutine holding inboxMu takes another lock.
type Scheduler struct {
	// mu guards the scheduling state: every field up to inboxMu.
	mu      sync.Mutex
	cfg     Config
	root    Root
	clk     clock.Clock
	hosts   map[string]*host
	origins map[string]*origin
	budgets map[netip.Addr]*Budget
	due     dueQueue
	lookups []*host // hosts waiting for a worker to resolve them
	// relookups are hosts whose lookup failed for a moment, waiting to
	// be tried again (R5.2).
	relookups lookupRetries
	// moves are hosts whose address changed while a request was in
	// flight at their old one: they move when it ends.
	moves   map[*Budget][]pendingMove
	running int // jobs handed out (Root.Start) and not yet reported
	// ceiling bounds the requests in flight while the CPU is short (cpu.go).
	ceiling int
	// ceilingHeld is set when the ceiling held a request back, and
	// startedHeld when it held one of a budget that had started (cpu.go).
	ceilingHeld, startedHeld bool
	// started counts the requests in flight that started in each of the
	// gauge's last windows; window counts the windows, the current one
	// at started[window%startWindows] (cpu.go).
	started [startWindows]int
	window  uint64
	// quiet counts the gauge's windows since the CPU was last short, up
	// to startWindows (cpu.go).
	quiet int
	// firstStarts counts the first requests of budgets started in the
	// gauge's current window, and meanDuration is the requests' mean
	// duration, that paces them (firststarts.go).
	firstStarts  int
	meanDuration time.Duration
	// cpuTimed: the dispatcher's CPU timer runs, to heed the gauge's
	// next window though no job ends meanwhile. A worker whose job the
	// ceiling held back while it did not wakes the dispatcher to set it.
	cpuTimed bool
	// storeWork is the store jobs waiting for a store worker, and
	// storeRunning those handed out and not yet answered (store.go).
	storeWork    []StoreJob
	storeRunning int
	storeJobs    chan StoreJob
	// hostRests are the rests earlier runs left hosts not yet given a
	// budget; restWork the rests to write, and restJob says a store job
	// to write them is queued or running (rests.go).
	hostRests map[*host]RestRecord
	restWork  restBatch
	restJob   bool
	// parked are the budgets parked by a Retry-After beyond the horizon,
	// until a snapshot finds their time over.
	parked  []*Budget
	closing bool
	// wakeAt is when the dispatcher's timer fires; zero when it is not
	// set. A worker that leaves a budget due sooner wakes the dispatcher.
	wakeAt time.Time
	counts runStats
	traps  *urltrap.Tracker
	// idle are hosts that had no URL left, oldest first from idleHead;
	// stoppedNames keep the stops of hosts forgotten (forget.go).
	idle         []idleHost
	idleHead     int
	stoppedNames map[string]error
	// forgottenSinceRenewal counts the hosts forgotten since the last
	// fresh transport (forget.go).
	forgottenSinceRenewal int

	inboxMu sync.Mutex // guards inbox, spare and closed
	inbox   []event
	spare   []event
	closed  bool
	wake    chan struct{}

	final Snapshot // the snapshot at the dispatcher's end, for Stats after Close
}

// New returns a scheduler for cfg acting through root; Run starts it.
func New(cfg Config, root Root) *Scheduler {
	s := &Scheduler{
		cfg:     cfg,
		root:    root,
		clk:     cfg.Clock,
		hosts:   make(map[string]*host),
		origins: make(map[string]*origin),
		budgets: make(map[netip.Addr]*Budget),
		wake:    make(chan struct{}, 1),
		traps:   urltrap.NewTracker(cfg.Traps),
		ceiling: minInFlight,
		quiet:   startWindows, // the CPU has not been short
	}
	s.storeJobs = make(chan StoreJob, s.StoreWorkers())
	return s
}

// StoreJobs are the store jobs handed to the store workers; closed at the end.
func (s *Scheduler) StoreJobs() <-chan StoreJob { return s.storeJobs }

// Add hands an accepted URL to the dispatcher; false once Close was posted.
func (s *Scheduler) Add(t *Task, hostName string) bool {
	return s.post(event{add: t, hostName: hostName})
}

// Close tells the dispatcher to end the run; false when it was told already.
func (s *Scheduler) Close() bool { return s.post(event{close: true}) }

// post hands an event to the dispatcher. Adds and Close are refused once
// Close has been posted.
func (s *Scheduler) post(ev event) bool {
	s.inboxMu.Lock()
	if s.closed && (ev.add != nil || ev.close) {
		s.inboxMu.Unlock()
		return false
	}
	if ev.close {
		s.closed = true
	}
	s.inbox = append(s.inbox, ev)
	s.inboxMu.Unlock()
	s.Poke()
	return true
}

// ClosedToAdds reports whether Close has been posted.
func (s *Scheduler) ClosedToAdds() bool {
	s.inboxMu.Lock()
	defer s.inboxMu.Unlock()
	return s.closed
}

// Poke wakes the dispatcher, or leaves it a note if it is awake.
func (s *Scheduler) Poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Query asks the dispatcher for a snapshot; false once it has ended.
func (s *Scheduler) Query(reply chan<- Snapshot) bool {
	s.inboxMu.Lock()
	if s.closed {
		s.inboxMu.Unlock()
		return false
	}
	s.inbox = append(s.inbox, event{query: reply})
	s.inboxMu.Unlock()
	s.Poke()
	return true
}

// Final is the snapshot taken as the dispatcher ended; read it after Run returned.
func (s *Scheduler) Final() Snapshot { return s.final }

func (s *Scheduler) take() []event {
	s.inboxMu.Lock()
	evs := s.inbox
	s.inbox = s.spare[:0]
	s.inboxMu.Unlock()
	return evs
}

func (s *Scheduler) inboxEmpty() bool {
	s.inboxMu.Lock()
	defer s.inboxMu.Unlock()
	return len(s.inbox) == 0
}

// Run is the dispatcher. It returns, after closing the store jobs'
// channel, once Close was posted and every job handed out has been
// reported.
func (s *Scheduler) Run() {
	timer := s.clk.NewTimer(time.Hour)
	timer.Stop()
	// cpuTimer wakes the dispatcher, on the wall clock, while the CPU's
	// ceiling holds a request back: the gauge's next window may let it
	// grow though no request ends meanwhile (cpu.go).
	cpuTimer := time.NewTimer(time.Hour)
	cpuTimer.Stop()
	for {
		evs := s.take()
		s.mu.Lock()
		for i := range evs {
			s.handle(evs[i])
			evs[i] = event{}
		}
		s.recycle(evs)
		if s.closing && s.running == 0 && s.storeIdle() {
			s.final = s.snapshot()
			close(s.storeJobs)
			s.mu.Unlock()
			return
		}
		now := s.clk.Now()
		s.dueLookups(now)
		s.forgetIdle(now)
		s.dispatch(now)
		s.dispatchStore()
		next, ok := s.nextWake()
		s.wakeAt = time.Time{}
		if ok {
			s.wakeAt = next
		}
		idle := s.running == 0 && s.storeIdle()
		held := s.ceilingHeld
		s.cpuTimed = held
		s.mu.Unlock()

		var cpuTick <-chan time.Time
		if held {
			cpuTimer.Reset(cpuWindow)
			cpuTick = cpuTimer.C
		}
		var tick <-chan time.Time
		if ok {
			// The clock is read again: it may have moved since now (a
			// fake one moves while requests are in flight), and the
			// timer must fire at next, as wakeAt says.
			timer.Reset(next.Sub(s.clk.Now()))
			tick = timer.C()
			if s.cfg.OnIdle != nil && idle && s.inboxEmpty() {
				s.cfg.OnIdle(next)
			}
		}
		select {
		case <-s.wake:
		case <-tick:
		case <-cpuTick:
		}
		timer.Stop()
		cpuTimer.Stop()
	}
}

// readerBehind reports whether Config.MaxUnread Results wait unread: no
// request starts until the reader makes room, and its take wakes the
// dispatcher. The time does not matter meanwhile, so the dispatcher sets
// no timer for a budget due.
func (s *Scheduler) readerBehind() bool {
	if !s.root.ReaderBehind() {
		return false
	}
	if s.cfg.OnHeld != nil {
		s.cfg.OnHeld()
	}
	return true
}

// recycle keeps the inbox's emptied buffer for the next batch.
func (s *Scheduler) recycle(evs []event) {
	s.inboxMu.Lock()
	s.spare = evs[:0]
	if cap(evs) > 4096 {
		s.spare = nil // a burst of Adds: let its buffer go
	}
	s.inboxMu.Unlock()
}

// nextWake is when the dispatcher must look again without news: the
// earliest budget due, while there is room for it (inflight.go), or the
// earliest lookup to try again.
func (s *Scheduler) nextWake() (time.Time, bool) {
	var next time.Time
	ok := false
	if b, some := s.due.first(); some && s.running < s.cfg.MaxInFlight && s.roomToFetch(b) && !s.readerBehind() {
		next, ok = b.nextAt, true
	}
	if len(s.relookups) > 0 && (!ok || s.relookups[0].retryAt.Before(next)) {
		next, ok = s.relookups[0].retryAt, true
	}
	return next, ok
}

// Report takes what a job came to, a lookup's resolution or a request's
// completion, and returns the goroutine's next job when one is due now;
// without one, the goroutine ends. Either way it wakes the dispatcher if
// the dispatcher must look again: lookups wait, a budget is due before
// the dispatcher's timer or due now and not taken, the run may be idle
// (for the hooks), or Close waits for the last job.
func (s *Scheduler) Report(r *Resolution, c *Completion) (Job, bool) {
	s.mu.Lock()
	s.running--
	if r != nil {
		s.resolved(r)
	} else {
		s.completed(c)
	}
	// A store job the report made (a rest to write) goes out now, not at
	// the dispatcher's next turn.
	s.dispatchStore()
	now := s.clk.Now()
	j, ok := s.next(now)
	if ok {
		s.running++
	}
	// A job the CPU's ceiling held back needs the dispatcher's CPU timer:
	// when requests in flight take a minute, none ends to heed the gauge
	// before then, and the ceiling would stay where it is (R1.2).
	wake := s.closing || s.cfg.OnIdle != nil && s.running == 0 ||
		len(s.lookups) > 0 && s.running < s.cfg.MaxInFlight || len(s.storeWork) > 0 ||
		s.ceilingHeld && !s.cpuTimed
	// A budget due before the dispatcher's timer fires, or due now and
	// not taken, while the cap leaves room, needs the dispatcher.
	if next, due := s.nextWake(); due && (s.wakeAt.IsZero() || next.Before(s.wakeAt) || !next.After(now)) {
		wake = true
	}
	s.mu.Unlock()
	if wake {
		s.Poke()
	}
	return j, ok
}

func (s *Scheduler) handle(ev event) {
	switch {
	case ev.add != nil:
		s.counts.admitted++
		if tr, bad := s.trapped(ev.add, ev.hostName); bad {
			s.dropTrap(ev.add, tr)
			return
		}
		s.admit(ev.add, ev.hostName)
	case ev.query != nil:
		ev.query <- s.snapshot()
	case ev.close:
		s.close()
	}
}
