package polite

import (
	"errors"
	"fmt"
	"time"
)

// What the fetcher remembers of hosts across runs (R3.3, R2.6), through
// the Store.

// DefaultCoolOff is how long a host stopped by a refusal is left alone
// across runs the first time; each further stop doubles it (R3.3).
const DefaultCoolOff = 6 * time.Hour

// ErrCoolingOff: the host was stopped in an earlier run and its cool-off
// has not ended (R3.3); the cause of the *StoppedError of its URLs.
var ErrCoolingOff = errors.New("polite: host cooling off after an earlier stop")

// coolOffAfter is the cool-off after the n-th stop: base, 2×base, 4×base…
func coolOffAfter(n int, base time.Duration) time.Duration {
	return scale(base, 1<<min(max(n-1, 0), 20))
}

// remember loads what an earlier run learned of a new host: a cool-off
// that keeps it stopped, or the slower floor it comes back with (R2.6).
func (s *scheduler) remember(h *host) {
	if s.f.set.store == nil {
		return
	}
	rec, ok, err := s.f.set.store.LoadHost(h.name)
	if err != nil {
		s.f.set.logger.Warn("polite: store: loading host", "host", h.name, "err", err)
		return
	}
	if !ok || rec.Stops == 0 {
		return
	}
	if until := rec.CoolOffUntil; until.After(s.clk.Now()) {
		h.stopped = fmt.Errorf("%w: left alone until %s (stop %d: %s)", ErrCoolingOff,
			until.UTC().Format(time.RFC3339), rec.Stops, rec.LastReason)
		return
	}
	h.floorFactor = 1 << min(rec.Stops, 10) // 2× after the first cool-off, 4× after the second…
}

// recordStop keeps a stop for later runs: the refusal record (R3.4) and
// the host's grown cool-off (R3.3). A store error is logged, never fatal:
// the host is stopped for this run whatever the store says.
func (s *scheduler) recordStop(h *host, cause error, at time.Time) {
	st := s.f.set.store
	if st == nil {
		return // the host is stopped for this run; the log has the refusal
	}
	rec := RefusalRecord{Host: h.name, Kind: "failures", Evidence: cause.Error(), At: at}
	var ref *RefusalError
	if errors.As(cause, &ref) {
		rec.URL, rec.Status, rec.Kind, rec.Evidence = ref.URL, ref.Status, ref.Verdict.Kind.String(), ref.Verdict.Evidence
		if ref.Verdict.Challenge {
			rec.Kind = "challenge"
		}
	}
	if err := st.AddRefusal(rec); err != nil {
		s.f.set.logger.Warn("polite: store: keeping a refusal", "host", h.name, "err", err)
	}
	hr, _, err := st.LoadHost(h.name)
	if err == nil {
		hr.Host = h.name
		hr.Stops++
		hr.CoolOffUntil = at.Add(coolOffAfter(hr.Stops, s.f.set.coolOff))
		hr.LastReason = cause.Error()
		err = st.SaveHost(hr)
	}
	if err != nil {
		s.f.set.logger.Warn("polite: store: keeping a host's cool-off", "host", h.name, "err", err)
	}
}
