package polite

import (
	"context"
	"errors"

	"github.com/politecrawler/polite/internal/schedule"
)

// Stats is a snapshot of a Fetcher's work, for progress lines and metrics.
type Stats struct {
	Hosts        int              // host names held: with URLs, seen within RobotsMaxAge, or stopped
	Active       int              // addresses with a request in flight
	Resting      int              // addresses with URLs queued, waiting out a rest
	Stopped      int              // hosts stopped: refused, failing, or cooling off from an earlier run
	Parked       int              // addresses parked by a Retry-After beyond the horizon
	Queued       int              // accepted URLs waiting: in queues, for a lookup, or for robots.txt
	InFlight     int              // requests in flight
	Lookups      int              // host lookups under way: with InFlight, what MaxInFlight caps
	Requests     int              // requests made, robots.txt included
	Bytes        int64            // body bytes read
	Refusals     map[StopKind]int // hosts stopped this run, by kind
	Traps        map[TrapKind]int // URLs dropped as traps, by kind (R9)
	Forgotten    int              // hosts forgotten after a robots period idle
	InFlightNeed float64          // requests in flight the work needs, by Little's law (R1.2)
	MaxInFlight  int              // the cap on requests in flight (Config.MaxInFlight)
	CPUCeiling   int              // the most requests in flight the CPU has room for now
	SharedDown   bool             // Config.Shared did not answer the last Take of some address: none is sent there
	Withheld     int              // requests the Coordinator did not allow yet
	SharedErrors int64            // the Coordinator's calls that failed
}

// Stats returns a snapshot of the fetcher's work. It asks the scheduling
// goroutine, so the numbers agree with one another; after Close it returns
// the last snapshot.
func (f *Fetcher) Stats(ctx context.Context) (Stats, error) {
	reply := make(chan schedule.Snapshot, 1)
	if f.sched.Query(reply) {
		select {
		case st := <-reply:
			return f.withShared(publicStats(st)), nil
		case <-f.dispatched:
		case <-ctx.Done():
			return Stats{}, ctx.Err()
		}
	}
	<-f.dispatched
	return f.withShared(publicStats(f.sched.Final())), nil
}

// withShared adds the Coordinator's health to st.
func (f *Fetcher) withShared(st Stats) Stats {
	st.SharedErrors = f.shared.errors.Load()
	st.SharedDown = f.shared.down.Load() // after the count: see noteCoordinator
	return st
}

// publicStats tells a scheduler's snapshot as the public Stats.
func publicStats(sn schedule.Snapshot) Stats {
	st := Stats{Hosts: sn.Hosts, Active: sn.Active, Resting: sn.Resting, Stopped: sn.Stopped,
		Parked: sn.Parked, Queued: sn.Queued, InFlight: sn.InFlight, Lookups: sn.Lookups, Requests: sn.Requests,
		Bytes: sn.Bytes, Forgotten: sn.Forgotten, InFlightNeed: sn.Need, MaxInFlight: sn.Cap, CPUCeiling: sn.Ceiling,
		Withheld: sn.Withheld}
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
