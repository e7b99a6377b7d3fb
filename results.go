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
// A Result counts as pending until the loop body that received it has
// returned, so a URL Added from the body (a crawler adding a page's links)
// extends the loop, also when it is the last Result: the loop cannot end
// between receiving a Result and acting on it. A break, or a panic in the
// body, counts the Result as handled too.
//
// The error is not a URL's: each URL's own failure is in Result.Err. It is
// ctx.Err(), yielded once with a nil Result when ctx ends while URLs are
// pending; the loop then ends, and the URLs still pending stay for a later
// loop or Next. After Close the loop yields the Results still queued
// (ErrClosed for every URL not answered before, R11.2) and ends; io.EOF is
// never yielded. A loop started with nothing pending ends at once: Add the
// seeds first.
//
// Several goroutines may range over Results at once: each Result is
// yielded to exactly one of them, and every loop ends only when nothing is
// pending anywhere, not while another loop's body holds a Result, since
// that body may Add more. So a loop must not range over Results inside its
// own body: the outer Result stays pending and the inner loop never ends.
// Next may be called beside a loop; it takes from the same queue.
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

// RequestEvent is one HTTP request the fetcher made, reported to
// Config.OnRequest as it ends: the pages' requests, each redirect hop, and
// the fetcher's own robots.txt requests, those to one address in the order
// they were made. It is what a site owner's log would show, with the
// fetcher's reasons beside it.
type RequestEvent struct {
	URL    string
	Addr   netip.Addr // the server address dialled: the budget
	Robots bool       // a robots.txt request of the fetcher's own (R5.1)
	Status int        // 0 when no response came
	Err    error      // as in Result.Err
	// Verdict is what the response meant (R3.5).
	Verdict Verdict
	Started time.Time
	// Duration runs to the last byte of the body, or the failure (R1.3).
	Duration time.Duration
	// Gap is the time since the previous request to the same address
	// ended; First is set when there was none in this run.
	Gap   time.Duration
	First bool
	// Rest is the wait this response imposes on its address before the
	// next request, and the term of R2 that set it.
	Rest Rest
}

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
	// Lookups counts the host lookups under way (Config.Resolver calls):
	// with InFlight, what MaxInFlight caps.
	Lookups  int
	Requests int // requests made, robots.txt included
	Bytes    int64
	// Refusals counts the hosts stopped in this run, by kind.
	Refusals map[StopKind]int
	// Traps counts the URLs dropped as traps, by kind (R9).
	Traps map[TrapKind]int
	// Forgotten counts the hosts forgotten after a robots period idle.
	Forgotten int
	// InFlightNeed is how many requests in flight the limit needs, by
	// Little's law: over the addresses with work, duration ÷ (rest +
	// duration) of each one's last request (R1.2). While InFlight sits at
	// MaxInFlight below it, the cap, not politeness, holds the fetcher
	// back, and the log has said so once.
	InFlightNeed float64
	// MaxInFlight is the cap on requests in flight (Config.MaxInFlight).
	MaxInFlight int
	// CPUCeiling is the most requests in flight the CPU has room for now:
	// while goroutines wait to run, requests started would only wait with
	// them, and their rests grow with their durations (R2.2). It backs
	// off to three quarters of the requests in flight that started in the
	// last second then, beside those in flight for longer (they wait on
	// their servers), and grows again every 50 ms the CPU has room: by a
	// quarter, or by 3% in the second after a short CPU while it holds
	// the need or more and only hosts yet to start wait. It leaves room
	// for at least 64 beside the older ones.
	CPUCeiling int
	// SharedDown says the Coordinator of Config.Shared did not answer the
	// last time it was asked: no request is sent until it does. Withheld
	// counts the requests it did not allow (the address was another
	// process's, or resting), and SharedErrors its calls that failed.
	SharedDown   bool
	Withheld     int
	SharedErrors int64
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
