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
