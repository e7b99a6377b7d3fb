package polite

import (
	"errors"
	"fmt"
	"time"

	"github.com/politecrawler/polite/internal/netguard"
	"github.com/politecrawler/polite/internal/pacing"
)

// What the fetcher remembers of hosts across runs (R3.3, R2.6), through
// the Store.

// DefaultCoolOff is how long a host stopped by a refusal is left alone
// across runs the first time, 6 h; each further stop doubles it (R3.3).
const DefaultCoolOff = pacing.DefaultCoolOff

// ErrCoolingOff: the host was stopped in an earlier run and its cool-off
// has not ended (R3.3); the cause of the *StoppedError of its URLs.
var ErrCoolingOff = errors.New("polite: host cooling off after an earlier stop")

// recallHost asks the Store what an earlier run learned of a new host,
// before it is looked up; its URLs wait meanwhile, as for a lookup.
func (s *scheduler) recallHost(h *host) {
	h.resolving = true
	s.askStore(storeJob{host: h})
}

// hostRecalled takes up what an earlier run learned of a host: a cool-off
// that keeps it stopped, or the slower floor it comes back with (R2.6).
// Then the host is looked up, or given its budget if it is an address.
func (s *scheduler) hostRecalled(h *host, a *storeAnswer) {
	if a.err != nil {
		s.f.set.logger.Warn("polite: store: loading host", "host", h.name, "err", a.err)
	}
	if rec := a.host; a.err == nil && a.found && rec.Stops > 0 {
		if until := rec.CoolOffUntil; until.After(s.clk.Now()) {
			h.stopped = fmt.Errorf("%w: left alone until %s (stop %d: %s)", ErrCoolingOff,
				until.UTC().Format(time.RFC3339), rec.Stops, rec.LastReason)
			s.counts.stopped++
		} else {
			h.floorFactor = 1 << min(rec.Stops, 10) // 2× after the first cool-off, 4× after the second…
		}
	}
	switch a, literal := netguard.LiteralAddr(h.name); {
	case h.stopped != nil:
		h.resolving = false
		s.endWaiting(h, &StoppedError{Host: h.name, Cause: h.stopped})
	case s.closing:
		h.resolving = false
		s.endWaiting(h, ErrClosed)
	case literal:
		h.resolving = false
		s.attach(h, a.Unmap())
		waiting := h.waiting
		h.waiting = nil
		for _, t := range waiting {
			s.gate(t)
		}
	default:
		s.lookups = append(s.lookups, h) // still resolving
	}
}

// recordStop keeps a stop for later runs, by a store job: the refusal
// record (R3.4) and the host's grown cool-off (R3.3).
func (s *scheduler) recordStop(h *host, cause error, at time.Time) {
	if s.f.set.hosts == nil {
		return // the host is stopped for this run; the log has the refusal
	}
	s.askStore(storeJob{stop: &stopRecord{host: h.name, cause: cause, at: at}})
}

// keepStop writes a stop. A store error is logged, never fatal: the host
// is stopped for this run whatever the store says.
func (f *Fetcher) keepStop(r *stopRecord) error {
	st := f.set.hosts
	rec := RefusalRecord{Host: r.host, Kind: stopKind(r.cause), Evidence: r.cause.Error(), At: r.at}
	var ref *RefusalError
	if errors.As(r.cause, &ref) {
		rec.URL, rec.Status, rec.Evidence = ref.URL, ref.Status, ref.Verdict.Evidence
	}
	err := st.AddRefusal(rec)
	hr, _, lerr := st.LoadHost(r.host)
	if lerr == nil {
		hr.Host = r.host
		hr.Stops++
		hr.CoolOffUntil = r.at.Add(pacing.CoolOffAfter(hr.Stops, f.set.coolOff))
		hr.LastReason = r.cause.Error()
		lerr = st.SaveHost(hr)
	}
	return errors.Join(err, lerr)
}
