package polite

import (
	"net/netip"
	"time"
)

// budget is one server address: its queue and when it may be asked again.
type budget struct {
	addr   netip.Addr // set when made, never changed: the address dialled (dialAddr)
	queue  []*task
	head   int
	busy   bool      // a request is in flight
	nextAt time.Time // end of the last response + its rest
	index  int       // position in the due heap; -1 when not in it
	// parkedUntil is set when the server asked for a wait beyond the
	// horizon: until then its URLs come back parked (R2.4).
	parkedUntil time.Time
	// crawlDelay is the Crawl-delay that applies to this budget (R2.3):
	// the largest of its hosts', once robots.txt is read.
	crawlDelay time.Duration
	lastEnd    time.Time // when its last response ended
	// floor is the floor of its rest (R2.1): 1 s when every host on the
	// address is a documented API, else the web floor.
	floor time.Duration
	hosts int // the hosts on it (forget.go)
	// conn is what its server showed of keeping a connection through a
	// rest; only the worker holding the budget touches it (see fetch.go).
	conn keepAlive
}

func (b *budget) pending() int { return len(b.queue) - b.head }

func (b *budget) pop() *task {
	t := b.queue[b.head]
	b.queue[b.head] = nil
	b.head++
	if b.head == len(b.queue) {
		b.queue, b.head = b.queue[:0], 0
	}
	return t
}

// dueHeap orders idle budgets with queued work by the time they may send:
// a binary heap on nextAt, in which each budget keeps its index. It is
// written out for budgets, rather than through container/heap, as it is
// on every request's path: no interface call per comparison. Each entry
// holds its budget's nextAt, so that a sift compares within the array
// rather than through a pointer to each budget.
type dueHeap []dueEntry

type dueEntry struct {
	at time.Time // the budget's nextAt
	b  *budget
}

func (h *dueHeap) push(b *budget) {
	*h = append(*h, dueEntry{at: b.nextAt, b: b})
	h.up(len(*h) - 1)
}

// first is the budget due first; the heap must not be empty.
func (h dueHeap) first() *budget { return h[0].b }

// pop takes out the budget due first.
func (h *dueHeap) pop() *budget { return h.remove(0) }

// remove takes out the budget at index i.
func (h *dueHeap) remove(i int) *budget {
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
