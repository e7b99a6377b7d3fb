package polite_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// heldStore is a memory Store whose calls of one method about one host
// wait until release is closed: a Store on a slow disk or a far network.
// entered is closed when the first such call has begun.
type heldStore struct {
	polite.Store
	method, host string
	entered      chan struct{}
	release      chan struct{}
	once         sync.Once
}

func newHeldStore(method, host string) *heldStore {
	return &heldStore{Store: polite.NewMemoryStore(), method: method, host: host,
		entered: make(chan struct{}), release: make(chan struct{})}
}

func (s *heldStore) hold(method, key string) {
	if method == s.method && strings.Contains(key, s.host) {
		s.once.Do(func() { close(s.entered) })
		<-s.release
	}
}

func (s *heldStore) LoadHost(h string) (polite.HostRecord, bool, error) {
	s.hold("LoadHost", h)
	return s.Store.LoadHost(h)
}

func (s *heldStore) LoadRobots(o string) (polite.StoredRobots, bool, error) {
	s.hold("LoadRobots", o)
	return s.Store.LoadRobots(o)
}

func (s *heldStore) AddRefusal(r polite.RefusalRecord) error {
	s.hold("AddRefusal", r.Host)
	return s.Store.AddRefusal(r)
}

// R1.2, R3.3, R3.4, R5.3: a Store call that takes long holds up only the
// host it is about. The scheduler asks the Store outside the lock every
// worker needs: while slow.test's record, robots.txt copy or refusal is
// being read or written, another host is fetched and answered. Before,
// the call was made with that lock held, and nothing else moved.
func TestSlowStoreHoldsUpOnlyItsHost(t *testing.T) {
	for _, method := range []string{"LoadHost", "LoadRobots", "AddRefusal"} {
		t.Run(method, func(t *testing.T) {
			r := newFarmRig(t)
			slowPages := map[string]politetest.Page{"/a": {Body: []byte("<p>a</p>")}}
			var apis []polite.API
			if method == "AddRefusal" { // its page refuses, and the stop is written
				slowPages["/a"] = politetest.Page{Status: http.StatusForbidden, Body: []byte("no")}
				apis = append(apis, polite.API{Host: "slow.test", Terms: "https://slow.test/terms"})
			}
			slow := r.site(politetest.Site{Name: "slow.test", Pages: slowPages})
			// other.test is a declared API: no robots.txt, no rest before
			// its first request, so its Result needs no time to pass.
			other := r.site(politetest.Site{Name: "other.test", Pages: map[string]politetest.Page{"/b": {Body: []byte("<p>b</p>")}}})
			apis = append(apis, polite.API{Host: "other.test", Terms: "https://other.test/terms"})
			store := newHeldStore(method, "slow.test")
			r.start(polite.Config{Store: store, APIs: apis})

			a, b := r.url(slow, "/a"), r.url(other, "/b")
			r.add(a)
			<-store.entered
			r.add(b)
			first, err := r.f.Next(context.Background())
			if method == "AddRefusal" && err == nil && first.URL == a {
				// The refused page's Result may come before the write ends.
				first, err = r.f.Next(context.Background())
			}
			if err != nil || first.URL != b || first.Err != nil || first.Status != http.StatusOK {
				t.Fatalf("while %s for slow.test waits: got %+v (%v), want other.test's page", method, first, err)
			}
			if n := r.farm.Audit().Count(other); n != 1 {
				t.Errorf("other.test saw %d requests, want 1", n)
			}
			close(store.release)
			if method != "AddRefusal" {
				if res := r.results(1)[a]; res == nil || res.Err != nil {
					t.Fatalf("slow.test's page after the store answered: %+v", res)
				}
				return
			}
			// Close waits for the stop's write: after it, the store has it.
			r.f.Close()
			refs, err := store.Refusals()
			if err != nil || len(refs) != 1 || refs[0].Host != "slow.test" || refs[0].Status != http.StatusForbidden {
				t.Errorf("refusals kept: %+v (%v), want slow.test's 403", refs, err)
			}
			if rec, ok, err := store.LoadHost("slow.test"); err != nil || !ok || rec.Stops != 1 {
				t.Errorf("host record: %+v %v (%v), want one stop", rec, ok, err)
			}
		})
	}
}

// R3.3, R5.3: what the Store answers still holds when it answers late. A
// host cooling off from an earlier run is not asked at all, and a stored
// robots.txt copy still fresh is used without asking for robots.txt.
func TestStoreAnswersStillHold(t *testing.T) {
	r := newFarmRig(t)
	cooling := r.site(politetest.Site{Name: "cooling.test", Pages: map[string]politetest.Page{"/a": {}}})
	known := r.site(politetest.Site{Name: "known.test", Pages: map[string]politetest.Page{"/b": {}, "/private/c": {}}})
	store := polite.NewMemoryStore()
	if err := store.SaveHost(polite.HostRecord{Host: "cooling.test", Stops: 1,
		CoolOffUntil: r.clk.Now().Add(polite.DefaultCoolOff), LastReason: "403"}); err != nil {
		t.Fatal(err)
	}
	b, c := r.url(known, "/b"), r.url(known, "/private/c")
	origin := strings.TrimSuffix(b, "/b")
	if err := store.SaveRobots(polite.StoredRobots{Origin: origin, Status: 200,
		Body: []byte("User-agent: *\nDisallow: /private/\n"), Fetched: r.clk.Now()}); err != nil {
		t.Fatal(err)
	}
	r.start(polite.Config{Store: store})
	a := r.url(cooling, "/a")
	r.add(a, b, c)
	got := r.results(3)
	if !errors.Is(got[a].Err, polite.ErrCoolingOff) {
		t.Errorf("cooling.test: %v, want ErrCoolingOff", got[a].Err)
	}
	if got[b].Err != nil || !errors.Is(got[c].Err, polite.ErrDisallowed) {
		t.Errorf("known.test: /b %v, /private/c %v; want /b fetched and /private/c disallowed by the stored copy", got[b].Err, got[c].Err)
	}
	if n := r.farm.Audit().Count(cooling); n != 0 {
		t.Errorf("cooling.test saw %d requests, want none", n)
	}
	for _, v := range r.farm.Audit().VisitsTo(known) {
		if v.Path == politetest.RobotsPath {
			t.Errorf("known.test was asked for robots.txt, with a fresh copy stored")
		}
	}
}

// timedStore is a memory Store that notes the clock at each LoadPage.
type timedStore struct {
	polite.Store
	now   func() time.Time
	mu    sync.Mutex
	loads map[string][]time.Time
}

func (s *timedStore) LoadPage(u string) (polite.StoredPage, bool, error) {
	s.mu.Lock()
	s.loads[u] = append(s.loads[u], s.now())
	s.mu.Unlock()
	return s.Store.LoadPage(u)
}

// R6.1, R1.2: a queued page's stored copy is read while its budget rests,
// so a Store's time does not lengthen the gap the server sees between two
// requests. The request is still conditional on the copy's validators,
// and a 304 still gives the stored page.
func TestStoredCopyIsReadDuringTheRest(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "kept.test", Pages: map[string]politetest.Page{
		"/p1": {ETag: `"1"`, Body: []byte("<p>one</p>")},
		"/p2": {ETag: `"2"`, Body: []byte("<p>two</p>")},
	}})
	store := &timedStore{Store: polite.NewMemoryStore(), now: r.clk.Now, loads: map[string][]time.Time{}}
	urls := []string{r.url(host, "/p1"), r.url(host, "/p2")}
	for i, u := range urls {
		p := polite.StoredPage{URL: u, Status: 200, Body: []byte("<p>stored</p>"), Fetched: r.clk.Now(),
			Header: http.Header{"Etag": {fmt.Sprintf(`"%d"`, i+1)}, "Content-Type": {"text/html"}}}
		if err := store.SavePage(p); err != nil {
			t.Fatal(err)
		}
	}
	r.start(polite.Config{Store: store})
	r.add(urls...)
	got := r.results(2)
	visits := map[string]politetest.Visit{}
	for _, v := range r.farm.Audit().VisitsTo(host) {
		visits[v.Path] = v
	}
	for i, u := range urls {
		res, v := got[u], visits[fmt.Sprintf("/p%d", i+1)]
		if res.Err != nil || !res.NotModified || string(res.Body) != "<p>stored</p>" {
			t.Errorf("%s: err %v, NotModified %v, body %q; want the stored copy confirmed", u, res.Err, res.NotModified, res.Body)
		}
		if inm := v.Header.Get("If-None-Match"); inm != fmt.Sprintf(`"%d"`, i+1) {
			t.Errorf("%s: If-None-Match %q", u, inm)
		}
		store.mu.Lock()
		loads := store.loads[u]
		store.mu.Unlock()
		if len(loads) == 0 || !loads[0].Before(v.Start) {
			t.Errorf("%s: copy loaded at %v, request at %v; want it loaded during the rest before", u, loads, v.Start)
		}
	}
}
