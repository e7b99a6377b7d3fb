package schedule

import (
	"net/netip"
	"time"
)

// Budget is one server address: its queue and when it may be asked again.
type Budget struct {
	addr   netip.Addr // set when made, never changed: the address dialled
	queue  []*Task
	head   int
	busy   bool      // a request is in flight
	recall bool      // its rest from an earlier run is being read (rests.go)
	saving bool      // its last response's rest is being written (rests.go)
	nextAt time.Time // end of the last response + its rest
	index  int       // position in the due heap; -1 when not in it
	// startedIn is the CPU gauge's window its request in flight started
	// in (cpu.go).
	startedIn uint64
	// parkedUntil is set when the server asked for a wait beyond the
	// horizon: until then its URLs come back parked (R2.4).
	parkedUntil time.Time
	// crawlDelay is the Crawl-delay that applies to this budget (R2.3):
	// the largest of its hosts', once robots.txt is read.
	crawlDelay time.Duration
	lastEnd    time.Time // when its last response ended
	// coordWait: nextAt was raised to a shared coordinator's wait
	// (shared.go); ownRest is what it was before, to go back to when
	// the coordinator says the address is free sooner (Wake).
	coordWait bool
	ownRest   time.Time
	// floor is the floor of its rest (R2.1): 1 s when every host on the
	// address is a documented API, else the web floor.
	floor time.Duration
	hosts int // the hosts on it (forget.go)
	// share is duration ÷ (rest + duration) of its last request: its
	// share of the requests in flight the limit needs (Little's law).
	// need is share while it has work, 0 without.
	share, need float64
	// conn is what its server showed of keeping a connection through a
	// rest; only the worker holding the budget touches it.
	conn Conn
}

// Addr is the budget's server address: the one its requests dial (R1.1).
func (b *Budget) Addr() netip.Addr { return b.addr }

// Conn is what the budget's server showed of keeping a connection; only
// the worker holding the budget may touch it.
func (b *Budget) Conn() *Conn { return &b.conn }

// Conn is what a budget's requests have shown of its server keeping a
// connection through the rest between them. A connection kept idle costs
// the fetcher its goroutines and buffers for the whole rest, ≥3 s for a
// page (R2.1), and many servers close one idle for less (1 s in
// BenchmarkRSS, 5 s for Apache's and Node's default). So the fetcher keeps
// one only while it is found open again: once a kept connection is gone at
// the next request, every later request to the address asks Connection:
// close, for the run, and the server is spared its idle one too. (At an
// address shared by several hosts, the next request may be another host's,
// which cannot take the connection either: net/http keeps them by host
// name.) BenchmarkRSS: peak RSS 186 -> 170 MiB. Only the worker holding
// the budget touches it (R1.1); the scheduler's lock passes it on with it.
type Conn struct {
	Kept bool // the last response was read whole, its connection kept
	// KeptOn is the transport the connection was kept on. One replaced
	// since (Root.FreshTransport) let it go itself: that says nothing of
	// the server.
	KeptOn any
	Closes bool // a connection kept was gone at the next request
	// Drained: nothing was queued behind the request at its address when
	// it was handed out, nor held for it (a robots.txt request's pages),
	// set by the scheduler under its lock. Its connection would wait for
	// work that may never come, so it is closed. A robots.txt request is
	// not drained: its host's first page takes the connection (closing it
	// cost BenchmarkRequestCost 20 allocations a request).
	Drained bool
}

func (b *Budget) pending() int { return len(b.queue) - b.head }

func (b *Budget) pop() *Task {
	t := b.queue[b.head]
	b.queue[b.head] = nil
	b.head++
	if b.head == len(b.queue) {
		b.queue, b.head = b.queue[:0], 0
	}
	return t
}
