package polite

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/politecrawler/polite/internal/clock"
	"github.com/politecrawler/polite/internal/netguard"
	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/urltrap"
)

// The scheduler keeps R1: one request in flight per budget, many budgets in
// parallel, each resting after a response as R2 says. A budget is a server
// address: every host that resolves to it shares it (R1.1).
//
// All scheduling state is guarded by one lock, mu. The dispatcher goroutine
// takes Add's URLs from an inbox, sleeps on one timer until the earliest
// budget is due, and hands work to a bounded pool of workers. A worker that
// ends a job reports it itself, under mu, and takes the next job that is
// due at once, if there is one: a busy run's requests follow one another
// on the workers without a hand-off through the dispatcher. No goroutine
// per host or URL, and no polling.

// event is a message to the dispatcher; exactly one field is set.
type event struct {
	add      *task        // accepted by Add
	hostName string       // the host of add, lower-case
	close    bool         // Close was called
	query    chan<- Stats // Stats was called
}

type resolution struct {
	host  *host
	addrs []netip.Addr // the addresses the fetcher may dial; the first keys the budget
	err   error
}

// completion is what a worker reports after one request.
type completion struct {
	task      *task
	budget    *budget
	status    int
	header    http.Header
	body      []byte
	truncated bool
	err       error
	start     time.Time
	end       time.Time   // the body was read or the request failed (R1.3)
	stored    *StoredPage // the copy a 304 confirmed (R6.2)
	page      *lazyPage
	signals   Signals
	bodyHash  uint64 // of a page's body, for the repeated-content trap (R9)
	// rules are a robots.txt 2xx answer's that is no challenge, parsed in
	// the worker: a long file is not parsed with the scheduler's lock held.
	rules *Robots
	// verdict is what the response meant (R3.5), judged in the worker:
	// challenge detection reads the body, outside the scheduler's lock.
	verdict Verdict
	// answer is what a robots.txt response says of the rules (R5.2).
	answer robotsAnswer
}

// job is work for a worker: a lookup or a request.
type job struct {
	resolve *host
	fetch   *task
	budget  *budget
	// loadCopy says the request loads its page's stored copy itself: no
	// store job has made it known (storework.go).
	loadCopy bool
	// transport is the one the request goes through, chosen when the job
	// is handed out: a request for an address a host has left never
	// shares a pool with the requests for its new one (see move).
	transport *http.Transport
}

type scheduler struct {
	// mu guards the scheduling state: every field up to inboxMu.
	mu      sync.Mutex
	f       *Fetcher
	clk     clock.Clock
	hooks   hooks
	hosts   map[string]*host
	origins map[string]*origin
	budgets map[netip.Addr]*budget
	due     dueHeap
	lookups []*host // hosts waiting for a worker to resolve them
	// relookups are hosts whose lookup failed for a moment, waiting to
	// be tried again (R5.2).
	relookups lookupRetries
	// moves are hosts whose address changed while a request was in
	// flight at their old one: they move when it ends.
	moves   map[*budget][]pendingMove
	running int // jobs handed to workers and not yet reported
	jobs    chan job
	// storeWork is the store jobs waiting for a store worker, and
	// storeRunning those handed out and not yet answered (storework.go).
	storeWork    []storeJob
	storeRunning int
	storeJobs    chan storeJob
	// parked are the budgets parked by a Retry-After beyond the horizon,
	// until Stats finds their time over.
	parked  []*budget
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

	final Stats // the snapshot at the dispatcher's end, for Stats after Close
}

func newScheduler(f *Fetcher, hk hooks) *scheduler {
	return &scheduler{
		f:         f,
		clk:       hk.clock,
		hooks:     hk,
		hosts:     make(map[string]*host),
		origins:   make(map[string]*origin),
		budgets:   make(map[netip.Addr]*budget),
		jobs:      make(chan job, f.set.maxInFlight),
		storeJobs: make(chan storeJob, f.set.maxInFlight),
		wake:      make(chan struct{}, 1),
		traps:     urltrap.NewTracker(trapLimits),
	}
}

// post hands an event to the dispatcher. Adds and Close are refused once
// Close has been posted.
func (s *scheduler) post(ev event) bool {
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
	s.poke()
	return true
}

// closedToAdds reports whether Close has been posted.
func (s *scheduler) closedToAdds() bool {
	s.inboxMu.Lock()
	defer s.inboxMu.Unlock()
	return s.closed
}

// poke wakes the dispatcher, or leaves it a note if it is awake.
func (s *scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// postQuery asks the dispatcher for a snapshot; false once it has ended.
func (s *scheduler) postQuery(reply chan<- Stats) bool {
	s.inboxMu.Lock()
	if s.closed {
		s.inboxMu.Unlock()
		return false
	}
	s.inbox = append(s.inbox, event{query: reply})
	s.inboxMu.Unlock()
	s.poke()
	return true
}

func (s *scheduler) take() []event {
	s.inboxMu.Lock()
	evs := s.inbox
	s.inbox = s.spare[:0]
	s.inboxMu.Unlock()
	return evs
}

func (s *scheduler) inboxEmpty() bool {
	s.inboxMu.Lock()
	defer s.inboxMu.Unlock()
	return len(s.inbox) == 0
}

// run is the dispatcher. It returns, after closing the job channel, once
// Close was posted and every job handed out has been reported.
func (s *scheduler) run() {
	timer := s.clk.NewTimer(time.Hour)
	timer.Stop()
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
			close(s.jobs)
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
		s.mu.Unlock()

		var tick <-chan time.Time
		if ok {
			// The clock is read again: it may have moved since now (a
			// fake one moves while requests are in flight), and the
			// timer must fire at next, as wakeAt says.
			timer.Reset(next.Sub(s.clk.Now()))
			tick = timer.C()
			if s.hooks.onIdle != nil && idle && s.inboxEmpty() {
				s.hooks.onIdle(next)
			}
		}
		select {
		case <-s.wake:
		case <-tick:
		}
		timer.Stop()
	}
}

// readerBehind reports whether Config.MaxUnread Results wait unread: no
// request starts until the reader makes room, and its take wakes the
// dispatcher. The time does not matter meanwhile, so the dispatcher sets
// no timer for a budget due.
func (s *scheduler) readerBehind() bool {
	if !s.f.results.full(s.f.set.maxUnread) {
		return false
	}
	if s.hooks.onHeld != nil {
		s.hooks.onHeld()
	}
	return true
}

// recycle keeps the inbox's emptied buffer for the next batch.
func (s *scheduler) recycle(evs []event) {
	s.inboxMu.Lock()
	s.spare = evs[:0]
	if cap(evs) > 4096 {
		s.spare = nil // a burst of Adds: let its buffer go
	}
	s.inboxMu.Unlock()
}

// nextWake is when the dispatcher must look again without news: the
// earliest budget due, while a worker is free, or the earliest lookup to
// try again.
func (s *scheduler) nextWake() (time.Time, bool) {
	var next time.Time
	ok := false
	if s.running < s.f.set.maxInFlight && len(s.due) > 0 && !s.readerBehind() {
		next, ok = s.due.first().nextAt, true
	}
	if len(s.relookups) > 0 && (!ok || s.relookups[0].retryAt.Before(next)) {
		next, ok = s.relookups[0].retryAt, true
	}
	return next, ok
}

// report takes what a worker's job came to, a lookup's resolution or a
// request's completion, and returns the worker's next job when one is due
// now. Either way it wakes the dispatcher if the dispatcher must look
// again: lookups wait, a budget is due before the dispatcher's timer or
// due now and not taken, the run may be idle (for the hooks), or Close
// waits for the last job.
func (s *scheduler) report(r *resolution, c *completion) (job, bool) {
	s.mu.Lock()
	s.running--
	if r != nil {
		s.resolved(r)
	} else {
		s.completed(c)
	}
	now := s.clk.Now()
	j, ok := s.next(now)
	if ok {
		s.running++
	}
	wake := s.closing || s.hooks.onIdle != nil && s.running == 0 ||
		len(s.lookups) > 0 && s.running < s.f.set.maxInFlight || len(s.storeWork) > 0
	// A budget due before the dispatcher's timer fires, or due now and
	// not taken, while a worker is free, needs the dispatcher.
	if next, due := s.nextWake(); due && (s.wakeAt.IsZero() || next.Before(s.wakeAt) || !next.After(now)) {
		wake = true
	}
	s.mu.Unlock()
	if wake {
		s.poke()
	}
	return j, ok
}

func (s *scheduler) handle(ev event) {
	switch {
	case ev.add != nil:
		s.counts.admitted++
		if e := s.trapped(ev.add, ev.hostName); e != nil {
			s.dropTrap(ev.add, e)
			return
		}
		s.admit(ev.add, ev.hostName)
	case ev.query != nil:
		ev.query <- s.snapshot()
	case ev.close:
		s.close()
	}
}

// admit puts a task in its host's budget, or with the host while its
// address is being looked up.
func (s *scheduler) admit(t *task, name string) {
	if s.closing {
		s.turnAway(t, ErrClosed)
		return
	}
	if cause, ok := s.stoppedNames[name]; ok { // stopped, and forgotten since
		s.turnAway(t, &StoppedError{Host: name, Cause: cause})
		return
	}
	h := s.hosts[name]
	if h == nil {
		h = &host{name: name, policy: s.f.set.policyFor(name), floorFactor: 1}
		s.hosts[name] = h
		switch a, literal := netguard.LiteralAddr(name); {
		case s.f.set.hosts != nil: // what an earlier run learned comes first
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
		s.turnAway(t, &StoppedError{Host: h.name, Cause: h.stopped})
	case h.resolving:
		h.waiting = append(h.waiting, t)
	default:
		s.gate(t)
	}
}

// attach gives a resolved host its budget: the one of its address, shared
// with every other host there (R1.1).
func (s *scheduler) attach(h *host, a netip.Addr) {
	b := s.budgets[a]
	if b == nil {
		b = &budget{addr: a, index: -1}
		s.budgets[a] = b
	}
	// Hosts sharing an address share its rest: the longest Crawl-delay
	// among them applies to all, the more polite reading of R2.3.
	b.crawlDelay = max(b.crawlDelay, h.crawlDelay)
	floor := s.f.set.pacing.Floor
	if h.policy.api {
		floor = apiFloor
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
}

// enqueue puts a task at the back of its budget's queue.
func (s *scheduler) enqueue(b *budget, t *task) {
	if s.refuse(b, t) {
		return
	}
	b.queue = append(b.queue, t)
	s.arm(b)
}

// enqueueFront puts a task first in its budget's queue: robots.txt goes
// before the pages that wait for it (R5.1).
func (s *scheduler) enqueueFront(b *budget, t *task) {
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
func (s *scheduler) refuse(b *budget, t *task) bool {
	switch {
	case s.closing:
		s.turnAway(t, ErrClosed)
	case b.parkedUntil.After(s.clk.Now()):
		s.turnAway(t, &ParkedError{Host: t.host.name, Until: b.parkedUntil})
	default:
		return false
	}
	return true
}

// arm puts an idle budget with work in the due heap.
func (s *scheduler) arm(b *budget) {
	if !b.busy && b.index < 0 && b.pending() > 0 {
		s.due.push(b)
		s.askCopy(b)
	}
}

// dispatch hands out work while workers are free, in the order next
// takes it.
func (s *scheduler) dispatch(now time.Time) {
	for s.running < s.f.set.maxInFlight {
		j, ok := s.next(now)
		if !ok {
			return
		}
		s.running++
		s.jobs <- j // never blocks: the channel holds maxInFlight jobs
	}
}

// next takes the next job due at now: a lookup first (it unblocks
// budgets), then the budget whose rest ended earliest.
func (s *scheduler) next(now time.Time) (job, bool) {
	if len(s.lookups) > 0 {
		h := s.lookups[0]
		s.lookups[0] = nil
		s.lookups = s.lookups[1:]
		return job{resolve: h}, true
	}
	for len(s.due) > 0 && !s.due.first().nextAt.After(now) && !s.hooks.holdFetches && !s.readerBehind() {
		b := s.due.pop()
		// A documented API's own rate, when stricter than the rest,
		// holds the budget a little longer (R5.5).
		if lim := b.queue[b.head].host.policy.limiter; lim != nil {
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
			if pattern, bad := s.traps.Dropped(t.host.name, t.url()); bad {
				s.dropTrap(t, &TrapError{URL: t.url(), Kind: TrapRepeatedContent, Reason: "pages like " + pattern + " repeat the same content"})
				s.arm(b)
				continue
			}
		}
		b.busy = true
		// Read by the worker (keepAlive). A robots.txt request has its
		// origin's held pages behind it, to follow after its rest.
		b.conn.drained = b.pending() == 0 && (t.robots == nil || len(t.robots.waiting) == 0)
		s.counts.fetching++
		j := job{fetch: t, budget: b, transport: s.f.transport.Load()}
		if t.robots == nil {
			s.counts.pagesInFlight++
			j.loadCopy = s.takeCopy(t)
		}
		return j, true
	}
	return job{}, false
}

func (s *scheduler) resolved(r *resolution) {
	h := r.host
	h.resolving = false
	waiting := h.waiting
	h.waiting = nil
	if r.err != nil {
		if s.lookupFailed(h, r.err, s.clk.Now()) {
			h.waiting = waiting // unreachable for now: the URLs wait (R5.2)
			return
		}
		if h.err == nil {
			h.err = r.err
		}
		s.turnAwayAll(waiting, h.err)
		if h.budget != nil { // a later lookup: what waits at its address ends too
			s.dropHost(h, h.err)
		}
		return
	}
	if h.stopped != nil { // stopped by a response while it was looked up again
		s.turnAwayAll(waiting, &StoppedError{Host: h.name, Cause: h.stopped})
		return
	}
	h.lookupFailures = 0
	switch old := h.budget; {
	case old == nil:
		h.resolvedAt = s.clk.Now()
		s.attach(h, r.addrs[0])
	case slices.Contains(r.addrs, old.addr):
		// Still one of its addresses: the host stays where it is, as
		// round-robin DNS answers in a new order each time.
		h.resolvedAt = s.clk.Now()
	case old.parkedUntil.After(s.clk.Now()):
		// Its server asked for a long wait (R2.4): the host waits it
		// out where it is, rather than be asked at once elsewhere, and is
		// looked up again once the wait is over.
		h.resolvedAt = old.parkedUntil.Add(-RobotsMaxAge)
	case old.busy:
		// A request is in flight at the old address, maybe of this host:
		// the host moves when it ends, with the rest it sets (R1.1).
		h.resolvedAt = s.clk.Now()
		if s.moves == nil {
			s.moves = make(map[*budget][]pendingMove)
		}
		s.moves[old] = append(s.moves[old], pendingMove{h, r.addrs[0]})
	default:
		h.resolvedAt = s.clk.Now()
		s.move(h, old, r.addrs[0])
	}
	for _, t := range waiting {
		if t.robots != nil { // held for this lookup: it still goes first (R5.1)
			s.enqueueFront(h.budget, t)
			continue
		}
		s.gate(t)
	}
}

// move gives a host whose address changed at a later lookup the budget of
// its new address (R1.1). Its URLs queued at the old address go with it,
// so nothing more of it is asked there and a stop finds them all. The
// fetcher also takes a fresh transport: net/http keeps idle connections by
// host name and port, not by address, so one to the old address could
// otherwise carry a request meant for the new one.
func (s *scheduler) move(h *host, old *budget, a netip.Addr) {
	s.attach(h, a)
	// The new address is asked no sooner than the old one would have
	// been: they may well be one server.
	if nb := h.budget; old.nextAt.After(nb.nextAt) {
		nb.nextAt = old.nextAt
		if nb.index >= 0 {
			s.due.fix(nb.index)
		}
	}
	for _, t := range s.takeQueued(old, h) {
		s.enqueue(h.budget, t)
	}
	s.f.freshTransport()
}

// pendingMove is a host to move to addr once its old budget's request in
// flight has ended.
type pendingMove struct {
	host *host
	addr netip.Addr
}

// movePending moves the hosts that waited for b's request to end, now
// that b's rest is set.
func (s *scheduler) movePending(b *budget) {
	pending, ok := s.moves[b]
	if !ok {
		return
	}
	delete(s.moves, b)
	for _, m := range pending {
		switch h := m.host; {
		case h.budget != b || h.stopped != nil || h.err != nil || s.hosts[h.name] != h:
		case b.parkedUntil.After(s.clk.Now()):
			// Parked by the request it waited for: it waits the park
			// out where it is, and is looked up again after (R2.4).
			h.resolvedAt = b.parkedUntil.Add(-RobotsMaxAge)
		default:
			s.move(h, b, m.addr)
		}
	}
}

// takeQueued takes a host's tasks out of a budget's queue, in order, and
// takes the budget out of the due heap if nothing is left.
func (s *scheduler) takeQueued(b *budget, h *host) []*task {
	var taken, kept []*task
	for _, t := range b.queue[b.head:] {
		if t.host == h {
			taken = append(taken, t)
		} else {
			kept = append(kept, t)
		}
	}
	b.queue, b.head = kept, 0
	if b.pending() == 0 && b.index >= 0 {
		s.due.remove(b.index)
	}
	return taken
}

// dropHost answers with err every URL of a host that waits: those held for
// its origins' robots.txt and those queued at its budget.
func (s *scheduler) dropHost(h *host, err error) {
	for _, o := range h.origins {
		waiting := o.waiting
		o.waiting = nil
		s.turnAwayAll(waiting, err)
	}
	if h.budget == nil {
		return
	}
	for _, t := range s.takeQueued(h.budget, h) {
		s.turnAway(t, err)
	}
}

// completed judges the response (R3.5), re-arms the budget with its rest
// (R2), measured from the end of the response (R1.3), stops or parks what
// must be (R2.4, R3), then follows a redirect or delivers the result.
func (s *scheduler) completed(c *completion) {
	b, t := c.budget, c.task
	h := t.host
	b.busy = false
	s.counts.fetching--
	if t.robots == nil {
		s.counts.pagesInFlight--
	}
	s.counts.requests++
	s.counts.bytes += int64(len(c.body))
	r := &Result{
		Status:    c.status,
		Header:    c.header,
		Body:      c.body,
		Truncated: c.truncated,
		Err:       c.err,
		Addr:      b.addr,
		Started:   c.start,
		Duration:  c.end.Sub(c.start),
	}
	if t.robots == nil && c.err == nil && c.status >= 200 && c.status <= 299 {
		s.traps.Content(h.name, t.url(), c.bodyHash)
	}
	if c.stored != nil { // 304: the stored copy is the page (R6.2)
		r.Status, r.Header, r.Body, r.NotModified = c.stored.Status, c.stored.Header, c.stored.Body, true
	}
	r.page, r.Signals = c.page, c.signals
	failed := false
	if c.status != 0 {
		r.Verdict = c.verdict
		// A body that did not arrive whole fails whatever the status (R2.5).
		failed = r.Verdict.Failure() || errors.Is(c.err, ErrIncompleteBody)
	} else {
		failed = isNetworkFailure(c.err)
	}
	untrusted := certificateFailure(c.err)
	learned := t.robots != nil && s.learnRobots(t.robots, c)
	o := pacing.Outcome{Duration: r.Duration, CrawlDelay: b.crawlDelay,
		RetryAfter: r.Verdict.RetryAfter, HasRetry: r.Verdict.HasRetryAfter}
	switch {
	case failed:
		h.failures++
		if !o.HasRetry {
			o.Backoff = pacing.BackoffAfter(h.failures, s.f.set.maxBackoff, s.hooks.rand())
		}
	case c.status != 0:
		h.failures = 0
	}
	if o.RetryAfter > s.f.set.horizon {
		// Keep the budget's rest within the horizon; the park itself
		// keeps every URL away until the server's time.
		b.parkedUntil = c.end.Add(o.RetryAfter)
		o.RetryAfter = s.f.set.horizon
	}
	r.Rest = restAfter(pacing.Policy{Floor: b.floor, Factor: s.f.set.pacing.Factor}, o)
	b.nextAt = c.end.Add(r.Rest.Wait)

	if r.Err == nil {
		r.Err = responseError(h.name, t.url(), c.status, r.Verdict, c.end)
	}
	s.observe(t, b, r, c)
	switch {
	case r.Verdict.Kind == KindRefused:
		s.stop(h, r.Err, c.end)
	case untrusted:
		s.stop(h, fmt.Errorf("%w: %s: %w", ErrCertificate, h.name, r.Err), c.end)
	case h.failures >= FailuresToStop:
		s.stop(h, fmt.Errorf("%w: %d, the last: %w", ErrFailures, h.failures, r.Err), c.end)
	}
	if !b.parkedUntil.IsZero() && b.parkedUntil.After(c.end) {
		s.park(b, c.end)
	}
	s.arm(b)
	s.movePending(b)
	r.Attempts = 1 + t.retries()
	if failed && t.robots == nil && s.retry(t) {
		return
	}
	if r.Verdict.Kind == KindRedirect && r.Err == nil && h.stopped == nil {
		s.follow(t, r)
		return
	}
	if t.robots != nil {
		s.robotsSettled(t, r, learned)
		return
	}
	s.finish(t, r)
}

// retry puts a page whose request failed transiently (R2.5) back first in
// its host's queue, to be asked again when the backoff that failure set
// has passed, at most Config.Retries times (R11.3). It reports whether it
// did; a stopped or parked host's URL is answered instead.
func (s *scheduler) retry(t *task) bool {
	h := t.host
	if h.stopped != nil || h.err != nil || t.retries() >= s.f.set.retries || h.budget.parkedUntil.After(s.clk.Now()) {
		return false
	}
	if t.rare == nil {
		t.rare = &taskRare{}
	}
	t.rare.retries++
	if h.resolving { // looked up again meanwhile: it waits with the others
		h.waiting = append(h.waiting, t)
		return true
	}
	s.enqueueFront(h.budget, t)
	return true
}

// close ends the run: every queued URL gets ErrClosed now; requests in
// flight were cancelled by Close and report as they end.
func (s *scheduler) close() {
	s.closing = true
	for _, h := range s.relookups {
		s.lookups = append(s.lookups, h)
	}
	s.relookups = nil
	for _, h := range s.lookups {
		h.resolving = false
		h.err = ErrClosed
		s.endWaiting(h, ErrClosed)
	}
	s.lookups = nil
	for _, b := range s.budgets {
		for b.pending() > 0 {
			s.turnAway(b.pop(), ErrClosed)
		}
	}
	for _, e := range s.due {
		e.b.index = -1
	}
	s.due = s.due[:0]
	s.closeStoreWork()
}

// turnAway answers a task that gets no request of its own with err,
// naming its URL.
func (s *scheduler) turnAway(t *task, err error) {
	if t.robots == nil {
		err = fmt.Errorf("%s not fetched: %w", t.url(), err)
	}
	s.finish(t, &Result{Err: err})
}

// turnAwayAll answers each of tasks with err. The caller takes the slice
// out of where it was held first: answering one may add to that place.
func (s *scheduler) turnAwayAll(tasks []*task, err error) {
	for _, t := range tasks {
		s.turnAway(t, err)
	}
}

// finish delivers a task's one Result (R11.1). A robots.txt task has no
// Result of its own: its end answers the pages held for it.
func (s *scheduler) finish(t *task, r *Result) {
	if t.robots != nil {
		s.finishRobots(t, r)
		return
	}
	s.counts.finished++
	if t.host != nil {
		s.leave(t.host)
	}
	r.URL = t.raw
	r.FinalURL = t.url()
	r.Redirects = t.hops()
	if r.Attempts == 0 {
		r.Attempts = t.retries() // tried before it was turned away
	}
	s.f.results.push(r)
}
