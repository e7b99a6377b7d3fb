package polite

import (
	"fmt"
	"testing"
	"time"

	"github.com/politecrawler/polite/politetest"
)

// pages returns n URLs of one farm host.
func (r *rig) pages(host string, n int) []string {
	urls := make([]string, n)
	for i := range urls {
		urls[i] = r.farm.URL(host, fmt.Sprintf("/p%d", i))
	}
	return urls
}

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
