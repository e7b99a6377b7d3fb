package schedule

import "time"

// dueHeap orders idle budgets with queued work by the time they may send:
// a binary heap on nextAt, in which each budget keeps its index. It is
// written out for budgets, rather than through container/heap, as it is
// on every request's path: no interface call per comparison. Each entry
// holds its budget's nextAt, so that a sift compares within the array
// rather than through a pointer to each budget.
type dueHeap []dueEntry

type dueEntry struct {
	at time.Time // the budget's nextAt
	b  *Budget
}

func (h *dueHeap) push(b *Budget) {
	*h = append(*h, dueEntry{at: b.nextAt, b: b})
	h.up(len(*h) - 1)
}

// first is the budget due first; the heap must not be empty.
func (h dueHeap) first() *Budget { return h[0].b }

// remove takes out the budget at index i.
func (h *dueHeap) remove(i int) *Budget {
	old := *h
	n := len(old) - 1
	b := old[i].b
	old[i] = old[n]
	old[n] = dueEntry{}
	*h = old[:n]
	if i < n && !h.down(i) {
		h.up(i)
	}
	b.index = -1
	return b
}

// fix puts the budget at index i in its place after its nextAt changed.
func (h dueHeap) fix(i int) {
	h[i].at = h[i].b.nextAt
	if !h.down(i) {
		h.up(i)
	}
}

func (h dueHeap) up(i int) {
	e := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.at.Before(h[p].at) {
			break
		}
		h[i] = h[p]
		h[i].b.index = i
		i = p
	}
	h[i] = e
	e.b.index = i
}

// down moves the entry at index i down to its place, and reports whether
// it moved.
func (h dueHeap) down(i int) bool {
	e, start, n := h[i], i, len(h)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r].at.Before(h[c].at) {
			c = r
		}
		if !h[c].at.Before(e.at) {
			break
		}
		h[i] = h[c]
		h[i].b.index = i
		i = c
	}
	h[i] = e
	e.b.index = i
	return i > start
}

// dueQueue holds the idle budgets with queued work in two heaps: those
// whose address has answered a request (started) and those waiting for
// their first (fresh). Of the budgets due, a started one goes first. When
// many hosts start at once, their first requests (robots.txt) take longer
// to send than a rest lasts; ordered on nextAt alone, every fresh budget,
// due since its URLs were added, came before the started budgets' pages
// whose rests had just ended, and those rests grew by the time the rest
// of the start took (BenchmarkLatency at 200 ms: 10,000 hosts took 4.4 s
// to start, and the first gaps after robots.txt lost the most; with
// started budgets first, efficiency went from 0.962 to 0.978, and behind
// a Resolver taking 50 ms a name from 0.950 to 0.975). A fresh budget
// loses nothing of the limit by waiting: it has no rest to keep.
// A budget stays in one heap while it is in the queue: lastEnd changes
// only when a request ends, and a budget in flight is in neither.
type dueQueue struct{ started, fresh dueHeap }

func (q *dueQueue) heapOf(b *Budget) *dueHeap {
	if b.lastEnd.IsZero() {
		return &q.fresh
	}
	return &q.started
}

func (q *dueQueue) push(b *Budget) { q.heapOf(b).push(b) }

// remove takes b out; b must be in the queue.
func (q *dueQueue) remove(b *Budget) { q.heapOf(b).remove(b.index) }

// fix puts b in its place after its nextAt changed; b must be in the queue.
func (q *dueQueue) fix(b *Budget) { q.heapOf(b).fix(b.index) }

func (q *dueQueue) len() int { return len(q.started) + len(q.fresh) }

// first is the budget whose nextAt is earliest, of both heaps.
func (q *dueQueue) first() (*Budget, bool) {
	switch {
	case len(q.fresh) > 0 && (len(q.started) == 0 || q.fresh[0].at.Before(q.started[0].at)):
		return q.fresh.first(), true
	case len(q.started) > 0:
		return q.started.first(), true
	}
	return nil, false
}

// dueAt is the budget to take at now: the started one due first, else
// the fresh one due first.
func (q *dueQueue) dueAt(now time.Time) (*Budget, bool) {
	if len(q.started) > 0 && !q.started[0].at.After(now) {
		return q.started.first(), true
	}
	if len(q.fresh) > 0 && !q.fresh[0].at.After(now) {
		return q.fresh.first(), true
	}
	return nil, false
}

// clear empties the queue.
func (q *dueQueue) clear() {
	for _, h := range []*dueHeap{&q.started, &q.fresh} {
		for _, e := range *h {
			e.b.index = -1
		}
		*h = (*h)[:0]
	}
}
