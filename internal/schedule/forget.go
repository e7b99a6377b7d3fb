package schedule

import "time"

// A run of a week over millions of hosts keeps in memory only the hosts
// active now (R1.2, R11). A host idle for a robots period (RobotsMaxAge)
// is forgotten: its record, origins and parsed robots.txt, its trap
// memory, the URLs added for it, and its budget if no other host shares
// it. What the rules need of it comes back when it is seen again: its
// robots.txt from the Store (or asked again, as it would be after a day
// anyway), its cool-off and slower floor from the Store, its address by a
// new lookup. No rule weakens by it: a host stopped for the run stays
// stopped (its name and cause are kept), and a host with failures in a
// row, a lookup or a request under way, a parked address or a move
// pending is not forgotten. A URL added again after its host was
// forgotten is no longer a duplicate.

// idleHost is a host that had no URL left at the time at.
type idleHost struct {
	h  *host
	at time.Time
}

// assign makes h the host of t, which leaves its earlier host (a
// redirect's) at once.
func (s *Scheduler) assign(t *Task, h *host) {
	if t.robots != nil { // the fetcher's own: its origin keeps the host
		t.host = h
		return
	}
	if old := t.host; old != nil {
		s.leave(old)
	}
	t.host = h
	h.open++
	h.lastUsed = s.clk.Now()
}

// leave counts a URL of h answered or moved on; a host left with none
// joins the idle list.
func (s *Scheduler) leave(h *host) {
	h.open--
	if h.open == 0 {
		now := s.clk.Now()
		h.lastUsed = now
		s.idle = append(s.idle, idleHost{h: h, at: now})
	}
}

// forgetIdle forgets the hosts idle for a robots period. The idle list is
// in time order, so only its front is looked at. It runs with Add held
// off and the inbox empty: every URL added is then counted in its host's
// open, and no host is forgotten between its URL's Add and its admission.
func (s *Scheduler) forgetIdle(now time.Time) {
	if len(s.idle) == s.idleHead || now.Sub(s.idle[s.idleHead].at) < RobotsMaxAge {
		return
	}
	s.root.HoldAdds()
	defer s.root.ReleaseAdds()
	if !s.inboxEmpty() {
		return
	}
	for s.idleHead < len(s.idle) && now.Sub(s.idle[s.idleHead].at) >= RobotsMaxAge {
		h := s.idle[s.idleHead].h
		s.idle[s.idleHead] = idleHost{}
		s.idleHead++
		if s.hosts[h.name] == h && s.forgettable(h, now) {
			s.forget(h, now)
		}
	}
	if s.idleHead > len(s.idle)/2 {
		n := copy(s.idle, s.idle[s.idleHead:])
		clear(s.idle[n:])
		s.idle, s.idleHead = s.idle[:n], 0
	}
}

// forgettable reports whether nothing of h is under way or would weaken
// a rule if forgotten.
func (s *Scheduler) forgettable(h *host, now time.Time) bool {
	if h.open > 0 || h.resolving || len(h.waiting) > 0 || h.failures > 0 || h.lookupFailures > 0 ||
		now.Sub(h.lastUsed) < RobotsMaxAge {
		return false
	}
	for _, o := range h.origins {
		if o.fetching || o.recalling || len(o.waiting) > 0 {
			return false
		}
	}
	if b := h.budget; b != nil {
		if b.parkedUntil.After(now) || b.nextAt.After(now) {
			return false
		}
		for _, m := range s.moves[b] {
			if m.host == h {
				return false
			}
		}
	}
	return true
}

// forget drops a host from memory; its budget goes too when no other host
// is on it and it is idle.
func (s *Scheduler) forget(h *host, now time.Time) {
	delete(s.hosts, h.name)
	delete(s.hostRests, h)
	for _, o := range h.origins {
		delete(s.origins, o.key)
	}
	if h.stopped != nil {
		if s.stoppedNames == nil {
			s.stoppedNames = make(map[string]error)
		}
		s.stoppedNames[h.name] = h.stopped
	}
	s.traps.Forget(h.name)
	s.root.ForgetAdded(h.name)
	if b := h.budget; b != nil {
		b.hosts--
		if b.hosts == 0 && !b.busy && !b.recall && !b.saving && b.pending() == 0 && b.index < 0 && !b.parkedUntil.After(now) {
			delete(s.budgets, b.addr)
		}
	}
	s.counts.forgotten++
	// A connection it kept is held idle by its name and port, not by its
	// address: were the name added again and found at another address, a
	// request pinned there would go out on it to the old one (R1.1). Such
	// a connection closes itself after Config.IdleConnLife of real time,
	// long before a host is idle long enough to be forgotten, unless the
	// clock is a test's: only then does the fetcher take a fresh
	// transport, which costs every host its idle connection.
	// TestMoveLeavesNoConnectionToTheOldAddress, whose host is sometimes
	// forgotten before it moves, failed without it in 4 runs of 100.
	if !h.keptAt.IsZero() && time.Since(h.keptAt) < s.cfg.IdleConnLife {
		s.root.FreshTransport()
	}
	// net/http keeps, per host name, a queue of requests waiting for an
	// idle connection, and deletes it only when a connection is put back
	// idle: a server that closes its connections (Connection: close, or
	// keep-alive off) leaves it behind for the life of the transport,
	// about 480 bytes a host: 23 MiB over 50,000 hosts in BenchmarkLongRun,
	// where the heap grew 1.38× from 100,000 hosts to 150,000. A fresh
	// transport every transportRenewal hosts forgotten lets them go.
	if s.forgottenSinceRenewal++; s.forgottenSinceRenewal >= transportRenewal {
		s.forgottenSinceRenewal = 0
		s.root.FreshTransport()
	}
}

// transportRenewal is how many hosts are forgotten between two fresh
// transports: the hosts active then each connect once more.
const transportRenewal = 10_000
