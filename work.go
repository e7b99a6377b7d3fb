package polite

import "github.com/politecrawler/polite/internal/schedule"

// The scheduler's jobs, lookups and requests, run on goroutines of their
// own, as many as the work needs (R1.2); the scheduler starts them through
// rootSide.Start.

// idleWorkers bounds the job goroutines that wait for the next job once
// theirs is done: a goroutine per job pays its stack's growth through
// net/http each time (BenchmarkRequestCost: 218 µs of CPU a request, 201 µs).
const idleWorkers = 64

// work runs a job the dispatcher handed out (Start), a lookup or a
// request, on a goroutine of its own: it reports the job, goes on with the
// next job due, if any, without going back to the dispatcher, and when
// none is, waits for the next handed out, or ends if idleWorkers already
// wait. Its contexts go to the next goroutine.
func (f *Fetcher) work(j schedule.Job) {
	defer f.workers.Done()
	ctxs := f.spare.take(f.ctx, f.set.timeout, f.lookupTimeout)
	defer f.spare.put(ctxs)
	for {
		for more := true; more; {
			if name := j.Lookup(); name != "" {
				j, more = f.sched.Report(f.resolve(j, name, ctxs.lookup), nil)
			} else {
				c, turn := f.fetch(j, ctxs.request)
				j, more = f.sched.Report(nil, c)
				if c.Leased {
					f.giveBack(c, turn)
				}
			}
		}
		if f.idle.Add(1) > idleWorkers {
			f.idle.Add(-1)
			return
		}
		select {
		case j = <-f.handoff:
			f.idle.Add(-1)
		case <-f.ctx.Done(): // Close: no job comes any more
			f.idle.Add(-1)
			return
		}
	}
}
