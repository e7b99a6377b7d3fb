package schedule

import (
	"net/netip"
	"slices"
)

// Resolution is what a lookup came to (Job.Resolution).
type Resolution struct {
	host  *host
	addrs []netip.Addr // the addresses the fetcher may dial; the first keys the budget
	err   error
}

func (s *Scheduler) resolved(r *Resolution) {
	h := r.host
	h.resolving = false
	waiting := h.waiting
	h.waiting = nil
	if r.err != nil {
		if s.lookupFailed(h, r.err, s.clk.Now()) {
			h.waiting = waiting // unreachable for now: the URLs wait (R5.2)
			return
		}
		if h.err == nil {
			h.err = r.err
		}
		s.turnAwayAll(waiting, h.err)
		if h.budget != nil { // a later lookup: what waits at its address ends too
			s.dropHost(h, h.err)
		}
		return
	}
	if h.stopped != nil { // stopped by a response while it was looked up again
		s.turnAwayAll(waiting, s.root.Stopped(h.name, h.stopped))
		return
	}
	h.lookupFailures = 0
	switch old := h.budget; {
	case old == nil:
		h.resolvedAt = s.clk.Now()
		s.attach(h, r.addrs[0])
	case slices.Contains(r.addrs, old.addr):
		// Still one of its addresses: the host stays where it is, as
		// round-robin DNS answers in a new order each time.
		h.resolvedAt = s.clk.Now()
	case old.parkedUntil.After(s.clk.Now()):
		// Its server asked for a long wait (R2.4): the host waits it
		// out where it is, rather than be asked at once elsewhere, and is
		// looked up again once the wait is over.
		h.resolvedAt = old.parkedUntil.Add(-RobotsMaxAge)
	case old.busy:
		// A request is in flight at the old address, maybe of this host:
		// the host moves when it ends, with the rest it sets (R1.1).
		h.resolvedAt = s.clk.Now()
		if s.moves == nil {
			s.moves = make(map[*Budget][]pendingMove)
		}
		s.moves[old] = append(s.moves[old], pendingMove{h, r.addrs[0]})
	default:
		h.resolvedAt = s.clk.Now()
		s.move(h, old, r.addrs[0])
	}
	for _, t := range waiting {
		if t.robots != nil { // held for this lookup: it still goes first (R5.1)
			s.enqueueFront(h.budget, t)
			continue
		}
		s.gate(t)
	}
}

// move gives a host whose address changed at a later lookup the budget of
// its new address (R1.1). Its URLs queued at the old address go with it,
// so nothing more of it is asked there and a stop finds them all. The
// fetcher also takes a fresh transport: net/http keeps idle connections by
// host name and port, not by address, so one to the old address could
// otherwise carry a request meant for the new one.
func (s *Scheduler) move(h *host, old *Budget, a netip.Addr) {
	s.attach(h, a)
	// The new address is asked no sooner than the old one would have
	// been: they may well be one server.
	if nb := h.budget; old.nextAt.After(nb.nextAt) {
		nb.nextAt = old.nextAt
		if nb.index >= 0 {
			s.due.fix(nb)
		}
	}
	for _, t := range s.takeQueued(old, h) {
		s.enqueue(h.budget, t)
	}
	s.root.FreshTransport()
}

// pendingMove is a host to move to addr once its old budget's request in
// flight has ended.
type pendingMove struct {
	host *host
	addr netip.Addr
}

// movePending moves the hosts that waited for b's request to end, now
// that b's rest is set.
func (s *Scheduler) movePending(b *Budget) {
	pending, ok := s.moves[b]
	if !ok {
		return
	}
	delete(s.moves, b)
	for _, m := range pending {
		switch h := m.host; {
		case h.budget != b || h.stopped != nil || h.err != nil || s.hosts[h.name] != h:
		case b.parkedUntil.After(s.clk.Now()):
			// Parked by the request it waited for: it waits the park
			// out where it is, and is looked up again after (R2.4).
			h.resolvedAt = b.parkedUntil.Add(-RobotsMaxAge)
		default:
			s.move(h, b, m.addr)
		}
	}
}

// takeQueued takes a host's tasks out of a budget's queue, in order, and
// takes the budget out of the due heap if nothing is left.
func (s *Scheduler) takeQueued(b *Budget, h *host) []*Task {
	var taken, kept []*Task
	for _, t := range b.queue[b.head:] {
		if t.host == h {
			taken = append(taken, t)
		} else {
			kept = append(kept, t)
		}
	}
	b.queue, b.head = kept, 0
	if b.pending() == 0 && b.index >= 0 {
		s.due.remove(b)
		s.countNeed(b)
	}
	return taken
}

// dropHost answers with err every URL of a host that waits: those held for
// its origins' robots.txt and those queued at its budget.
func (s *Scheduler) dropHost(h *host, err error) {
	for _, o := range h.origins {
		waiting := o.waiting
		o.waiting = nil
		s.turnAwayAll(waiting, err)
	}
	if h.budget == nil {
		return
	}
	for _, t := range s.takeQueued(h.budget, h) {
		s.turnAway(t, err)
	}
}

// HostView is what a test reads of one host's state.
type HostView struct {
	Resolving bool       // a lookup is queued or running
	Addr      netip.Addr // its budget's address; zero before one
	Busy      bool       // its budget has a request in flight
}

// Inspect reads a host's state under the lock, for tests.
func (s *Scheduler) Inspect(name string) (HostView, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hosts[name]
	if h == nil {
		return HostView{}, false
	}
	v := HostView{Resolving: h.resolving}
	if h.budget != nil {
		v.Addr, v.Busy = h.budget.addr, h.budget.busy
	}
	return v, true
}

// MovesPending reports whether a host's move waits for a request in flight.
func (s *Scheduler) MovesPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.moves) > 0
}
