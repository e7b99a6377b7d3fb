package polite

import (
	"context"
	"iter"
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
