package redisshare_test

import (
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/redistest"
	"github.com/politecrawler/polite/politetest"
)

// The rules across processes, as the servers saw them: the farm in one
// process, fetchers in others, one Redis.

// urlsOf is one page per host, at path, of the first n hosts.
func urlsOf(fc *farmChild, n int, path string) []string {
	var urls []string
	for i := range n {
		urls = append(urls, fc.url(i, path))
	}
	return urls
}

// report checks every visit the farm saw: 0 overlaps, no gap below the
// floor (R1, R2.1), over all the processes.
func report(t *testing.T, vs []politetest.Visit) {
	t.Helper()
	rep := politetest.ReportOn(vs, politetest.AtLeast(polite.MinRest))
	if !rep.Polite() {
		t.Errorf("the farm saw, over every process: %v", rep)
	}
}

// robotsOnce checks that each host's robots.txt was asked once (R5.3).
func robotsOnce(t *testing.T, vs []politetest.Visit, hosts int) {
	t.Helper()
	n := map[string]int{}
	for _, v := range vs {
		if v.Path == politetest.RobotsPath {
			n[v.Host]++
		}
	}
	for h, c := range n {
		if c != 1 {
			t.Errorf("%s: robots.txt asked %d times over the processes, want once", h, c)
		}
	}
	if len(n) != hosts {
		t.Errorf("robots.txt asked of %d hosts, want %d", len(n), hosts)
	}
}

// answered checks that a process had one Result per URL it was given,
// none of them failed.
func answered(t *testing.T, got []outcome, urls []string) {
	t.Helper()
	if len(got) != len(urls) {
		t.Errorf("%d Results, want one per URL (%d)", len(got), len(urls))
	}
	for _, o := range got {
		if o.Err != "" || o.Status != 200 {
			t.Errorf("%s: %d %s", o.URL, o.Status, o.Err)
		}
	}
}

// Four processes given the same 500 hosts: one request at a time per
// address over all of them, the floor between any two (R1, R2), and each
// robots.txt fetched once (R5.3); every process answers every URL it was
// given (R11.1).
func TestFourProcessesShareFiveHundredHosts(t *testing.T) {
	const hosts, procs = 500, 4
	srv := redistest.Start(t)
	fc := startFarm(t, hosts, 0)
	urls := urlsOf(fc, hosts, "/page")
	var ps []*fetcherChild
	for range procs {
		ps = append(ps, startFetcher(t, srv.Addr(), fc, urls, 0))
	}
	for _, p := range ps {
		answered(t, p.wait(t), urls)
	}
	vs := fc.visits(t)
	report(t, vs)
	robotsOnce(t, vs, hosts)
	pages := 0
	for _, v := range vs {
		if strings.HasPrefix(v.Path, "/page") {
			pages++
		}
	}
	if pages != hosts*procs {
		t.Errorf("%d page requests, want %d: one per URL per process", pages, hosts*procs)
	}
}
