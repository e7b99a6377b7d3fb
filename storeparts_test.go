package polite_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R5.3, R3.3, R3.4, R6: RobotsStore and HostStore keep their parts for
// every run that is given them, as a backend shared by processes would,
// while pages are kept only where a PageStore is (Config.Store).
func TestStorePartsComeFromTheirOwnStores(t *testing.T) {
	r := newFarmRig(t)
	kept := r.site(politetest.Site{Name: "kept.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /private\n"),
		"/a":                  {ETag: `"a1"`, Body: []byte("<p>a</p>")},
	}})
	refusing := r.site(politetest.Site{Name: "refusing.test", Pages: map[string]politetest.Page{"/no": {Status: 403}}})
	shared, local := polite.NewMemoryStore(), polite.NewMemoryStore()
	page, no := r.url(kept, "/a"), r.url(refusing, "/no")

	// Run 1: pages in local, robots.txt and host records in shared.
	f := r.start(polite.Config{Store: local, RobotsStore: shared, HostStore: shared})
	r.add(page, no)
	got := r.results(2)
	if got[page].Err != nil || !errors.Is(got[no].Err, polite.ErrRefused) {
		t.Fatalf("run 1: page %v, refusing %v", got[page].Err, got[no].Err)
	}
	f.Close() // waits for the stop's writes
	origin := strings.TrimSuffix(page, "/a")
	for _, c := range []struct {
		name  string
		store polite.Store
		want  bool
	}{{"shared", shared, true}, {"local", local, false}} {
		_, robots, err := c.store.LoadRobots(origin)
		refusals, rerr := c.store.Refusals()
		_, host, herr := c.store.LoadHost(refusing)
		if err != nil || rerr != nil || herr != nil {
			t.Fatal(err, rerr, herr)
		}
		if robots != c.want || (len(refusals) == 1) != c.want || host != c.want {
			t.Errorf("%s store: robots.txt kept %v, %d refusals, host record %v; want all %v", c.name, robots, len(refusals), host, c.want)
		}
	}
	if hist, err := local.PageHistory(page); err != nil || len(hist) != 1 {
		t.Errorf("local store: %d versions of %s (%v), want 1", len(hist), page, err)
	}
	if hist, err := shared.PageHistory(page); err != nil || len(hist) != 0 {
		t.Errorf("shared store: %d versions of %s (%v), want none", len(hist), page, err)
	}
	r.farm.Audit().Reset()

	// Run 2, a minute later, with only the shared parts: robots.txt comes
	// from the copy, the refusing host is cooling off, and the page is
	// asked unconditionally since no PageStore holds its copy.
	r.clk.Advance(time.Minute)
	r.start(polite.Config{RobotsStore: shared, HostStore: shared})
	r.add(page, no)
	got = r.results(2)
	if got[page].Err != nil || got[page].NotModified || !errors.Is(got[no].Err, polite.ErrCoolingOff) {
		t.Errorf("run 2: page %v (not modified %v), refusing %v, want the page and ErrCoolingOff", got[page].Err, got[page].NotModified, got[no].Err)
	}
	vs := r.farm.Audit().Visits()
	if len(vs) != 1 || vs[0].Path != "/a" || vs[0].Header.Get("If-None-Match") != "" {
		t.Errorf("run 2: farm saw %v, want only /a, unconditional", vs)
	}
}
