package polite

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/schedule"
)

// The worker's side of Config.Shared (see internal/schedule's shared.go):
// the address is taken before each request, and given back with its rest
// after the response.

const (
	// leaseMargin is how much longer than Config.Timeout a lease lasts:
	// the request has ended, one way or the other, before it does.
	leaseMargin = 5 * time.Second
	// coordinatorTimeout bounds one call to the Coordinator.
	coordinatorTimeout = 2 * time.Second
	// coordinatorRetry is how long a budget waits after a Take that
	// failed before it asks again (fail closed: no request meanwhile).
	coordinatorRetry = time.Second
	// minCoordinatorWait is the wait after a Turn not granted that says
	// none.
	minCoordinatorWait = 10 * time.Millisecond
)

// sharedState is what the fetcher knows of its Coordinator's health. A
// Coordinator may answer for some addresses and not for others (a Redis
// Cluster with one master down): it is down from the first Take that
// failed until every address whose last Take failed has been answered,
// one change of state each way, however the Takes of the others go.
type sharedState struct {
	down   atomic.Bool  // the last Take of some address failed
	errors atomic.Int64 // Takes and Rests that failed

	mu      sync.Mutex
	failing map[netip.Addr]bool // the addresses whose last Take failed
}

// take asks the Coordinator for a request job's address. It returns the
// granted Turn, or the completion to report in place of the request.
func (f *Fetcher) take(j schedule.Job) (Turn, *schedule.Completion) {
	t, b := j.Task(), j.Budget()
	ask := Ask{Addr: b.Addr(), Host: t.Host(), Lease: f.set.timeout + leaseMargin, LeaseRest: leaseRest(j, f.set.maxBackoff), Floor: j.Floor(),
		More: !b.Conn().Drained, Wake: func() { f.sched.Wake(b) }}
	if t.RobotsElsewhere() {
		ask.Origin = t.Origin()
	}
	ctx, cancel := context.WithTimeout(f.ctx, coordinatorTimeout)
	turn, err := f.set.coordinator.Take(ctx, ask)
	cancel()
	f.noteCoordinator(ask.Addr, err)
	if err == nil && turn.Granted {
		return turn, nil
	}
	c := &schedule.Completion{Task: t, Budget: b, Withheld: true}
	switch {
	case err != nil:
		c.Wait = coordinatorRetry
	case turn.Stopped != "":
		c.Elsewhere = fmt.Errorf("%w: %s", ErrStoppedElsewhere, turn.Stopped)
	case turn.Robots:
		c.RobotsElsewhere = true
	default:
		// A Coordinator that says no without a wait is asked again a
		// little later, not at once in a loop.
		c.Wait = turn.Wait
		if c.Wait <= 0 {
			c.Wait = minCoordinatorWait
		}
	}
	return turn, c
}

// leaseRest is the rest after a lease that ended without a give-back:
// the rest after a failure of a request that lasted the whole lease. That
// is the longest of the budget's floor (R2.1, R2.6), its Crawl-delay
// (R2.3), 5 × the duration at its cap (R2.2), and the first failure's
// backoff at its top (R2.5).
func leaseRest(j schedule.Job, maxBackoff time.Duration) time.Duration {
	return max(j.Floor(), j.CrawlDelay(), DurationRestCap, pacing.BackoffAfter(1, maxBackoff, 1))
}

// giveBack tells the Coordinator the rest of a request that held its
// lease, then releases the budget. The rest is measured from the end of
// the response (R1.3): what is left of it is given, so that the
// Coordinator's end of it is the scheduler's. It is sent even as the
// fetcher closes: a lease left to end by itself rests the address as
// after a failure, for every process.
func (f *Fetcher) giveBack(c *schedule.Completion, turn Turn) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(f.ctx), coordinatorTimeout)
	left := max(c.SharedRest-f.clk.Now().Sub(c.End), 0)
	err := f.set.coordinator.Rest(ctx, turn, left)
	cancel()
	if err != nil {
		f.shared.errors.Add(1)
		f.set.logger.Warn("polite: coordinator: giving an address back failed; its lease ends by itself",
			"address", c.Budget.Addr(), "err", err)
	}
	f.sched.Released(c.Budget)
}

// noteCoordinator keeps the Coordinator's health after a Take of addr,
// and logs when it stops answering and when it answers again.
func (f *Fetcher) noteCoordinator(addr netip.Addr, err error) {
	if err != nil && f.ctx.Err() != nil {
		return // closing: the call was cancelled
	}
	if err == nil && !f.shared.down.Load() {
		return // no address is failing: nothing to forget
	}
	f.shared.mu.Lock()
	was := len(f.shared.failing) > 0
	if err != nil {
		if f.shared.failing == nil {
			f.shared.failing = map[netip.Addr]bool{}
		}
		f.shared.failing[addr] = true
	} else {
		delete(f.shared.failing, addr)
	}
	down := len(f.shared.failing) > 0
	f.shared.down.Store(down)
	f.shared.mu.Unlock()
	if err != nil {
		// Counted after down is set: Stats, which reads the count first,
		// never sees a failed Take without its address down.
		f.shared.errors.Add(1)
	}
	if was == down {
		return
	}
	if err != nil {
		f.set.logger.Warn("polite: coordinator unreachable; no request is sent where it does not answer, until it does",
			"err", fmt.Errorf("%w: %w", ErrCoordinator, err))
		return
	}
	f.set.logger.Info("polite: coordinator answers again; requests resume")
}
