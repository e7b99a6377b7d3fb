package polite

import (
	"net/netip"
	"time"
)

// budget is one server address: its queue and when it may be asked again.
type budget struct {
	addr   netip.Addr // set when made, never changed: the dialler reads it (withPin)
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

// dueHeap orders idle budgets with queued work by the time they may send.
type dueHeap []*budget

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].nextAt.Before(h[j].nextAt) }
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *dueHeap) Push(x any) {
	b := x.(*budget)
	b.index = len(*h)
	*h = append(*h, b)
}
func (h *dueHeap) Pop() any {
	old := *h
	b := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	b.index = -1
	return b
}
