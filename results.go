package polite

import (
	"context"
	"errors"
	"iter"
	"net/netip"
	"time"

	"github.com/politecrawler/polite/internal/schedule"
)

// Results is the way to consume a Fetcher: it yields each Result as Next
// would, one per accepted URL, and ends by itself when nothing is pending.
//
//	for r, err := range f.Results(ctx) {
//		if err != nil {
//			return err // ctx ended
//		}
//		// use r; r.Err says why a URL has no page. Add its links here.
//	}
//
// A Result stays pending until its loop body returns, so URLs Added from
// the body extend the loop. The error is ctx.Err(), yielded once with a nil
// Result; each URL's own failure is in Result.Err. After Close the loop
// yields what is queued and ends. Several goroutines may range at once,
// each Result going to one; a loop must not range over Results in its body.
func (f *Fetcher) Results(ctx context.Context) iter.Seq2[*Result, error] {
	return func(yield func(*Result, error) bool) {
		for {
			r, err := f.await(ctx)
			if r == nil {
				if err != nil {
					yield(nil, err)
				}
				return
			}
			if !f.hand(r, yield) {
				return
			}
		}
	}
}

// hand yields r, and counts it handled once the body has returned.
func (f *Fetcher) hand(r *Result, yield func(*Result, error) bool) bool {
	defer f.handled()
	return yield(r, nil)
}

// await returns the next Result for a Results loop. It returns none when
// the loop is to end: with nothing pending, or the queue closed and
// drained (no error), or ctx ended (its error).
func (f *Fetcher) await(ctx context.Context) (*Result, error) {
	for {
		if f.Pending() == 0 {
			f.results.signal() // another loop waiting ends too
			return nil, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r, ok, closed := f.results.take(); ok || closed {
			return r, nil
		}
		select {
		case <-f.results.ready:
		case <-ctx.Done():
		}
	}
}

// handled counts one Result as handled: returned by Next, or its Results
// body over. The one that leaves nothing pending wakes the Results loops
// waiting, for them to end.
func (f *Fetcher) handled() {
	f.delivered.Add(1)
	if f.Pending() == 0 {
		f.results.signal()
	}
}

// RequestEvent is one request the fetcher made (pages, redirect hops,
// robots.txt), given to Config.OnRequest as it ends, with its reasons.
type RequestEvent struct {
	URL      string
	Addr     netip.Addr // the server address dialled: the budget
	Robots   bool       // a robots.txt request of the fetcher's own (R5.1)
	Status   int        // 0 when no response came
	Err      error      // as in Result.Err
	Verdict  Verdict    // what the response meant (R3.5)
	Started  time.Time
	Duration time.Duration // to the last byte of the body, or the failure (R1.3)
	Gap      time.Duration // since the previous request to the address ended
	First    bool          // no previous request to the address this run
	Rest     Rest          // the rest this response set on its address (R2)
}

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
	SharedDown   bool             // Config.Shared did not answer when last asked: no request is sent
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
	st.SharedDown, st.SharedErrors = f.shared.down.Load(), f.shared.errors.Load()
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
