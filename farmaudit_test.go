package polite_test

import (
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// pageVisits leaves out the robots.txt requests.
func pageVisits(vs []politetest.Visit) []politetest.Visit {
	var out []politetest.Visit
	for _, v := range vs {
		if v.Path != politetest.RobotsPath {
			out = append(out, v)
		}
	}
	return out
}

// gaps returns the server-side gaps between consecutive visits of a host.
func gaps(vs []politetest.Visit) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(vs); i++ {
		out = append(out, vs[i].Start.Sub(vs[i-1].End))
	}
	return out
}

// wantGaps checks that the farm saw n visits, each exactly want after the
// previous one ended.
func wantGaps(t *testing.T, host string, vs []politetest.Visit, n int, want time.Duration) {
	t.Helper()
	if len(vs) != n {
		t.Fatalf("%s: farm saw %d requests, want %d", host, len(vs), n)
	}
	for i, g := range gaps(vs) {
		if g != want {
			t.Errorf("%s: gap %d = %v, want exactly %v", host, i, g, want)
		}
	}
}

// restRule is the audit's view of R2.1–R2.2: after a visit of length d the
// address must rest at least max(floor, 5d capped at 30 s). The server sees
// a visit no longer than the client does, so this bound is safe.
func restRule(floor time.Duration) func(politetest.Visit) time.Duration {
	return func(prev politetest.Visit) time.Duration {
		return max(floor, min(polite.MinDurationFactor*prev.End.Sub(prev.Start), polite.DurationRestCap))
	}
}
