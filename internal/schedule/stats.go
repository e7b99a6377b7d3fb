package schedule

import (
	"maps"

	"github.com/politecrawler/polite/internal/urltrap"
)

// Snapshot is the scheduler's counters at one moment; the fetcher's
// Stats says what each means.
type Snapshot struct {
	Hosts, Active, Resting, Stopped, Parked, Queued, InFlight, Requests int
	// Lookups are the host lookups under way: jobs handed out that are
	// not requests.
	Lookups   int
	Bytes     int64
	Refusals  map[string]int       // hosts stopped, by stop kind
	Traps     map[urltrap.Kind]int // URLs dropped, by trap kind
	Forgotten int
	// Need is the requests in flight the limit needs (Little's law).
	Need float64
	// Cap is MaxInFlight, the most requests in flight at once.
	Cap int
	// Ceiling is the CPU's bound on them (cpu.go): Cap without a gauge.
	Ceiling int
	// Withheld counts the requests a shared coordinator did not allow
	// (shared.go): the address was another process's, or resting.
	Withheld int
}

// runStats are the counters the scheduler keeps as it goes, so that a
// snapshot walks no queue under the lock every worker needs (R1.2).
type runStats struct {
	requests int
	bytes    int64
	refusals map[string]int
	traps    map[urltrap.Kind]int
	admitted int // URLs taken from the inbox
	finished int // URLs given their Result
	fetching int // requests in flight, robots.txt included
	// pagesInFlight are the requests in flight for URLs (not robots.txt).
	pagesInFlight int
	stopped       int // hosts stopped, in this run or cooling off from an earlier one
	forgotten     int // hosts forgotten after a robots period idle (forget.go)
	withheld      int // requests the coordinator did not allow (shared.go)
	// need sums the budgets' need (Budget.need), needers counts those
	// above 0 (inflight.go).
	need    float64
	needers int
	// capNoted is set once the log has said the cap holds requests back,
	// cpuNoted once it has said the CPU does (cpu.go).
	capNoted, cpuNoted bool
}

// snapshot reads the scheduler's counters; it runs with the lock held.
// Every URL taken in and not answered is queued or in flight; an idle
// budget with work is in the due heap.
func (s *Scheduler) snapshot() Snapshot {
	st := Snapshot{
		Hosts:     len(s.hosts) + len(s.stoppedNames),
		Forgotten: s.counts.forgotten,
		Active:    s.counts.fetching,
		Resting:   s.due.len(),
		Stopped:   s.counts.stopped,
		Queued:    s.counts.admitted - s.counts.finished - s.counts.pagesInFlight,
		InFlight:  s.counts.fetching,
		Lookups:   s.running - s.counts.fetching,
		Requests:  s.counts.requests,
		Bytes:     s.counts.bytes,
		Refusals:  maps.Clone(s.counts.refusals),
		Traps:     maps.Clone(s.counts.traps),
		Need:      s.need(),
		Cap:       s.cfg.MaxInFlight,
		Ceiling:   s.cfg.MaxInFlight,
		Withheld:  s.counts.withheld,
	}
	if s.cfg.CPU != nil {
		st.Ceiling = min(s.ceiling, s.cfg.MaxInFlight)
	}
	st.Parked = s.pruneParked(s.clk.Now())
	return st
}
