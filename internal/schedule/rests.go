package schedule

import (
	"net/netip"
	"slices"
	"time"
)

// A rest outlives the run that earned it (R1.4): with a Store that keeps
// rests (Config.KeepRests), each response's rest is written for later
// runs, and a later run waits out what is left of it before its first
// request to the address or the host.
//
//   - Written: as a response's rest is set (completed), it joins the rests
//     to write, under the budget's address and the response's host. One
//     store job at a time writes them, all those waiting in one call: on
//     a bbolt file one commit and its fsyncs for all the responses that
//     ended meanwhile, where a commit each could not keep up with
//     thousands of addresses (BenchmarkDiskStore). The budget is not asked
//     again until the write of its rest has returned, so at most one rest
//     of an address is ever unwritten: a process killed between a response
//     and the write loses that rest, and no address more than its last
//     one. The rest is at least a second (R2.1) and a write takes
//     milliseconds, so the hold costs nothing unless the Store is slower
//     than the rest.
//   - Read: a new host's rest is asked with its record, before it is
//     looked up (hostRecalled), and applied to the budget it is given; a
//     new budget's rest is asked before its first request, robots.txt
//     included (the budget is not due meanwhile). Hosts on one address
//     share its rest (R1.1), and a host that moved to another address
//     since brings its own.
//
// What is left is measured to the stored end of the rest, but never
// further than the rest's length from now: a clock set back between the
// runs does not hold an address longer than the rest itself. What is left
// beyond the horizon parks the address, as the Retry-After that set it
// did (R2.4).

// RestRecord is a rest as the Store keeps it (R1.4): the server address
// and host of the response that earned it, when it ends, and its length,
// from the response's end (R1.3).
type RestRecord struct {
	Addr  netip.Addr
	Host  string
	Until time.Time
	Rest  time.Duration
}

// restBatch is rests to write, each with the budget it holds.
type restBatch struct {
	rests   []RestRecord
	budgets []*Budget
}

// keepRest adds the rest just set on b after a response of host h to
// the rests to write, and holds b until it is written.
func (s *Scheduler) keepRest(b *Budget, h *host, end time.Time, wait time.Duration) {
	if !s.cfg.KeepRests {
		return
	}
	b.saving = true
	s.restWork.rests = append(s.restWork.rests, RestRecord{Addr: b.addr, Host: h.name, Until: end.Add(wait), Rest: wait})
	s.restWork.budgets = append(s.restWork.budgets, b)
	s.askRests()
}

// askRests queues the store job that writes the rests waiting, unless
// one is queued or running: it takes them all when it is handed out. It
// goes first, before the loads that wait: each rest holds its budget, and
// at the start of a run thousands of new hosts' loads may be queued
// (BenchmarkSlowStore: behind them, robots.txt's rests were written
// late, and the first pages 11-15 ms late).
func (s *Scheduler) askRests() {
	if s.restJob || len(s.restWork.rests) == 0 {
		return
	}
	s.restJob = true
	s.storeWork = slices.Insert(s.storeWork, 0, StoreJob{rests: &restBatch{}})
}

// takeRests fills a rests job, as it is handed out, with the rests
// waiting.
func (s *Scheduler) takeRests(into *restBatch) {
	*into, s.restWork = s.restWork, restBatch{}
}

// restsSaved lets the budgets of a batch be asked again once their rests
// are written, and writes the rests that came meanwhile. A failed write
// is logged: the rests hold in this run all the same.
func (s *Scheduler) restsSaved(batch *restBatch, a *StoreAnswer) {
	if a.Err != nil {
		s.cfg.Logger.Warn("polite: store: keeping rests", "rests", len(batch.rests), "err", a.Err)
	}
	for _, b := range batch.budgets {
		b.saving = false
		s.arm(b)
	}
	s.restJob = false
	s.askRests()
}

// recallRest asks for a new budget's stored rest; b is not due until
// the answer comes.
func (s *Scheduler) recallRest(b *Budget) {
	if !s.cfg.KeepRests {
		return
	}
	b.recall = true
	s.askStore(StoreJob{budget: b})
}

// restRecalled takes up a new budget's stored rest and lets it be asked.
func (s *Scheduler) restRecalled(b *Budget, a *StoreAnswer) {
	b.recall = false
	switch {
	case a.Err != nil:
		s.cfg.Logger.Warn("polite: store: loading an address's rest", "address", b.addr, "err", a.Err)
	case a.HasRest:
		s.restAtLeast(b, a.Rest)
	}
	s.arm(b)
}

// restLeft is when a stored rest ends, as this run counts it: at its
// end, or its length from now if that is sooner.
func restLeft(r RestRecord, now time.Time) time.Time {
	if limit := now.Add(r.Rest); limit.Before(r.Until) {
		return limit
	}
	return r.Until
}

// restAtLeast makes b wait out what is left of a stored rest: its next
// request no sooner, and its URLs parked if that is beyond the horizon.
func (s *Scheduler) restAtLeast(b *Budget, r RestRecord) {
	now := s.clk.Now()
	until := restLeft(r, now)
	if !until.After(now) {
		return
	}
	if until.Sub(now) > s.cfg.Horizon {
		if until.After(b.parkedUntil) {
			b.parkedUntil = until
		}
		s.park(b, now)
	}
	if b.coordWait { // the coordinator's wait ends sooner than this
		if until.After(b.ownRest) {
			b.ownRest = until
		}
	}
	if until.After(b.nextAt) {
		b.nextAt = until
		if b.index >= 0 {
			s.due.fix(b)
		}
	}
}

// hostRestKept keeps, for a host recalled before its lookup, the rest an
// earlier run left it, to apply to the budget it is given (attach).
func (s *Scheduler) hostRestKept(h *host, a *StoreAnswer) {
	if !a.HasRest || !restLeft(a.Rest, s.clk.Now()).After(s.clk.Now()) {
		return
	}
	if s.hostRests == nil {
		s.hostRests = make(map[*host]RestRecord)
	}
	s.hostRests[h] = a.Rest
}

// applyHostRest applies to b the rest an earlier run left h, if any.
func (s *Scheduler) applyHostRest(h *host, b *Budget) {
	r, ok := s.hostRests[h]
	if !ok {
		return
	}
	delete(s.hostRests, h)
	s.restAtLeast(b, r)
}
