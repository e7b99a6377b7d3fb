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
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

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
	if res := r.results(1); !errors.Is(res[no].Err, polite.ErrRefused) {
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
		if !errors.Is(res.Err, polite.ErrHostStopped) || !errors.Is(res.Err, polite.ErrCoolingOff) {
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
	checkBolt(t, path)
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
