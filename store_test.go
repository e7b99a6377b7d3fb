package polite_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/storage"
	"github.com/politecrawler/polite/politetest"
)

// The store's own mechanics (the bbolt file, crashes, locks, copies, the
// memory store's parity with it) are tested in internal/storage. Here:
// that the public Store passes each record through whole and wraps every
// error in ErrStore, for both stores.

// storeKinds are the Stores OpenStore and NewMemoryStore give.
var storeKinds = []struct {
	name string
	open func(t *testing.T) polite.Store
}{
	{"memory", func(t *testing.T) polite.Store { return polite.NewMemoryStore() }},
	{"disk", func(t *testing.T) polite.Store { return openTestStore(t, filepath.Join(t.TempDir(), "store.db")) }},
}

// storeTestTime has nanoseconds and a zone other than UTC.
var storeTestTime = time.Date(2026, 5, 17, 14, 3, 7, 123456789, time.FixedZone("CEST", 2*3600))

// TestStoreKeepsEveryField: each field of each record comes back as
// saved, times in UTC, through polite's types.
func TestStoreKeepsEveryField(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			s := kind.open(t)
			defer s.Close()
			at := storeTestTime
			page := polite.StoredPage{URL: "https://example.org/a", Status: 203,
				Header: http.Header{"Etag": {`"v1"`}, "Vary": {"Accept", "Accept-Language"}}, Body: []byte("<p>a</p>"), Fetched: at}
			if err := s.SavePage(page); err != nil {
				t.Fatal(err)
			}
			page.Fetched = at.UTC()
			got, ok, err := s.LoadPage(page.URL)
			if err != nil || !ok || !reflect.DeepEqual(got, page) {
				t.Errorf("LoadPage = %#v, %v, %v; want %#v", got, ok, err, page)
			}
			if h, err := s.PageHistory(page.URL); err != nil || len(h) != 1 || !reflect.DeepEqual(h[0], page) {
				t.Errorf("PageHistory = %#v, %v; want one version %#v", h, err, page)
			}

			robots := polite.StoredRobots{Origin: "https://example.org:443", Status: 200,
				Header: http.Header{"Etag": {`"r"`}}, Body: []byte("User-agent: *\n"), Fetched: at.Add(time.Hour)}
			if err := s.SaveRobots(robots); err != nil {
				t.Fatal(err)
			}
			robots.Fetched = robots.Fetched.UTC()
			if got, ok, err := s.LoadRobots(robots.Origin); err != nil || !ok || !reflect.DeepEqual(got, robots) {
				t.Errorf("LoadRobots = %#v, %v, %v; want %#v", got, ok, err, robots)
			}

			ref := polite.RefusalRecord{Host: "example.org", URL: "https://example.org/x", Status: 403,
				Kind: polite.StopFailures, Evidence: "five failures", At: at.Add(2 * time.Hour)}
			if err := s.AddRefusal(ref); err != nil {
				t.Fatal(err)
			}
			ref.At = ref.At.UTC()
			if rs, err := s.Refusals(); err != nil || len(rs) != 1 || rs[0] != ref {
				t.Errorf("Refusals = %#v, %v; want %#v", rs, err, ref)
			}

			host := polite.HostRecord{Host: "example.org", Stops: 2, CoolOffUntil: at.Add(12 * time.Hour), LastReason: "403 on /x"}
			if err := s.SaveHost(host); err != nil {
				t.Fatal(err)
			}
			host.CoolOffUntil = host.CoolOffUntil.UTC()
			if got, ok, err := s.LoadHost(host.Host); err != nil || !ok || got != host {
				t.Errorf("LoadHost = %#v, %v, %v; want %#v", got, ok, err, host)
			}
		})
	}
}

// TestStoreErrorsAreErrStore: a bad key, a closed store, a file that is
// no store or a path that cannot be one are ErrStore errors, and none of
// them ErrStoreLocked.
func TestStoreErrorsAreErrStore(t *testing.T) {
	calls := func(s polite.Store, k string) []error {
		_, _, err1 := s.LoadPage(k)
		_, err2 := s.PageHistory(k)
		_, _, err3 := s.LoadRobots(k)
		_, _, err4 := s.LoadHost(k)
		_, err5 := s.Refusals()
		return []error{err1, err2, err3, err4, err5,
			s.SavePage(polite.StoredPage{URL: k}), s.SaveRobots(polite.StoredRobots{Origin: k}),
			s.SaveHost(polite.HostRecord{Host: k}), s.AddRefusal(polite.RefusalRecord{Host: k})}
	}
	isStoreError := func(t *testing.T, what string, err error) {
		t.Helper()
		if !errors.Is(err, polite.ErrStore) || errors.Is(err, polite.ErrStoreLocked) {
			t.Errorf("%s: err = %v, want ErrStore", what, err)
		}
	}
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			s := kind.open(t)
			for _, k := range []string{"", "https://example.org/" + strings.Repeat("a", 17<<10)} {
				errs := calls(s, k)
				keyed := append(errs[:4:4], errs[5:8]...) // not Refusals nor AddRefusal: they take no key
				for i, err := range keyed {
					isStoreError(t, fmt.Sprintf("key of %d bytes, call %d", len(k), i), err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("second Close: %v", err)
			}
			for i, err := range calls(s, "https://example.org/a") {
				isStoreError(t, fmt.Sprintf("call %d after Close", i), err)
			}
		})
	}
	dir := t.TempDir()
	_, err := polite.OpenStore(filepath.Join(dir, "no-such-dir", "x.db"))
	isStoreError(t, "a path in a missing directory", err)
	text := filepath.Join(dir, "text.txt")
	if err := os.WriteFile(text, []byte("hello, this is not a database\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = polite.OpenStore(text)
	isStoreError(t, "a text file", err)
}

// TestOpenStoreLockedInProcess: a second OpenStore of a file already
// open returns ErrStoreLocked, an ErrStore; after Close it opens.
func TestOpenStoreLockedInProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := openTestStore(t, path)
	defer s.Close()
	s2, err := polite.OpenStore(path)
	if err == nil {
		s2.Close()
		t.Fatal("opened twice")
	}
	if !errors.Is(err, polite.ErrStoreLocked) || !errors.Is(err, polite.ErrStore) {
		t.Fatalf("err = %v, want ErrStoreLocked", err)
	}
	s.Close()
	openTestStore(t, path).Close()
}

func openTestStore(t *testing.T, path string) polite.Store {
	t.Helper()
	st, err := polite.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// R6: two runs on one store file. The second asks conditionally (the farm
// sees If-None-Match), gets 304s, and its Results hold the first run's
// bodies, marked not modified. robots.txt, fresh in the store, is not
// asked again (R5.3). The history keeps one version per 200.
func TestStoreTwoRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polite.db")
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "etag.test", Default: func(p string) politetest.Page {
		return politetest.Page{ETag: `"` + p + `-v1"`, Body: []byte("<p>page " + p + "</p>")}
	}})
	urls := r.pages(h, 3)

	st := openTestStore(t, path)
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	r.add(urls...)
	first := r.results(len(urls))
	r.f.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	r.farm.Audit().Reset()
	r.clk.Advance(time.Hour)

	st = openTestStore(t, path)
	defer st.Close()
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	r.add(urls...)
	second := r.results(len(urls))
	for _, u := range urls {
		a, b := first[u], second[u]
		if a.Err != nil || b.Err != nil || a.NotModified || !b.NotModified || !bytes.Equal(a.Body, b.Body) || b.Status != 200 {
			t.Errorf("%s: run 1 %d %v %q; run 2 %d %v not-modified=%v %q", u, a.Status, a.Err, a.Body, b.Status, b.Err, b.NotModified, b.Body)
		}
		if b.Verdict.Kind != polite.ResponseNotModified {
			t.Errorf("%s: run 2 verdict %v", u, b.Verdict.Kind)
		}
	}
	vs := r.farm.Audit().VisitsTo(h)
	if len(vs) != len(urls) {
		t.Errorf("run 2: farm saw %d requests, want %d pages and no robots.txt", len(vs), len(urls))
	}
	for _, v := range vs {
		if want := `"` + v.Path + `-v1"`; v.Header.Get("If-None-Match") != want {
			t.Errorf("run 2: %s asked with If-None-Match %q, want %q", v.Path, v.Header.Get("If-None-Match"), want)
		}
	}
	hist, err := st.PageHistory(urls[0])
	if err != nil || len(hist) != 1 {
		t.Errorf("history of %s: %d versions, %v", urls[0], len(hist), err)
	}
}

// R3.3, R2.6: a refusal in run 1 is honoured by a new Fetcher on the same
// store in run 2: no request reaches the host within the cool-off; after
// it, the host is asked again with its floor doubled.
func TestStoreRefusalAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polite.db")
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "moody.test", Pages: map[string]politetest.Page{"/no": {Status: 403}}})

	st := openTestStore(t, path)
	defer st.Close()
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	no := r.farm.URL(h, "/no")
	r.add(no)
	if res := r.results(1); !isA[*polite.RefusalError](res[no].Err) {
		t.Fatalf("run 1: %v", res[no].Err)
	}
	r.f.Close()
	refusals, err := st.Refusals()
	if err != nil || len(refusals) != 1 || refusals[0].Host != h || refusals[0].Status != 403 || refusals[0].Kind != "refused" {
		t.Errorf("refusals kept: %+v, %v", refusals, err)
	}
	rec, ok, err := st.LoadHost(h)
	if err != nil || !ok || rec.Stops != 1 || !rec.CoolOffUntil.Equal(r.clk.Now().Add(polite.DefaultCoolOff)) {
		t.Errorf("host record %+v %v %v, want 1 stop, cool-off until +6h", rec, ok, err)
	}
	r.farm.Audit().Reset()

	// Run 2, five hours later: still cooling off.
	r.clk.Advance(5 * time.Hour)
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	urls := r.pages(h, 3)
	r.add(urls...)
	for u, res := range r.results(3) {
		if !isA[*polite.StoppedError](res.Err) || !errors.Is(res.Err, polite.ErrCoolingOff) {
			t.Errorf("run 2, %s: %v", u, res.Err)
		}
	}
	r.f.Close()
	if n := len(r.farm.Audit().Visits()); n != 0 {
		t.Errorf("run 2: farm saw %d requests within the cool-off", n)
	}

	// Run 3, after the cool-off: asked again, at twice the floor (its
	// robots.txt, 7 h old in the store, is still fresh: not asked).
	r.clk.Advance(2 * time.Hour)
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	r.add(urls...)
	for u, res := range r.results(3) {
		if res.Err != nil || res.Rest != (polite.Rest{2 * polite.MinRest, polite.RestFloor}) {
			t.Errorf("run 3, %s: %v, rest %v", u, res.Err, res.Rest)
		}
	}
	wantGaps(t, h, r.farm.Audit().VisitsTo(h), 3, 2*polite.MinRest)
}

// 64 workers writing pages to one on-disk store at once (run under -race):
// every page delivered is stored.
func TestStoreManyWorkers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polite.db")
	r := newFarmRig(t)
	var urls []string
	for i := range 64 {
		urls = append(urls, r.pages(r.site(politetest.Site{Name: fmt.Sprintf("w%02d.test", i)}), 1)...)
	}
	st := openTestStore(t, path)
	defer st.Close()
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st, MaxInFlight: 64})
	r.add(urls...)
	for u, res := range r.results(len(urls)) {
		p, ok, err := st.LoadPage(u)
		if res.Err != nil || err != nil || !ok || !bytes.Equal(p.Body, res.Body) {
			t.Errorf("%s: result %v; stored %v %v", u, res.Err, ok, err)
		}
	}
}

// The crash child fetches from a farm into an on-disk store and prints
// each URL whose Result it has been given; the parent kills it.
const fetchChildEnv = "POLITE_FETCH_CHILD"

func TestFetchCrashChild(t *testing.T) {
	path := os.Getenv(fetchChildEnv)
	if path == "" {
		t.Skip("the child of TestFetchCrash")
	}
	st, err := polite.OpenStore(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	r := newFarmRig(t)
	var urls []string
	for i := range 40 {
		urls = append(urls, r.pages(r.site(politetest.Site{Name: fmt.Sprintf("k%02d.test", i)}), 100)...)
	}
	f := r.start(polite.Config{AllowPrivateNetworks: true, Store: st, MaxInFlight: 16})
	r.add(urls...)
	for {
		res, err := f.Next(context.Background())
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		if res.Err == nil {
			fmt.Println("delivered", res.URL)
		}
	}
}

// A fetcher killed with SIGKILL mid-run leaves a store that opens and
// holds every page whose Result had been delivered.
func TestFetchCrash(t *testing.T) {
	skipProcessTests(t)
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFetchCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fetchChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var delivered []string
	for len(delivered) < 300 && lines.Scan() {
		line := lines.Text()
		if strings.HasPrefix(line, "error") {
			t.Fatalf("child: %s", line)
		}
		if u, ok := strings.CutPrefix(line, "delivered "); ok {
			delivered = append(delivered, u)
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if len(delivered) < 300 {
		t.Fatalf("the child delivered only %d results before it stopped", len(delivered))
	}
	if err := storage.Check(path); err != nil {
		t.Fatalf("bbolt check: %v", err)
	}
	st := openTestStore(t, path)
	defer st.Close()
	for _, u := range delivered {
		p, ok, err := st.LoadPage(u)
		if err != nil || !ok || len(p.Body) == 0 {
			t.Errorf("%s was delivered but is not stored: %v %v", u, ok, err)
		}
	}
}

// R5.3: a robots.txt copy keeps what a conditional refresh needs, its
// validators, and no other header of the answer.
func TestRobotsCopyKeepsItsValidators(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "valid.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Body: []byte("User-agent: *\nAllow: /\n"), Header: http.Header{
			"Etag": {`"r1"`}, "Last-Modified": {"Sun, 29 Nov 2026 10:00:00 GMT"}, "Set-Cookie": {"id=1"}, "X-Served-By": {"cache-7"},
		}},
	}})
	st := polite.NewMemoryStore()
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	r.add(r.farm.URL(h, "/"))
	r.results(1)
	key := originOf(t, r.farm.URL(h, "/"))
	rec, ok, err := st.LoadRobots(key)
	if err != nil || !ok {
		t.Fatalf("no copy of %s: %v", key, err)
	}
	want := http.Header{"Etag": {`"r1"`}, "Last-Modified": {"Sun, 29 Nov 2026 10:00:00 GMT"}}
	if !reflect.DeepEqual(rec.Header, want) {
		t.Errorf("kept headers %v, want %v", rec.Header, want)
	}
}

// originOf is the key of a URL's robots.txt copy in a RobotsStore:
// "scheme://host:port", the port written even when it is the default.
func originOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port)
}

// R4, R6.1: a Result says what its request carried, as the farm saw it;
// a 304's Result keeps the 304's own header and when the copy it
// confirmed was fetched, for a record of the exchange (a WARC revisit).
func TestResultRecordsTheExchange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polite.db")
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "etag.test", Default: func(p string) politetest.Page {
		return politetest.Page{ETag: `"` + p + `-v1"`, Body: []byte("<p>page " + p + "</p>")}
	}})
	u := r.url(h, "/page")
	st := openTestStore(t, path)
	defer st.Close()
	r.start(polite.Config{Store: st, Contact: "ops@example.org"})
	r.add(u)
	first := r.results(1)[u]
	r.f.Close()
	r.clk.Advance(time.Hour)
	r.start(polite.Config{Store: st, Contact: "ops@example.org"})
	r.add(u)
	second := r.results(1)[u]

	vs := pageVisits(r.farm.Audit().VisitsTo(h))
	if len(vs) != 2 {
		t.Fatalf("farm saw %d page requests, want 2", len(vs))
	}
	for i, res := range []*polite.Result{first, second} {
		for _, k := range []string{"User-Agent", "Accept", "From", "If-None-Match"} {
			if got, saw := res.Request.Get(k), vs[i].Header.Get(k); got != saw {
				t.Errorf("run %d: Result.Request %s = %q, the farm saw %q", i+1, k, got, saw)
			}
		}
	}
	if first.NotModified || first.NotModifiedHeader != nil || !first.CopyFetched.IsZero() {
		t.Errorf("run 1: a 200 with NotModifiedHeader %v, CopyFetched %v", first.NotModifiedHeader, first.CopyFetched)
	}
	if !second.NotModified || second.NotModifiedHeader.Get("ETag") != `"/page-v1"` || second.Header.Get("Content-Type") == "" {
		t.Errorf("run 2: NotModified %v, 304 header %v, copy header %v", second.NotModified, second.NotModifiedHeader, second.Header)
	}
	if want := first.Started.Add(first.Duration); !second.CopyFetched.Equal(want) {
		t.Errorf("run 2: CopyFetched %v, want run 1's end %v", second.CopyFetched, want)
	}
}

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
	if got[b].Err != nil || !isA[*polite.DisallowedError](got[c].Err) {
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

// R5.3, R3.3, R3.4, R6: with Config.Shared, the robots.txt copies and host
// records are the Shared's, for every run that is given it, while pages are
// kept only in Config.Store.
func TestStorePartsComeFromTheirOwnStores(t *testing.T) {
	r := newFarmRig(t)
	kept := r.site(politetest.Site{Name: "kept.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /private\n"),
		"/a":                  {ETag: `"a1"`, Body: []byte("<p>a</p>")},
	}})
	refusing := r.site(politetest.Site{Name: "refusing.test", Pages: map[string]politetest.Page{"/no": {Status: 403}}})
	shared, local := polite.NewMemoryStore(), polite.NewMemoryStore()
	coordinated := &scriptedShared{Store: shared, take: granted}
	page, no := r.url(kept, "/a"), r.url(refusing, "/no")

	// Run 1: pages in local, robots.txt and host records in shared.
	f := r.start(polite.Config{Store: local, Shared: coordinated})
	r.add(page, no)
	got := r.results(2)
	if got[page].Err != nil || !isA[*polite.RefusalError](got[no].Err) {
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
	r.start(polite.Config{Shared: coordinated})
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

func skipProcessTests(t *testing.T) {
	switch runtime.GOOS {
	case "js", "wasip1", "ios", "android":
		t.Skipf("no child processes on %s", runtime.GOOS)
	}
}
