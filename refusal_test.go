package polite_test

import (
	"errors"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R2.4: a 429 with Retry-After in seconds: the farm sees that wait before
// the next request to the host, then the floor again.
func TestRetryAfterSeconds(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "busy.test", Pages: map[string]politetest.Page{
		"/a": {Status: 429, Header: http.Header{"Retry-After": {"120"}}},
	}})
	r.start(polite.Config{AllowPrivateNetworks: true, Retries: -1})
	a := r.farm.URL(h, "/a")
	r.add(a, r.farm.URL(h, "/b"), r.farm.URL(h, "/c"))
	res := r.results(3)
	if !errors.Is(res[a].Err, polite.ErrRateLimited) || res[a].Rest != (polite.Rest{120 * time.Second, polite.RestRetryAfter}) {
		t.Errorf("429: err %v, rest %v", res[a].Err, res[a].Rest)
	}
	vs := pageVisits(r.farm.Audit().VisitsTo(h))
	if g := gaps(vs); len(g) != 2 || g[0] != 120*time.Second || g[1] != polite.MinRest {
		t.Errorf("farm gaps %v, want [2m0s 3s]", g)
	}
}

// R2.4: Retry-After as an HTTP-date counts from the response's Date.
func TestRetryAfterDate(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "maint.test", Pages: map[string]politetest.Page{
		"/a": {Status: 503, Header: http.Header{
			"Date":        {"Thu, 01 Jan 2026 00:00:00 GMT"},
			"Retry-After": {"Thu, 01 Jan 2026 00:01:30 GMT"},
		}},
	}})
	r.start(polite.Config{AllowPrivateNetworks: true, Retries: -1})
	a := r.farm.URL(h, "/a")
	r.add(a, r.farm.URL(h, "/b"))
	res := r.results(2)
	if !errors.Is(res[a].Err, polite.ErrServerFailure) || res[a].Rest != (polite.Rest{90 * time.Second, polite.RestRetryAfter}) {
		t.Errorf("503: err %v, rest %v", res[a].Err, res[a].Rest)
	}
	if g := gaps(pageVisits(r.farm.Audit().VisitsTo(h))); len(g) != 1 || g[0] != 90*time.Second {
		t.Errorf("farm gaps %v, want [1m30s]", g)
	}
}

// R2.5: 503s without Retry-After back off more after each failure in a
// row (with the jitter fixed at its middle: 7.5 s, 15 s, 30 s, 60 s); a
// success resets the count, and the floor is back.
func TestBackoffGrowsAndResets(t *testing.T) {
	r := newFarmRig(t)
	fail := politetest.Page{Status: 503}
	h := r.site(politetest.Site{Name: "flaky.test", Pages: map[string]politetest.Page{
		"/f1": fail, "/f2": fail, "/f3": fail, "/f4": fail,
	}})
	r.start(polite.Config{AllowPrivateNetworks: true, Retries: -1}, jitter(0.5))
	var urls []string
	for _, p := range []string{"/f1", "/f2", "/f3", "/f4", "/ok1", "/ok2"} {
		urls = append(urls, r.farm.URL(h, p))
	}
	r.add(urls...)
	res := r.results(len(urls))
	want := []time.Duration{7500 * time.Millisecond, 15 * time.Second, 30 * time.Second, 60 * time.Second, polite.MinRest}
	g := gaps(pageVisits(r.farm.Audit().VisitsTo(h)))
	if len(g) != len(want) {
		t.Fatalf("farm gaps %v, want %v", g, want)
	}
	for i := range want {
		if g[i] != want[i] {
			t.Errorf("gap %d = %v, want %v", i, g[i], want[i])
		}
	}
	if res[urls[0]].Rest.Term != polite.RestBackoff || res[urls[4]].Rest.Term != polite.RestFloor {
		t.Errorf("terms %v, %v", res[urls[0]].Rest, res[urls[4]].Rest)
	}
	if res[urls[5]].Err != nil {
		t.Errorf("host stopped after four failures: %v", res[urls[5]].Err)
	}
}

// R3.2: five failures in a row stop the host; its other URLs come back
// stopped, and nothing more reaches it.
func TestFiveFailuresStopTheHost(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "broken.test", Default: func(string) politetest.Page { return politetest.Page{Status: 500} }})
	r.start(polite.Config{AllowPrivateNetworks: true})
	urls := r.pages(h, 7)
	r.add(urls...)
	res := r.results(7)
	for i, u := range urls {
		err := res[u].Err
		if i < polite.FailuresToStop && !errors.Is(err, polite.ErrServerFailure) {
			t.Errorf("%s: %v, want ErrServerFailure", u, err)
		}
		if i >= polite.FailuresToStop && (!errors.Is(err, polite.ErrHostStopped) || !errors.Is(err, polite.ErrFailures)) {
			t.Errorf("%s: %v, want ErrHostStopped caused by ErrFailures", u, err)
		}
	}
	later := r.farm.URL(h, "/later")
	r.add(later)
	if res := r.results(1); !errors.Is(res[later].Err, polite.ErrHostStopped) {
		t.Errorf("later URL: %v", res[later].Err)
	}
	if n := len(pageVisits(r.farm.Audit().VisitsTo(h))); n != polite.FailuresToStop {
		t.Errorf("farm saw %d page requests, want %d", n, polite.FailuresToStop)
	}
}

// R3.1, R3.4: a 403 stops the host at once: the refused URL carries a
// *RefusalError, the queued and later ones ErrHostStopped naming it; no
// other request reaches the host; the refusal is logged with its
// evidence; another name on the same address goes on; one User-Agent
// throughout.
func TestForbiddenStopsTheHostAtOnce(t *testing.T) {
	r := newFarmRig(t)
	addr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	h := r.site(politetest.Site{Name: "closed.test", Addr: addr, Pages: map[string]politetest.Page{"/x": {Status: 403}}})
	other := r.site(politetest.Site{Name: "open.test", Addr: addr})
	logs := &logRecords{}
	r.start(polite.Config{AllowPrivateNetworks: true, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	x := r.farm.URL(h, "/x")
	urls := []string{x, r.farm.URL(h, "/y"), r.farm.URL(other, "/1"), r.farm.URL(h, "/z"), r.farm.URL(other, "/2")}
	r.add(urls...)
	res := r.results(len(urls))
	var ref *polite.RefusalError
	if !errors.As(res[x].Err, &ref) || ref.Status != 403 || ref.Host != "closed.test" || ref.Verdict.Kind != polite.ResponseRefused {
		t.Fatalf("refused URL: %v", res[x].Err)
	}
	for _, p := range []string{"/y", "/z"} {
		err := res[r.farm.URL(h, p)].Err
		if !errors.Is(err, polite.ErrHostStopped) || !errors.Is(err, polite.ErrRefused) {
			t.Errorf("%s: %v, want ErrHostStopped naming the refusal", p, err)
		}
	}
	for _, p := range []string{"/1", "/2"} {
		if err := res[r.farm.URL(other, p)].Err; err != nil {
			t.Errorf("open.test%s: %v", p, err)
		}
	}
	later := r.farm.URL(h, "/later")
	r.add(later)
	if res := r.results(1); !errors.Is(res[later].Err, polite.ErrHostStopped) {
		t.Errorf("later URL: %v", res[later].Err)
	}
	audit := r.farm.Audit()
	if n := len(pageVisits(audit.VisitsTo(h))); n != 1 {
		t.Errorf("farm saw %d page requests to the refusing host, want 1", n)
	}
	agents := map[string]bool{}
	for _, v := range audit.Visits() {
		agents[v.Header.Get("User-Agent")] = true
	}
	if len(agents) != 1 {
		t.Errorf("User-Agents seen: %v", agents)
	}
	var refusals []map[string]any
	for _, rec := range logs.records(t) {
		if rec["level"] == "WARN" && rec["host"] == "closed.test" {
			refusals = append(refusals, rec)
		}
	}
	if len(refusals) != 1 {
		t.Fatalf("%d refusal records, want 1: %v", len(refusals), refusals)
	}
	rec := refusals[0]
	if rec["url"] != x || rec["status"] != float64(403) || rec["kind"] != "refused" || rec["evidence"] != "status 403" || rec["time"] == nil {
		t.Errorf("refusal record %v", rec)
	}
}

// R3.1: each saved challenge page stops its host; an ordinary page with a
// CAPTCHA widget in a form does not.
func TestChallengePagesStopTheirHosts(t *testing.T) {
	r := newFarmRig(t)
	files, _ := filepath.Glob("testdata/responses/*.http")
	type site struct{ name, page, next string }
	var sites []site
	for _, path := range files {
		page, err := politetest.ReadPage(path)
		if err != nil {
			t.Fatal(err)
		}
		name := r.site(politetest.Site{Name: filepath.Base(path[:len(path)-len(".http")]) + ".test", Pages: map[string]politetest.Page{
			"/page": page,
		}})
		sites = append(sites, site{name, r.farm.URL(name, "/page"), r.farm.URL(name, "/next")})
	}
	r.start(polite.Config{AllowPrivateNetworks: true}, jitter(0))
	for _, s := range sites {
		r.add(s.page, s.next)
	}
	res := r.results(2 * len(sites))
	for _, s := range sites {
		v := res[s.page].Verdict
		stopped := errors.Is(res[s.next].Err, polite.ErrHostStopped)
		if v.Kind == polite.ResponseRefused != stopped {
			t.Errorf("%s: verdict %v, next URL %v", s.name, v.Kind, res[s.next].Err)
		}
		if v.Challenge && !errors.Is(res[s.page].Err, polite.ErrRefused) {
			t.Errorf("%s: challenge without ErrRefused: %v", s.name, res[s.page].Err)
		}
		wantStop := map[string]bool{
			"cloudflare-challenge.test": true, "cloudflare-block.test": true, "aws-waf-challenge.test": true,
			"perimeterx-block.test": true, "datadome-block.test": true, "captcha-shell.test": true, "pay-per-crawl.test": true,
		}[s.name]
		if stopped != wantStop {
			t.Errorf("%s: stopped %v, want %v", s.name, stopped, wantStop)
		}
	}
}

// R2.4: a Retry-After beyond the horizon parks the address: queued and
// later URLs come back at once with the time they may be asked again.
func TestRetryAfterBeyondHorizonParks(t *testing.T) {
	r := newFarmRig(t)
	addr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	h := r.site(politetest.Site{Name: "away.test", Addr: addr, Pages: map[string]politetest.Page{
		"/a": {Status: 429, Header: http.Header{"Retry-After": {"7200"}}},
	}})
	sibling := r.site(politetest.Site{Name: "sibling.test", Addr: addr})
	r.start(polite.Config{AllowPrivateNetworks: true})
	a, b := r.farm.URL(h, "/a"), r.farm.URL(h, "/b")
	r.add(a, b)
	res := r.results(2)
	if !errors.Is(res[a].Err, polite.ErrRateLimited) || res[a].Rest.Wait != 2*time.Hour || res[a].Rest.Term != polite.RestRetryAfter {
		t.Errorf("429: %v, rest %v; want the 2 h the server asked, beyond the %v horizon", res[a].Err, res[a].Rest, polite.DefaultHorizon)
	}
	var parked *polite.ParkedError
	if !errors.As(res[b].Err, &parked) || !errors.Is(res[b].Err, polite.ErrParked) {
		t.Fatalf("queued URL: %v, want a *ParkedError", res[b].Err)
	}
	end := res[a].Started.Add(res[a].Duration)
	if !parked.Until.Equal(end.Add(2 * time.Hour)) {
		t.Errorf("parked until %v, want %v", parked.Until, end.Add(2*time.Hour))
	}
	c := r.farm.URL(sibling, "/c")
	r.add(c)
	if res := r.results(1); !errors.Is(res[c].Err, polite.ErrParked) {
		t.Errorf("a later URL on the same address: %v", res[c].Err)
	}
	if n := len(pageVisits(r.farm.Audit().Visits())); n != 1 {
		t.Errorf("farm saw %d page requests, want 1", n)
	}
}
