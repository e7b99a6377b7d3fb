package polite_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R1.2, R5.3, R3.1: a host idle for a robots period leaves memory, and
// its rules come back with it: robots.txt is asked again before its next
// page and still disallows, and a URL added before is fetched again
// rather than refused as a duplicate. A host stopped for the run stays
// stopped once forgotten: nothing more is asked of it.
func TestIdleHostIsForgottenWithoutWeakeningARule(t *testing.T) {
	r := newFarmRig(t)
	kept := r.site(politetest.Site{Name: "kept.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Body: []byte("User-agent: *\nDisallow: /private/\n")},
		"/p":                  {Body: []byte("<p>p</p>")},
		"/private/x":          {Body: []byte("<p>x</p>")},
	}})
	refusing := r.site(politetest.Site{Name: "refusing.test", Pages: map[string]politetest.Page{
		"/a": {Status: http.StatusForbidden}, "/b": {},
	}})
	other := r.site(politetest.Site{Name: "other.test", Pages: map[string]politetest.Page{"/1": {}, "/2": {}}})
	f := r.start(polite.Config{})
	p, x := r.url(kept, "/p"), r.url(kept, "/private/x")
	r.add(p, r.url(refusing, "/a"))
	r.results(2)

	r.clk.Advance(polite.RobotsMaxAge + time.Hour)
	r.add(r.url(other, "/1")) // any news wakes the fetcher, which forgets what is idle
	r.results(1)
	st, err := f.Stats(context.Background())
	if err != nil || st.Forgotten != 2 || st.Hosts != 2 {
		t.Fatalf("Stats after a day idle: Forgotten %d, Hosts %d (%v); want both hosts forgotten, other.test and refusing.test's stop held", st.Forgotten, st.Hosts, err)
	}

	if err := f.Add(context.Background(), p); err != nil {
		t.Fatalf("Add(%s) again after its host was forgotten: %v", p, err)
	}
	r.add(x, r.url(refusing, "/b"))
	got := r.results(3)
	if got[p].Err != nil || got[p].Status != http.StatusOK {
		t.Errorf("%s again: %v", p, got[p].Err)
	}
	if !errors.Is(got[x].Err, polite.ErrDisallowed) {
		t.Errorf("%s: %v, want disallowed by robots.txt relearned", x, got[x].Err)
	}
	var stopped *polite.StoppedError
	if !errors.As(got[r.url(refusing, "/b")].Err, &stopped) {
		t.Errorf("refusing.test/b: %v, want its host still stopped", got[r.url(refusing, "/b")].Err)
	}
	robots := 0
	for _, v := range r.farm.Audit().VisitsTo(kept) {
		if v.Path == politetest.RobotsPath {
			robots++
		}
	}
	if robots != 2 || r.farm.Audit().Count(kept) != 4 {
		t.Errorf("kept.test: %d robots.txt requests of %d; want robots.txt, /p, then robots.txt again and /p", robots, r.farm.Audit().Count(kept))
	}
	if n := r.farm.Audit().Count(refusing); n != 2 {
		t.Errorf("refusing.test saw %d requests, want robots.txt and /a only", n)
	}
}

// forgetKept crawls a host whose last connection is kept, as in
// TestMoveLeavesNoConnectionToTheOldAddress, lets a day pass on the
// fetcher's clock until it is forgotten, and reports whether the fetcher
// took a fresh transport meanwhile.
func forgetKept(t *testing.T, opts ...startOption) bool {
	r := newFarmRig(t)
	h := keptIdle(r, polite.Config{}, opts...)
	f := r.f
	third := r.site(politetest.Site{Name: "third.test"})
	before := polite.CurrentTransport(f)
	r.clk.Advance(25 * time.Hour)
	r.add(r.url(third, "/"))
	r.results(1)
	if _, known := polite.InspectHost(f, h); known {
		t.Fatalf("%s is not forgotten after a day idle", h)
	}
	return polite.CurrentTransport(f) != before
}

// R1.1, R10.2: forgetting a host whose connection was kept takes a fresh
// transport only while that connection may still be idle in it. The
// transport closes it after netguard.IdleConnTimeout of real time, and a
// fresh transport costs every host its idle connection: on the web, where
// a host is forgotten a day after its last request, none is taken. Here a
// day passes in a millisecond, and a nanosecond stands for the 90 s.
func TestForgetTakesAFreshTransportOnlyForAConnectionStillIdle(t *testing.T) {
	if !forgetKept(t) {
		t.Error("forgotten within its connection's idle life: no fresh transport")
	}
	if forgetKept(t, idleConnLife(time.Nanosecond)) {
		t.Error("forgotten after its connection's idle life: a fresh transport")
	}
}
