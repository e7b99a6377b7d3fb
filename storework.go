package polite

import "time"

// Store work runs outside the scheduler's lock (R1.2): a Store may take
// milliseconds a call (an fsync, a disk, a network), and every worker
// needs that lock between two requests. What the scheduler needs from the
// Store, it asks as a job, handed to a pool of store workers of its own,
// apart from the request workers, and it goes on meanwhile: the URLs the
// answer concerns wait, as they wait for a lookup. Four kinds:
//
//   - a new host's record (R3.3, R2.6), before it is looked up: a host
//     cooling off is never looked up;
//   - a new origin's robots.txt copy (R5.3), read and parsed, before its
//     pages are checked;
//   - the validators of a queued page's stored copy (R6.1), while its
//     budget rests: the request that follows is not delayed by the load;
//   - a stop, written for later runs (R3.4, R3.3). Close waits for it.
//
// A page's copy is saved, and a robots.txt answer kept, by the request
// worker after the response has ended, off the lock too: a Result
// delivered is a stored page.

// storeJob is work for a store worker; exactly one field is set.
type storeJob struct {
	host   *host
	origin *origin
	page   *task
	url    string // page's URL when the job was made: its copy is of that URL
	stop   *stopRecord
}

// stopRecord is a stop to keep for later runs.
type stopRecord struct {
	host  string
	cause error
	at    time.Time
}

// storeAnswer is what a store job found.
type storeAnswer struct {
	job    storeJob
	host   HostRecord
	robots StoredRobots
	rules  *Robots // robots's, parsed by the store worker
	page   pageCopy
	found  bool
	err    error
}

// pageCopy is what a request needs of a page's stored copy: whether there
// is one, and its validators.
type pageCopy struct {
	have                         bool
	ifNoneMatch, ifModifiedSince string
}

// copyState says how far the stored copy of a queued page is known.
type copyState uint8

const (
	copyUnknown copyState = iota // not asked: the request loads it itself
	copyAsked                    // a store job is loading it
	copyKnown                    // in taskRare: the request uses it
)

// storeWorkers is how many store jobs run at once. Each is a goroutine
// waiting for the Store most of its life; the count bounds the Store's
// concurrent calls from the scheduler.
func (s *scheduler) storeWorkers() int { return s.f.set.maxInFlight }

// askStore queues a store job; dispatch hands it out.
func (s *scheduler) askStore(j storeJob) {
	s.storeWork = append(s.storeWork, j)
}

// dispatchStore hands out store jobs while store workers are free.
func (s *scheduler) dispatchStore() {
	for s.storeRunning < s.storeWorkers() && len(s.storeWork) > 0 {
		s.storeJobs <- s.takeStore() // never blocks: the channel holds storeWorkers jobs
	}
}

// takeStore takes the first store job waiting and counts it running.
func (s *scheduler) takeStore() storeJob {
	j := s.storeWork[0]
	s.storeWork[0] = storeJob{}
	s.storeWork = s.storeWork[1:]
	s.storeRunning++
	return j
}

// storeDone takes a store job's answer and returns the worker's next
// store job, if one waits.
func (s *scheduler) storeDone(a *storeAnswer) (storeJob, bool) {
	s.mu.Lock()
	s.storeRunning--
	switch j := a.job; {
	case j.host != nil:
		s.hostRecalled(j.host, a)
	case j.origin != nil:
		s.robotsRecalled(j.origin, a)
	case j.page != nil:
		s.copyRecalled(j.page, j.url, a)
	case j.stop != nil && a.err != nil:
		s.f.set.logger.Warn("polite: store: keeping a stop", "host", j.stop.host, "err", a.err)
	}
	var next storeJob
	ok := len(s.storeWork) > 0
	if ok {
		next = s.takeStore()
	}
	s.mu.Unlock()
	// The answer may have queued lookups or requests, made a budget due,
	// or left the run idle or closed: the dispatcher looks again.
	s.poke()
	return next, ok
}

// storeIdle reports whether no store job waits or runs.
func (s *scheduler) storeIdle() bool { return s.storeRunning == 0 && len(s.storeWork) == 0 }

// closeStoreWork answers, at Close, what waits for a store job not yet
// handed out. Stops are still written.
func (s *scheduler) closeStoreWork() {
	kept := s.storeWork[:0]
	for _, j := range s.storeWork {
		switch {
		case j.stop != nil:
			kept = append(kept, j)
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
func (s *scheduler) endWaiting(h *host, err error) {
	waiting := h.waiting
	h.waiting = nil
	s.turnAwayAll(waiting, err)
}

// workStore is one store worker.
func (f *Fetcher) workStore() {
	defer f.workers.Done()
	for j := range f.sched.storeJobs {
		for more := true; more; {
			j, more = f.sched.storeDone(f.doStore(j))
		}
	}
}

// doStore runs one store job, without the scheduler's lock.
func (f *Fetcher) doStore(j storeJob) *storeAnswer {
	a := &storeAnswer{job: j}
	switch {
	case j.host != nil:
		a.host, a.found, a.err = f.set.hosts.LoadHost(j.host.name)
	case j.origin != nil:
		a.robots, a.found, a.err = f.set.robotsStore.LoadRobots(j.origin.key)
		if a.err == nil && a.found {
			body := a.robots.Body
			if a.robots.Status < 200 || a.robots.Status > 299 {
				body = nil // a 4xx was kept: no robots.txt, everything allowed
			}
			a.rules = ParseRobots(body)
		}
	case j.page != nil:
		var p StoredPage
		p, a.found, a.err = f.set.pages.LoadPage(j.url)
		if a.found {
			a.page = pageCopy{have: true, ifNoneMatch: p.Header.Get("ETag"), ifModifiedSince: p.Header.Get("Last-Modified")}
		}
	case j.stop != nil:
		a.err = f.keepStop(j.stop)
	}
	return a
}

// askCopy asks the Store for the copy of the page first in a budget's
// queue, when the budget is to rest first: the load is done by the time
// the request is due. A page due now loads it itself.
func (s *scheduler) askCopy(b *budget) {
	t := b.queue[b.head]
	if s.f.set.pages == nil || t.robots != nil || !b.nextAt.After(s.clk.Now()) {
		return
	}
	if t.rare == nil {
		t.rare = &taskRare{}
	}
	if t.rare.copy != copyUnknown {
		return
	}
	t.rare.copy = copyAsked
	s.askStore(storeJob{page: t, url: t.url()})
}

// takeCopy is called as a page's request is handed out; it reports
// whether the request must load the page's copy itself. An answer that
// comes after this is dropped: the request may be reading taskRare.
func (s *scheduler) takeCopy(t *task) bool {
	if t.rare == nil || t.rare.copy != copyKnown {
		if t.rare != nil {
			t.rare.copy = copyUnknown
		}
		return s.f.set.pages != nil
	}
	return false
}

// copyRecalled keeps what the Store said of a queued page's copy, unless
// its request has been handed out or it has moved to another URL.
func (s *scheduler) copyRecalled(t *task, url string, a *storeAnswer) {
	if t.rare == nil || t.rare.copy != copyAsked || t.url() != url {
		return
	}
	if a.err != nil {
		s.f.set.logger.Warn("polite: store: loading a page copy", "url", url, "err", a.err)
		t.rare.copy = copyUnknown // the request tries again
		return
	}
	t.rare.copy = copyKnown
	t.rare.haveCopy = a.page.have
	t.rare.ifNoneMatch, t.rare.ifModifiedSince = a.page.ifNoneMatch, a.page.ifModifiedSince
}
