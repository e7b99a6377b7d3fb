package polite

import (
	"context"
	"errors"

	"github.com/politecrawler/polite/internal/schedule"
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

// Stats returns a snapshot of the fetcher's work. It asks the scheduling
// goroutine, so the numbers agree with one another; after Close it returns
// the last snapshot.
func (f *Fetcher) Stats(ctx context.Context) (Stats, error) {
	reply := make(chan schedule.Snapshot, 1)
	if f.sched.Query(reply) {
		select {
		case st := <-reply:
			return publicStats(st), nil
		case <-f.dispatched:
		case <-ctx.Done():
			return Stats{}, ctx.Err()
		}
	}
	<-f.dispatched
	return publicStats(f.sched.Final()), nil
}

// publicStats tells a scheduler's snapshot as the public Stats.
func publicStats(sn schedule.Snapshot) Stats {
	st := Stats{Hosts: sn.Hosts, Active: sn.Active, Resting: sn.Resting, Stopped: sn.Stopped,
		Parked: sn.Parked, Queued: sn.Queued, InFlight: sn.InFlight, Requests: sn.Requests,
		Bytes: sn.Bytes, Forgotten: sn.Forgotten}
	if sn.Refusals != nil {
		st.Refusals = make(map[StopKind]int, len(sn.Refusals))
		for k, n := range sn.Refusals {
			st.Refusals[StopKind(k)] = n
		}
	}
	if sn.Traps != nil {
		st.Traps = make(map[TrapKind]int, len(sn.Traps))
		for k, n := range sn.Traps {
			st.Traps[TrapKind(k)] = n
		}
	}
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
