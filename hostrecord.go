package polite

import (
	"errors"

	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/schedule"
)

// What the fetcher remembers of hosts across runs (R3.3, R2.6), through
// the Store. The scheduler asks for a host's record before it looks the
// host up, and for a stop to be kept; the store workers do both here.

// DefaultCoolOff is how long a host stopped by a refusal is left alone
// across runs the first time, 6 h; each further stop doubles it (R3.3).
const DefaultCoolOff = pacing.DefaultCoolOff

// ErrCoolingOff: the host was stopped in an earlier run and its cool-off
// has not ended (R3.3); the cause of the *StoppedError of its URLs.
var ErrCoolingOff = schedule.ErrCoolingOff

// keepStop writes a stop. A store error is logged, never fatal: the host
// is stopped for this run whatever the store says.
func (f *Fetcher) keepStop(r *schedule.StopRecord) error {
	st := f.set.hosts
	rec := RefusalRecord{Host: r.Host, Kind: stopKind(r.Cause), Evidence: r.Cause.Error(), At: r.At}
	var ref *RefusalError
	if errors.As(r.Cause, &ref) {
		rec.URL, rec.Status, rec.Evidence = ref.URL, ref.Status, ref.Verdict.Evidence
	}
	err := st.AddRefusal(rec)
	hr, _, lerr := st.LoadHost(r.Host)
	if lerr == nil {
		hr.Host = r.Host
		hr.Stops++
		hr.CoolOffUntil = r.At.Add(pacing.CoolOffAfter(hr.Stops, f.set.coolOff))
		hr.LastReason = r.Cause.Error()
		lerr = st.SaveHost(hr)
	}
	return errors.Join(err, lerr)
}
