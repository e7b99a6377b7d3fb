package schedule

import (
	"net/netip"
	"time"

	"github.com/politecrawler/polite/internal/robotstxt"
)

// Store work runs outside the scheduler's lock (R1.2): a Store may take
// milliseconds a call (an fsync, a disk, a network), and every worker
// needs that lock between two requests. What the scheduler needs from the
// Store, it asks as a job, handed to a pool of store workers of its own,
// apart from the request workers, and it goes on meanwhile: the URLs the
// answer concerns wait, as they wait for a lookup. Six kinds:
//
//   - a new host's record (R3.3, R2.6) and its rest from an earlier run
//     (R1.4), before it is looked up: a host cooling off is never looked
//     up;
//   - a new budget's rest from an earlier run (R1.4), before its first
//     request;
//   - the rests responses set, written for later runs (R1.4), by one job
//     at a time, each budget waiting for the write of its rest (rests.go);
//   - a new origin's robots.txt copy (R5.3), read and parsed, before its
//     pages are checked;
//   - the validators of a queued page's stored copy (R6.1), while its
//     budget rests: the request that follows is not delayed by the load;
//   - a stop, written for later runs (R3.4, R3.3). Close waits for it,
//     and for a rest's write.
//
// A page's copy is saved, and a robots.txt answer kept, by the request
// worker after the response has ended, off the lock too: a Result
// delivered is a stored page.

// StoreJob is work for a store worker; exactly one of its kinds is set.
type StoreJob struct {
	host   *host
	origin *origin
	page   *Task
	url    string // page's URL when the job was made: its copy is of that URL
	stop   *StopRecord
	budget *Budget    // whose rest is asked
	rests  *restBatch // to write: filled as the job is handed out
}

// Host is the name whose record is asked; "" for another kind.
func (j StoreJob) Host() string {
	if j.host == nil {
		return ""
	}
	return j.host.name
}

// Origin is the origin key whose robots.txt copy is asked; "" for another kind.
func (j StoreJob) Origin() string {
	if j.origin == nil {
		return ""
	}
	return j.origin.key
}

// Page is the URL whose stored copy's validators are asked; "" for another kind.
func (j StoreJob) Page() string {
	if j.page == nil {
		return ""
	}
	return j.url
}

// Stop is the stop to keep for later runs; nil for another kind.
func (j StoreJob) Stop() *StopRecord { return j.stop }

// Addr is the server address whose rest is asked; the zero Addr for
// another kind.
func (j StoreJob) Addr() netip.Addr {
	if j.budget == nil {
		return netip.Addr{}
	}
	return j.budget.addr
}

// Rests are the rests to keep for later runs, all in one call; nil for
// another kind.
func (j StoreJob) Rests() []RestRecord {
	if j.rests == nil {
		return nil
	}
	return j.rests.rests
}

// StopRecord is a stop to keep for later runs (R3.3, R3.4).
type StopRecord struct {
	Host  string
	Cause error
	At    time.Time
}

// StoreAnswer is what a store job found, in the scheduler's terms.
type StoreAnswer struct {
	Job   StoreJob
	Found bool
	Err   error
	Host  HostRecord // of a host's record
	// Robots is a robots.txt copy: its rules, parsed by the store
	// worker, when it was fetched, and its validators.
	Robots RobotsCopy
	Page   PageCopy // of a page's copy
	// Rest is the rest an earlier run left a host or an address, when
	// HasRest (R1.4).
	Rest    RestRecord
	HasRest bool
}

// HostRecord is what an earlier run learned of a host (R3.3, R2.6).
type HostRecord struct {
	Stops        int
	CoolOffUntil time.Time
	LastReason   string
}

// RobotsCopy is a stored robots.txt copy, parsed (R5.3).
type RobotsCopy struct {
	Rules          *robotstxt.File
	Fetched        time.Time
	ETag, Modified string
}

// PageCopy is what a request needs of a page's stored copy: whether there
// is one, and its validators (R6.1).
type PageCopy struct {
	Have                         bool
	IfNoneMatch, IfModifiedSince string
}

// copyState says how far the stored copy of a queued page is known.
type copyState uint8

const (
	copyUnknown copyState = iota // not asked: the request loads it itself
	copyAsked                    // a store job is loading it
	copyKnown                    // in taskRare: the request uses it
)

// storeWorkers bounds the store workers: a Store is a disk or a server
// of its own, asked by a small pool however many requests are in flight
// (BenchmarkSlowStore: 64 keep pace with 2,000 hosts at 50 ms a call).
const storeWorkers = 64

// StoreWorkers is how many store jobs run at once. Each is a goroutine
// waiting for the Store most of its life; the count bounds the Store's
// concurrent calls from the scheduler: MaxInFlight, up to storeWorkers.
func (s *Scheduler) StoreWorkers() int { return min(s.cfg.MaxInFlight, storeWorkers) }

// askStore queues a store job; dispatch hands it out.
func (s *Scheduler) askStore(j StoreJob) {
	s.storeWork = append(s.storeWork, j)
}

// dispatchStore hands out store jobs while store workers are free.
func (s *Scheduler) dispatchStore() {
	for s.storeRunning < s.StoreWorkers() && len(s.storeWork) > 0 {
		s.storeJobs <- s.takeStore() // never blocks: the channel holds StoreWorkers jobs
	}
}

// takeStore takes the first store job waiting and counts it running.
func (s *Scheduler) takeStore() StoreJob {
	j := s.storeWork[0]
	s.storeWork[0] = StoreJob{}
	s.storeWork = s.storeWork[1:]
	s.storeRunning++
	if j.rests != nil {
		s.takeRests(j.rests)
	}
	return j
}

// StoreDone takes a store job's answer and returns the worker's next
// store job, if one waits.
func (s *Scheduler) StoreDone(a *StoreAnswer) (StoreJob, bool) {
	s.mu.Lock()
	s.storeRunning--
	switch j := a.Job; {
	case j.rests != nil:
		s.restsSaved(j.rests, a)
	case j.budget != nil:
		s.restRecalled(j.budget, a)
	case j.host != nil:
		s.hostRecalled(j.host, a)
	case j.origin != nil:
		s.robotsRecalled(j.origin, a)
	case j.page != nil:
		s.copyRecalled(j.page, j.url, a)
	case j.stop != nil && a.Err != nil:
		s.cfg.Logger.Warn("polite: store: keeping a stop", "host", j.stop.Host, "err", a.Err)
	}
	var next StoreJob
	ok := len(s.storeWork) > 0
	if ok {
		next = s.takeStore()
	}
	s.mu.Unlock()
	// The answer may have queued lookups or requests, made a budget due,
	// or left the run idle or closed: the dispatcher looks again.
	s.Poke()
	return next, ok
}

// storeIdle reports whether no store job waits or runs.
func (s *Scheduler) storeIdle() bool { return s.storeRunning == 0 && len(s.storeWork) == 0 }

// closeStoreWork answers, at Close, what waits for a store job not yet
// handed out. Stops are still written.
func (s *Scheduler) closeStoreWork() {
	kept := s.storeWork[:0]
	for _, j := range s.storeWork {
		switch {
		case j.stop != nil, j.rests != nil:
			kept = append(kept, j)
		case j.budget != nil:
			j.budget.recall = false // close answers what waits at it
		case j.host != nil:
			j.host.resolving = false
			s.endWaiting(j.host, ErrClosed)
		case j.origin != nil:
			j.origin.recalling = false
			waiting := j.origin.waiting
			j.origin.waiting = nil
			s.turnAwayAll(waiting, ErrClosed)
		}
	}
	clear(s.storeWork[len(kept):])
	s.storeWork = kept
}

// endWaiting answers with err every task waiting for a host's lookup or
// record.
func (s *Scheduler) endWaiting(h *host, err error) {
	waiting := h.waiting
	h.waiting = nil
	s.turnAwayAll(waiting, err)
}

// askCopy asks the Store for the copy of the page first in a budget's
// queue, when the budget is to rest first: the load is done by the time
// the request is due. A page due now loads it itself.
func (s *Scheduler) askCopy(b *Budget) {
	t := b.queue[b.head]
	if !s.cfg.PageCopies || t.robots != nil || !b.nextAt.After(s.clk.Now()) {
		return
	}
	if t.rare == nil {
		t.rare = &taskRare{}
	}
	if t.rare.copy != copyUnknown {
		return
	}
	t.rare.copy = copyAsked
	s.askStore(StoreJob{page: t, url: t.URL()})
}

// takeCopy is called as a page's request is handed out; it reports
// whether the request must load the page's copy itself. An answer that
// comes after this is dropped: the request may be reading taskRare.
func (s *Scheduler) takeCopy(t *Task) bool {
	if t.rare == nil || t.rare.copy != copyKnown {
		if t.rare != nil {
			t.rare.copy = copyUnknown
		}
		return s.cfg.PageCopies
	}
	return false
}

// copyRecalled keeps what the Store said of a queued page's copy, unless
// its request has been handed out or it has moved to another URL.
func (s *Scheduler) copyRecalled(t *Task, url string, a *StoreAnswer) {
	if t.rare == nil || t.rare.copy != copyAsked || t.URL() != url {
		return
	}
	if a.Err != nil {
		s.cfg.Logger.Warn("polite: store: loading a page copy", "url", url, "err", a.Err)
		t.rare.copy = copyUnknown // the request tries again
		return
	}
	t.rare.copy = copyKnown
	t.rare.haveCopy = a.Page.Have
	t.rare.ifNoneMatch, t.rare.ifModifiedSince = a.Page.IfNoneMatch, a.Page.IfModifiedSince
}
