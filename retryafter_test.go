package polite_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R2.4 and R2.5, seen by the server: a 503 whose Retry-After is a date in
// the past (1994: past by the farm's real-time Date header and by the
// fake clock alike) counts as no Retry-After, so four such failures in a
// row are followed by the growing backoff, not by the 3 s floor.
func TestPastRetryAfterBacksOff(t *testing.T) {
	r := newFarmRig(t)
	failing := politetest.Page{Status: http.StatusServiceUnavailable,
		Header: http.Header{"Retry-After": {"Sun, 06 Nov 1994 08:49:37 GMT"}}}
	host := r.site(politetest.Site{Name: "past.test", Default: func(string) politetest.Page { return failing }})
	r.start(polite.Config{})
	// One URL, asked once and tried again three times (R11.3): four
	// failures in a row, one short of stopping the host (R3.2).
	const n = 4
	u := r.url(host, "/a")
	r.add(u)
	res := r.results(1)[u]
	if res.Status != http.StatusServiceUnavailable || errors.Is(res.Err, polite.ErrFailures) || res.Attempts != n {
		t.Errorf("%s: status %d, %d attempts, %v; want the 503 itself after %d", u, res.Status, res.Attempts, res.Err, n)
	}
	if res.Verdict.HasRetryAfter {
		t.Errorf("%s: verdict %v has a Retry-After", u, res.Verdict)
	}
	var visits []politetest.Visit
	for _, v := range r.farm.Audit().VisitsTo(host) {
		if v.Path != politetest.RobotsPath {
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
