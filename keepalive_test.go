package polite_test

import (
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// keepAliveVisits crawls five pages of one site after its robots.txt and
// says, of each request the site saw in order, whether it asked
// Connection: close. robots.txt is held until every page is added, so
// they are all queued when the first is asked.
func keepAliveVisits(t *testing.T, drop bool) []bool {
	return keepAliveVisitsWith(t, drop, polite.Config{}, nil)
}

// keepAliveVisitsWith is keepAliveVisits with the Fetcher started on cfg
// and handed to started before any page is added.
func keepAliveVisitsWith(t *testing.T, drop bool, cfg polite.Config, started func(*polite.Fetcher)) []bool {
	r := newFarmRig(t)
	page := politetest.Page{Drop: drop}
	gate := make(chan struct{})
	robots := politetest.Robots("User-agent: *\nAllow: /\n")
	robots.Drop, robots.Gate = drop, gate
	name := r.site(politetest.Site{Name: "keep.test",
		Pages:   map[string]politetest.Page{politetest.RobotsPath: robots},
		Default: func(string) politetest.Page { return page }})
	f := r.start(cfg)
	if started != nil {
		started(f)
	}
	paths := []string{"/1", "/2", "/3", "/4", "/5"}
	for _, p := range paths {
		r.add(r.url(name, p))
	}
	close(gate)
	for u, res := range r.results(len(paths)) {
		if res.Err != nil || res.Status != http.StatusOK {
			t.Fatalf("%s: status %d, %v; want 200", u, res.Status, res.Err)
		}
	}
	var closes []bool
	for _, v := range r.farm.Audit().Visits() {
		closes = append(closes, v.Header.Get("Connection") == "close")
	}
	return closes
}

// A server that lets a connection go while the fetcher rests is asked to
// close each connection at once, after the first request that found the
// last one gone: the fetcher does not hold connections it cannot use
// again (R10.2, issue #16 item 12).
//
// /1 finds the connection gone one of two ways. On the fake clock it
// follows robots.txt at once, and net/http may not have seen the server's
// close yet: then /1 is written on the dead connection, is not sent again
// at once (netguard.ErrResent), and is asked again after its backoff,
// closing its own connection. Or net/http has seen it, and /1 dials a new
// one as it was. Either way the server sees each page once, and every
// page after /1 ask to close.
func TestKeepAliveDroppedAsksClose(t *testing.T) {
	got := keepAliveVisits(t, true)
	if len(got) != 6 {
		t.Fatalf("the server saw %d requests, want robots.txt and 5 pages once each", len(got))
	}
	// robots.txt keeps its connection (its pages are behind it).
	want := []bool{false, got[1], true, true, true, true}
	if !slices.Equal(got, want) {
		t.Errorf("Connection: close on each request: %v, want %v (/1 either)", got, want)
	}
}

// A server that keeps its connections is asked on them while its address
// has work to come, robots.txt's held pages included; the last page, with
// nothing behind it, asks to close.
func TestKeepAliveKeptWhileWorkIsQueued(t *testing.T) {
	got := keepAliveVisits(t, false)
	want := []bool{false, false, false, false, false, true}
	if !slices.Equal(got, want) {
		t.Errorf("Connection: close on each request: %v, want %v", got, want)
	}
}

// A connection the fetcher let go itself, taking a fresh transport (a
// host's move, or the renewal as hosts are forgotten), says nothing of the
// server: its next requests keep asking to keep their connections
// (R10.2). Counted as the server's doing, every host with a connection
// kept then closed each of its connections for the rest of the run.
func TestFreshTransportIsNotTheServersClose(t *testing.T) {
	var fp atomic.Pointer[polite.Fetcher]
	cfg := polite.Config{OnRequest: func(e polite.RequestEvent) {
		if strings.HasSuffix(e.URL, "/2") {
			polite.RenewTransport(fp.Load())
		}
	}}
	closes := keepAliveVisitsWith(t, false, cfg, fp.Store)
	// Only /5, with nothing queued behind it, asks to close.
	want := []bool{false, false, false, false, false, true}
	if !slices.Equal(closes, want) {
		t.Errorf("Connection: close on each request: %v, want %v", closes, want)
	}
}
