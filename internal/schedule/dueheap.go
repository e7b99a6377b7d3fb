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

// pop takes out the budget due first.
func (h *dueHeap) pop() *Budget { return h.remove(0) }

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
