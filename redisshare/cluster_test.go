package redisshare_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

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

// R1.4 over processes: three processes given the same three pages of
// the same 60 hosts, each holding an address no longer than it must
// (Options.Hold at its least), so that nearly every request is a
// handover: its rest given back to Redis by one process and waited out
// by the next. As the hosts saw it, no rest handed on is short, not even
// by a part of a millisecond: 0 gaps below the 3 s floor (R1.4, R2.1,
// R12.1). The hosts' latencies differ (0 to 590 ms, all under a fifth of
// the floor), so that their rests end apart and most releases go out at
// once, not behind another call of their process: a rest rounded down by
// a millisecond is then seen by the hosts, now and then, rather than
// hidden by the calls' own delays.
func TestEveryHandoverRestsWhole(t *testing.T) {
	const hosts, procs, pages = 60, 3, 3
	srv := redistest.Start(t)
	fc := startFarm(t, hosts, 0, spreadEnv+"=10ms")
	var urls []string
	for p := range pages {
		urls = append(urls, urlsOf(fc, hosts, fmt.Sprintf("/page%d", p))...)
	}
	var ps []*fetcherChild
	for i := range procs {
		ps = append(ps, startFetcher(t, srv.Addr(), fc, urls, 0,
			holdEnv+"=1ns", nameEnv+fmt.Sprintf("=p%d@farm.test", i)))
	}
	for _, p := range ps {
		answered(t, p.wait(t), urls)
	}
	vs := fc.visits(t)
	byAddr := map[netip.Addr][]politetest.Visit{}
	for _, v := range vs {
		byAddr[v.Addr] = append(byAddr[v.Addr], v)
	}
	handovers, short := 0, 0
	least := time.Duration(-1)
	for _, vs := range byAddr {
		for i := 1; i < len(vs); i++ {
			if fromOf(vs[i]) == fromOf(vs[i-1]) {
				continue
			}
			handovers++
			gap := vs[i].Start.Sub(vs[i-1].End)
			if gap < polite.MinRest {
				short++
			}
			if least < 0 || gap < least {
				least = gap
			}
		}
	}
	t.Logf("%d requests, %d handovers between processes, %d of them short; the smallest gap at a handover %v",
		len(vs), handovers, short, least)
	report(t, vs)
	if handovers < hosts*procs*pages/2 {
		t.Errorf("%d handovers between processes, want most of the %d page requests to be one", handovers, hosts*procs*pages)
	}
}
