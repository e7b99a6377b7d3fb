package polite_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/farm"
)

// R2.4 and R2.5, seen by the server: a 503 whose Retry-After is a date in
// the past (1994: past by the farm's real-time Date header and by the
// fake clock alike) counts as no Retry-After, so four such failures in a
// row are followed by the growing backoff, not by the 3 s floor.
func TestPastRetryAfterBacksOff(t *testing.T) {
	r := newFarmRig(t)
	failing := farm.Page{Status: http.StatusServiceUnavailable,
		Header: http.Header{"Retry-After": {"Sun, 06 Nov 1994 08:49:37 GMT"}}}
	host := r.site(farm.Site{Name: "past.test", Default: func(string) farm.Page { return failing }})
	r.start(polite.Config{})
	// No URL is retried: four URLs of the host make four failures in a
	// row, one short of stopping it (R3.2).
	const n = 4
	paths := []string{"/a", "/b", "/c", "/d"}
	for _, p := range paths {
		r.add(r.url(host, p))
	}
	for u, res := range r.results(n) {
		if res.Status != http.StatusServiceUnavailable || errors.Is(res.Err, polite.ErrFailures) {
			t.Errorf("%s: status %d, %v; want the 503 itself", u, res.Status, res.Err)
		}
		if res.Verdict.HasRetryAfter {
			t.Errorf("%s: verdict %v has a Retry-After", u, res.Verdict)
		}
	}
	var visits []farm.Visit
	for _, v := range r.farm.Audit().VisitsTo(host) {
		if v.Path != farm.RobotsPath {
			visits = append(visits, v)
		}
	}
	if len(visits) != n {
		t.Fatalf("farm saw %d page requests, want %d", len(visits), n)
	}
	for i := 1; i < n; i++ {
		gap := visits[i].Start.Sub(visits[i-1].End)
		// The i-th failure in a row backs off 10 s·2^(i−1), jittered into
		// its upper half.
		least := 10 * time.Second << (i - 1) / 2
		if gap < least {
			t.Errorf("gap after failure %d (%s): %v, want ≥ %v", i, visits[i-1].Path, gap, least)
		}
	}
}
