package schedule

import (
	"errors"
	"fmt"
	"time"

	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/robotstxt"
)

// Completion is what a worker reports after one request, judged in the
// worker (challenge detection reads the body, and a long robots.txt is
// parsed, outside the scheduler's lock), in the scheduler's terms.
type Completion struct {
	Task   *Task   // the job's
	Budget *Budget // the job's
	Status int     // 0 when no response came
	// Meaning is what the scheduler does with the response (R3.5).
	Meaning Meaning
	// RetryAfter is the server's wait, when HasRetryAfter (R2.4).
	RetryAfter    time.Duration
	HasRetryAfter bool
	// Failed: a failure of the host that backs it off (R2.5, R3.2).
	Failed bool
	// Untrusted: its certificate did not verify; the host stops.
	Untrusted bool
	// Err is the Result's error: the request's, or the response's.
	Err        error
	Start, End time.Time // End: the body was read or the request failed (R1.3)
	Bytes      int       // of the body read
	// Content says a page's 2xx body arrived, with BodyHash for the
	// repeated-content trap (R9).
	Content  bool
	BodyHash uint64
	// Answer is what a robots.txt response says of the rules (R5.2), with
	// the Rules of a 2xx and their validators.
	Answer         RobotsAnswer
	Rules          *robotstxt.File
	ETag, Modified string
	// RobotsFailed: a robots.txt response that leaves the site
	// unreachable (R5.2).
	RobotsFailed bool
	// A redirect's Location, and the URL and host it leads to, or why the
	// chain ends there (R8.3).
	Location, Target, TargetHost string
	RedirectErr                  error
	// Payload is the fetcher's own, given back with the task's End.
	Payload any

	// Withheld: no request was made, because the coordinator other
	// processes share (shared.go) did not give the address: it is taken
	// or resting until Wait from now, or its host was stopped by another
	// process (Elsewhere, the cause), or its origin's robots.txt was
	// fetched by another (RobotsElsewhere).
	Withheld        bool
	Wait            time.Duration
	Elsewhere       error
	RobotsElsewhere bool
	// Leased says the request held the coordinator's lease: the budget
	// stays held until the worker has given it back with SharedRest, the
	// rest the scheduler set (a park's whole wait), and called Released.
	Leased     bool
	SharedRest time.Duration
}

// Meaning is what a response means to the scheduler.
type Meaning uint8

// The meanings the scheduler acts on.
const (
	Other    Meaning = iota // a page, a failure, a not-found: the rest decides
	Refused                 // 401 on robots.txt, 402, 403, a challenge: the host stops (R3.1)
	Redirect                // a 3xx with a Location: followed (R8.3)
)

// End is a task's one answer, in the scheduler's terms: the last response,
// if any, the error, its rest, and the requests made for the URL.
type End struct {
	Response *Completion // nil when no request of its own answers it
	Err      error
	Rest     pacing.Rest
	Attempts int // 0: none for this answer; the task's Retries count
}

// completed judges the response (R3.5), re-arms the budget with its rest
// (R2), measured from the end of the response (R1.3), stops or parks what
// must be (R2.4, R3), then follows a redirect or delivers the result.
func (s *Scheduler) completed(c *Completion) {
	if c.Withheld {
		s.withheld(c)
		return
	}
	b, t := c.Budget, c.Task
	h := t.host
	b.busy = c.Leased // until Released
	s.counts.fetching--
	s.countEnd(b)
	h.keptAt = time.Time{}
	if b.conn.Kept {
		h.keptAt = time.Now() // the connection's idle life is real time
	}
	if t.robots == nil {
		s.counts.pagesInFlight--
	}
	s.counts.requests++
	s.counts.bytes += int64(c.Bytes)
	if t.robots == nil && c.Content {
		s.traps.Content(h.name, t.URL(), c.BodyHash)
	}
	failed := c.Failed
	learned := t.robots != nil && s.learnRobots(t.robots, c)
	o := pacing.Outcome{Duration: c.End.Sub(c.Start), CrawlDelay: b.crawlDelay,
		RetryAfter: c.RetryAfter, HasRetry: c.HasRetryAfter}
	switch {
	case failed:
		h.failures++
		if !o.HasRetry {
			o.Backoff = pacing.BackoffAfter(h.failures, s.cfg.MaxBackoff, s.cfg.Rand())
		}
	case c.Status != 0:
		h.failures = 0
	}
	if o.RetryAfter > s.cfg.Horizon {
		// Keep the budget's rest within the horizon; the park itself
		// keeps every URL away until the server's time.
		b.parkedUntil = c.End.Add(o.RetryAfter)
		o.RetryAfter = s.cfg.Horizon
	}
	rest := pacing.RestAfter(pacing.Policy{Floor: b.floor, Factor: s.cfg.Pacing.Factor}, o)
	b.nextAt = c.End.Add(rest.Wait)
	if b.parkedUntil.After(b.nextAt) {
		// No request goes to the address before the park ends: that is
		// the wait every process, the Result and the event are told, not
		// the horizon that bounds the budget's own rest.
		rest.Wait = b.parkedUntil.Sub(c.End)
	}
	c.SharedRest = rest.Wait
	s.keepRest(b, h, c.End, rest.Wait) // for later runs (R1.4)

	s.observe(c, b, rest)
	switch {
	case c.Meaning == Refused:
		s.stop(h, c.Err, c.End)
	case c.Untrusted:
		s.stop(h, fmt.Errorf("%w: %s: %w", ErrCertificate, h.name, Nested(c.Err)), c.End)
	case h.failures >= s.cfg.FailuresToStop:
		s.stop(h, fmt.Errorf("%w: %d, the last: %w", ErrFailuresInARow, h.failures, Nested(c.Err)), c.End)
	}
	if !b.parkedUntil.IsZero() && b.parkedUntil.After(c.End) {
		s.park(b, c.End)
	}
	s.arm(b)
	s.movePending(b)
	// Once a retry, a redirect or robots.txt's held pages are queued.
	defer s.needs(b, o.Duration, rest.Wait)
	e := End{Response: c, Err: c.Err, Rest: rest, Attempts: 1 + t.Retries()}
	if failed && t.robots == nil && s.retry(t, c) {
		return
	}
	if c.Meaning == Redirect && c.Err == nil && h.stopped == nil {
		s.follow(t, e)
		return
	}
	if t.robots != nil {
		s.robotsSettled(t, e, learned)
		return
	}
	s.finish(t, e)
}

// observe reports a finished request to the fetcher, with the gap since
// the previous one to its address ended.
func (s *Scheduler) observe(c *Completion, b *Budget, rest pacing.Rest) {
	first := b.lastEnd.IsZero()
	gap := c.Start.Sub(b.lastEnd)
	b.lastEnd = c.End
	if first {
		gap = 0
	}
	s.root.Observed(c, gap, first, rest)
}

// retry puts a page whose request failed transiently (R2.5) back first in
// its host's queue, to be asked again when the backoff that failure set
// has passed, at most Config.Retries times (R11.3). It reports whether it
// did; a stopped or parked host's URL is answered instead. The failure is
// kept, for the URL's Result if the run ends before the next try.
func (s *Scheduler) retry(t *Task, c *Completion) bool {
	h := t.host
	if h.stopped != nil || h.err != nil || t.Retries() >= s.cfg.Retries || h.budget.parkedUntil.After(s.clk.Now()) {
		return false
	}
	if t.rare == nil {
		t.rare = &taskRare{}
	}
	t.rare.retries++
	t.rare.lastFailure = c.Err
	if h.resolving { // looked up again meanwhile: it waits with the others
		h.waiting = append(h.waiting, t)
		return true
	}
	s.enqueueFront(h.budget, t)
	return true
}

// follow turns a redirect into the task's next request. The new URL goes
// back through admission: its own host, its own budget and rest, its own
// checks (R8.3). A redirect that is not followed (a loop, a sixth hop, a
// target the fetcher may not fetch, or the fetcher closing) ends the
// chain: the answer is that last response, with the reason, and the hops
// are only those followed before it.
func (s *Scheduler) follow(t *Task, e End) {
	c := e.Response
	err := c.RedirectErr
	if s.closing {
		err = ErrClosed
	}
	if err != nil {
		e.Err = err
		s.finish(t, e)
		return
	}
	if t.rare == nil {
		t.rare = &taskRare{}
	}
	t.rare.hops = append(t.rare.hops, Hop{
		URL: t.URL(), Status: c.Status, Location: c.Location,
		Addr: c.Budget.addr, Started: c.Start, Duration: c.End.Sub(c.Start), Rest: e.Rest,
	})
	t.setURL(c.Target)
	t.rare.retries = 0 // a new URL: its own tries (R11.3)
	t.rare.lastFailure = nil
	if t.robots == nil { // and its own stored copy (R6.1)
		t.rare.copy, t.rare.haveCopy = copyUnknown, false
		t.rare.ifNoneMatch, t.rare.ifModifiedSince = "", ""
	}
	t.rules = nil // and its own origin's signals, if it has any (R7.1)
	if tr, bad := s.trapped(t, c.TargetHost); bad {
		s.dropTrap(t, tr)
		return
	}
	s.admit(t, c.TargetHost)
}

// close ends the run: every queued URL gets ErrClosed now; requests in
// flight were cancelled by Close and report as they end.
func (s *Scheduler) close() {
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
	s.due.clear()
	for _, b := range s.budgets {
		s.countNeed(b) // no work waits at it: it needs nothing
	}
	s.closeStoreWork()
}

// turnAway answers a task that gets no request of its own with err,
// naming its URL.
func (s *Scheduler) turnAway(t *Task, err error) {
	if t.robots == nil {
		err = fmt.Errorf("polite: %s not fetched: %w", t.URL(), Nested(err))
	}
	s.finish(t, End{Err: err})
}

// turnAwayAll answers each of tasks with err. The caller takes the slice
// out of where it was held first: answering one may add to that place.
func (s *Scheduler) turnAwayAll(tasks []*Task, err error) {
	for _, t := range tasks {
		s.turnAway(t, err)
	}
}

// finish delivers a task's one answer (R11.1). A robots.txt task has no
// Result of its own: its end answers the pages held for it.
func (s *Scheduler) finish(t *Task, e End) {
	if t.robots != nil {
		s.finishRobots(t, e)
		return
	}
	s.counts.finished++
	if t.host != nil {
		s.leave(t.host)
	}
	if errors.Is(e.Err, ErrClosed) && t.rare != nil && t.rare.lastFailure != nil {
		// The run ended before the URL's next try: why it needed one.
		e.Err = fmt.Errorf("%w; the last failed try: %w", e.Err, Nested(t.rare.lastFailure))
	}
	s.root.Deliver(t, e)
}
