package polite

import (
	"context"
	"errors"
	"maps"
)

// Stats is a snapshot of a Fetcher's work, for progress lines and metrics.
// Budgets are server addresses (R1.1): Active and Resting count addresses;
// Stopped counts host names.
type Stats struct {
	// Hosts counts the host names held: those with URLs or seen within
	// the last RobotsMaxAge, and those stopped. A host idle longer is
	// forgotten (Forgotten), and counted again if seen again.
	Hosts    int
	Active   int // addresses with a request in flight
	Resting  int // addresses with URLs queued, waiting out a rest
	Stopped  int // hosts stopped: refused, failing, or cooling off from an earlier run
	Parked   int // addresses parked by a Retry-After beyond the horizon
	Queued   int // accepted URLs waiting: in queues, for a lookup, or for robots.txt
	InFlight int // requests in flight
	Requests int // requests made, robots.txt included
	Bytes    int64
	// Refusals counts the hosts stopped in this run, by kind.
	Refusals map[StopKind]int
	// Traps counts the URLs dropped as traps, by kind (R9).
	Traps map[TrapKind]int
	// Forgotten counts the hosts forgotten after a robots period idle.
	Forgotten int
}

// runStats are the counters the scheduler keeps as it goes, so that a
// snapshot walks no queue under the lock every worker needs (R1.2).
type runStats struct {
	requests int
	bytes    int64
	refusals map[StopKind]int
	traps    map[TrapKind]int
	admitted int // URLs taken from the inbox
	finished int // URLs given their Result
	fetching int // requests in flight, robots.txt included
	// pagesInFlight are the requests in flight for URLs (not robots.txt).
	pagesInFlight int
	stopped       int // hosts stopped, in this run or cooling off from an earlier one
	forgotten     int // hosts forgotten after a robots period idle (forget.go)
}

// Stats returns a snapshot of the fetcher's work. It asks the scheduling
// goroutine, so the numbers agree with one another; after Close it returns
// the last snapshot.
func (f *Fetcher) Stats(ctx context.Context) (Stats, error) {
	reply := make(chan Stats, 1)
	if f.sched.postQuery(reply) {
		select {
		case st := <-reply:
			return st, nil
		case <-f.dispatched:
		case <-ctx.Done():
			return Stats{}, ctx.Err()
		}
	}
	<-f.dispatched
	return f.sched.final, nil
}

// snapshot reads the scheduler's counters; it runs with the lock held.
// Every URL taken in and not answered is queued or in flight; an idle
// budget with work is in the due heap.
func (s *scheduler) snapshot() Stats {
	st := Stats{
		Hosts:     len(s.hosts) + len(s.stoppedNames),
		Forgotten: s.counts.forgotten,
		Active:    s.counts.fetching,
		Resting:   len(s.due),
		Stopped:   s.counts.stopped,
		Queued:    s.counts.admitted - s.counts.finished - s.counts.pagesInFlight,
		InFlight:  s.counts.fetching,
		Requests:  s.counts.requests,
		Bytes:     s.counts.bytes,
		Refusals:  maps.Clone(s.counts.refusals),
		Traps:     maps.Clone(s.counts.traps),
	}
	st.Parked = s.pruneParked(s.clk.Now())
	return st
}

// stopKind names a stop by its cause.
func stopKind(cause error) StopKind {
	var ref *RefusalError
	switch {
	case errors.Is(cause, ErrCertificate):
		return StopCertificate
	case !errors.As(cause, &ref):
		return StopFailures
	case ref.Verdict.Challenge:
		return StopChallenge
	}
	return StopRefused
}
