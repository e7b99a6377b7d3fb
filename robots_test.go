package polite_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R5.1: robots.txt is the first request on every host, asked once per
// origin, through the same budget and rest as the pages.
func TestRobotsFirstOnEveryHost(t *testing.T) {
	r := newFarmRig(t)
	var urls []string
	for i := range 30 {
		h := r.site(politetest.Site{Name: fmt.Sprintf("r%02d.test", i)})
		urls = append(urls, r.pages(h, 3)...)
	}
	r.start(polite.Config{AllowPrivateNetworks: true})
	r.add(urls...)
	for u, res := range r.results(len(urls)) {
		if res.Err != nil {
			t.Errorf("%s: %v", u, res.Err)
		}
	}
	for i := range 30 {
		vs := r.farm.Audit().VisitsTo(fmt.Sprintf("r%02d.test", i))
		if len(vs) != 4 || vs[0].Path != politetest.RobotsPath || len(pageVisits(vs)) != 3 {
			t.Errorf("r%02d.test: %d visits, first %q; want robots.txt once, first, then 3 pages", i, len(vs), vs[0].Path)
		}
		if a := vs[0].Header.Get("Accept"); a != "text/plain" {
			t.Errorf("robots.txt asked with Accept %q", a)
		}
	}
	if rep := r.farm.Audit().Report(restRule(polite.MinRest)); rep.Overlaps != 0 || len(rep.ShortGaps) != 0 {
		t.Errorf("farm audit: %v", rep)
	}
}

// R5.4: a disallowed URL comes back with a *DisallowedError naming the rule; the
// farm never sees it. Sitemap lines are the caller's to read.
func TestDisallowedURLs(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "rules.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /private/\n\nUser-agent: PoliteCrawler\nDisallow: /drafts/\nAllow: /drafts/public\n\nSitemap: https://rules.test/sitemap.xml\n"),
	}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	drafts, public, private := r.farm.URL(h, "/drafts/x"), r.farm.URL(h, "/drafts/public/y"), r.farm.URL(h, "/private/z")
	r.add(drafts, public, private)
	res := r.results(3)
	var dis *polite.DisallowedError
	if !errors.As(res[drafts].Err, &dis) || !isA[*polite.DisallowedError](res[drafts].Err) || dis.Decision.Line != 5 || dis.Decision.Pattern != "/drafts/" {
		t.Errorf("/drafts/x: %v", res[drafts].Err)
	}
	if res[public].Err != nil {
		t.Errorf("/drafts/public/y: %v", res[public].Err)
	}
	// Our own group applies, never combined with *'s (R5.1).
	if res[private].Err != nil {
		t.Errorf("/private/z: %v", res[private].Err)
	}
	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Path == "/drafts/x" {
			t.Error("the farm saw a disallowed URL")
		}
	}
	rules, ok := r.f.Robots(drafts)
	if !ok || len(rules.Sitemaps()) != 1 || rules.Sitemaps()[0] != "https://rules.test/sitemap.xml" {
		t.Errorf("Robots(): %v %v", ok, rules)
	}
}

// R5.2: while robots.txt answers 500, nothing but robots.txt is asked,
// with a growing backoff; when it recovers, the pages follow its rules.
func TestRobotsUnreachableHoldsThePages(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "down.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Sequence: []politetest.Page{{Status: 500}, {Status: 503}, {Status: 429}, politetest.Robots("User-agent: *\nDisallow: /no\n")}},
	}})
	r.start(polite.Config{AllowPrivateNetworks: true}, jitter(0.5))
	yes, no := r.farm.URL(h, "/yes"), r.farm.URL(h, "/no")
	r.add(yes, no)
	res := r.results(2)
	if res[yes].Err != nil || !isA[*polite.DisallowedError](res[no].Err) {
		t.Errorf("after recovery: /yes %v, /no %v", res[yes].Err, res[no].Err)
	}
	vs := r.farm.Audit().VisitsTo(h)
	var paths []string
	for _, v := range vs {
		paths = append(paths, v.Path)
	}
	if fmt.Sprint(paths) != "[/robots.txt /robots.txt /robots.txt /robots.txt /yes]" {
		t.Errorf("farm saw %v", paths)
	}
	want := []time.Duration{7500 * time.Millisecond, 15 * time.Second, 30 * time.Second, polite.MinRest}
	if g := gaps(vs); fmt.Sprint(g) != fmt.Sprint(want) {
		t.Errorf("gaps %v, want %v", g, want)
	}
}

// R5.2, R3.2: a robots.txt that keeps failing stops the host after five
// failures; its pages come back stopped, none was asked.
func TestRobotsFailingFiveTimesStopsTheHost(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "dead.test", Pages: map[string]politetest.Page{politetest.RobotsPath: {Status: 502}}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	urls := r.pages(h, 2)
	r.add(urls...)
	for u, res := range r.results(2) {
		if !isA[*polite.StoppedError](res.Err) || !errors.Is(res.Err, polite.ErrFailuresInARow) {
			t.Errorf("%s: %v", u, res.Err)
		}
	}
	if n, pages := r.farm.Audit().Count(h), len(pageVisits(r.farm.Audit().VisitsTo(h))); n != polite.FailuresToStop || pages != 0 {
		t.Errorf("farm saw %d requests, %d of them pages; want %d robots.txt only", n, pages, polite.FailuresToStop)
	}
}

// R5.2: 401, 402, 403 and challenge pages on robots.txt are refusals.
func TestRobotsRefusalStopsTheHost(t *testing.T) {
	for _, status := range []int{401, 402, 403} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			r := newFarmRig(t)
			h := r.site(politetest.Site{Name: "no.test", Pages: map[string]politetest.Page{politetest.RobotsPath: {Status: status}}})
			r.start(polite.Config{AllowPrivateNetworks: true})
			urls := r.pages(h, 2)
			r.add(urls...)
			for u, res := range r.results(2) {
				if !isA[*polite.StoppedError](res.Err) || !isA[*polite.RefusalError](res.Err) {
					t.Errorf("%s: %v", u, res.Err)
				}
			}
			if n := r.farm.Audit().Count(h); n != 1 {
				t.Errorf("farm saw %d requests, want robots.txt only", n)
			}
		})
	}
}

// R5.2: a robots.txt that redirects to another host: the hop goes through
// that host's politeness, and the rules found there apply to the first.
func TestRobotsRedirectToAnotherHost(t *testing.T) {
	r := newFarmRig(t)
	rulesHost := r.site(politetest.Site{Name: "cdn.test", Pages: map[string]politetest.Page{
		"/shared-robots.txt": politetest.Robots("User-agent: *\nDisallow: /secret\n"),
	}})
	h := r.site(politetest.Site{Name: "www.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Status: 301, Redirect: r.farm.URL(rulesHost, "/shared-robots.txt")},
	}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	secret, open := r.farm.URL(h, "/secret"), r.farm.URL(h, "/open")
	r.add(secret, open)
	res := r.results(2)
	if !isA[*polite.DisallowedError](res[secret].Err) || res[open].Err != nil {
		t.Errorf("/secret %v, /open %v", res[secret].Err, res[open].Err)
	}
	if n := r.farm.Audit().Count(rulesHost); n != 1 {
		t.Errorf("cdn.test saw %d requests, want the redirected robots.txt only", n)
	}
}

// R5.3: a copy is used for 24 h without asking; then it is asked again,
// conditionally, and a 304 keeps it. A failed refresh lets the copy stand
// in for up to 30 days; after that the site is unreachable.
func TestRobotsExpiryRefreshAndStaleCopy(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "cache.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Sequence: []politetest.Page{
			{Body: []byte("User-agent: *\nDisallow: /old\n"), Header: http.Header{"Etag": {`"v1"`}}},
			{Status: 304},
			{Status: 500},
		}},
	}})
	r.start(polite.Config{AllowPrivateNetworks: true}, jitter(0))
	batch := func(paths ...string) map[string]*polite.Result {
		var urls []string
		for _, p := range paths {
			urls = append(urls, r.farm.URL(h, p))
		}
		r.add(urls...)
		return r.results(len(urls))
	}
	robotsVisits := func() []politetest.Visit {
		var out []politetest.Visit
		for _, v := range r.farm.Audit().VisitsTo(h) {
			if v.Path == politetest.RobotsPath {
				out = append(out, v)
			}
		}
		return out
	}
	batch("/a")
	r.clk.Advance(23 * time.Hour) // the fetcher is idle: time may pass
	if res := batch("/old/1"); !isA[*polite.DisallowedError](res[r.farm.URL(h, "/old/1")].Err) {
		t.Error("the copy was not used within 24 h")
	}
	if n := len(robotsVisits()); n != 1 {
		t.Fatalf("robots.txt asked %d times within 24 h", n)
	}
	r.clk.Advance(2 * time.Hour)
	batch("/b")
	rv := robotsVisits()
	if len(rv) != 2 || rv[1].Header.Get("If-None-Match") != `"v1"` {
		t.Fatalf("refresh after 24 h: %d robots.txt requests, If-None-Match %q", len(rv), rv[len(rv)-1].Header.Get("If-None-Match"))
	}
	// The refresh now fails: the copy stands in. The host is asked for a
	// page half way, so it is not idle a robots period, which forgets it
	// and its copy (forget.go) whenever the fetcher sees the time pass
	// before the batch below.
	r.clk.Advance(13 * time.Hour)
	batch("/e")
	r.clk.Advance(12 * time.Hour)
	if res := batch("/old/2", "/c"); !isA[*polite.DisallowedError](res[r.farm.URL(h, "/old/2")].Err) || res[r.farm.URL(h, "/c")].Err != nil {
		t.Errorf("stale copy not used: %v, %v", res[r.farm.URL(h, "/old/2")].Err, res[r.farm.URL(h, "/c")].Err)
	}
	r.clk.Advance(polite.RobotsStaleLimit) // past 30 days: unreachable, pages held, then stopped
	if res := batch("/d"); !isA[*polite.StoppedError](res[r.farm.URL(h, "/d")].Err) {
		t.Errorf("after 30 days: %v", res[r.farm.URL(h, "/d")].Err)
	}
	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Path == "/d" {
			t.Error("a page was asked while robots.txt was unreachable")
		}
	}
}

// R5.5: a documented API is never asked for robots.txt; it rests 1 s, or
// longer when its terms' rate is stricter.
func TestAPIHosts(t *testing.T) {
	r := newFarmRig(t)
	api := r.site(politetest.Site{Name: "api.test"})
	slow := r.site(politetest.Site{Name: "slowapi.test"})
	r.start(polite.Config{AllowPrivateNetworks: true, APIs: []polite.API{
		{Host: "api.test", Terms: "https://api.test/terms"},
		{Host: "slowapi.test", Terms: "https://slowapi.test/terms", Rate: 0.2},
	}})
	r.add(r.pages(api, 3)...)
	r.add(r.pages(slow, 3)...)
	r.results(6)
	wantGaps(t, api, r.farm.Audit().VisitsTo(api), 3, time.Second)
	wantGaps(t, slow, r.farm.Audit().VisitsTo(slow), 3, 5*time.Second)
}

// R5.6: an unrestricted run names its hosts and gives a reason, logged at
// start; those hosts are not asked for robots.txt and see the
// "-unrestricted" product; pacing is as usual; other hosts are not
// affected.
func TestUnrestrictedRun(t *testing.T) {
	if _, err := polite.New(polite.Config{Unrestricted: polite.Unrestricted{Hosts: []string{"mine.test"}}}); !errors.Is(err, polite.ErrConfig) {
		t.Errorf("no reason: %v, want ErrConfig", err)
	}
	r := newFarmRig(t)
	mine := r.site(politetest.Site{Name: "mine.test", Pages: map[string]politetest.Page{politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /\n")}})
	other := r.site(politetest.Site{Name: "other.test"})
	logs := &logRecords{}
	r.start(polite.Config{AllowPrivateNetworks: true, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		Unrestricted: polite.Unrestricted{Hosts: []string{"mine.test"}, Reason: "checking my own site before launch"}})
	r.add(r.pages(mine, 2)...)
	r.add(r.pages(other, 1)...)
	for u, res := range r.results(3) {
		if res.Err != nil {
			t.Errorf("%s: %v", u, res.Err)
		}
	}
	vs := r.farm.Audit().VisitsTo(mine)
	if len(vs) != 2 || len(pageVisits(vs)) != 2 {
		t.Errorf("mine.test saw %d requests (robots.txt asked?)", len(vs))
	}
	wantGaps(t, mine, vs, 2, polite.MinRest)
	for _, v := range vs {
		if ua := v.Header.Get("User-Agent"); ua != "PoliteCrawler-unrestricted/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)" {
			t.Errorf("mine.test saw User-Agent %q", ua)
		}
	}
	for _, v := range r.farm.Audit().VisitsTo(other) {
		if ua := v.Header.Get("User-Agent"); ua != "PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)" {
			t.Errorf("other.test saw User-Agent %q", ua)
		}
	}
	found := false
	for _, rec := range logs.records(t) {
		if rec["reason"] == "checking my own site before launch" {
			found = true
		}
	}
	if !found {
		t.Error("the reason was not logged at start")
	}
}

// OnRequest sees every request, robots.txt included, in the order they
// end, with the gap since the previous one on the address.
func TestOnRequestSeesEveryRequest(t *testing.T) {
	r := newFarmRig(t)
	// robots.txt is held until both URLs are added: /p1 is queued before
	// /r's redirect queues /p2, however the Adds are scheduled.
	held := make(chan struct{})
	h := r.site(politetest.Site{Name: "seen.test", Pages: map[string]politetest.Page{
		"/r":                  {Redirect: "/p2"},
		politetest.RobotsPath: {Status: 404, Gate: held},
	}})
	var seen []polite.RequestEvent
	r.start(polite.Config{AllowPrivateNetworks: true, OnRequest: func(q polite.RequestEvent) { seen = append(seen, q) }})
	r.add(r.farm.URL(h, "/r"), r.farm.URL(h, "/p1"))
	close(held)
	r.results(2)
	r.f.Close() // OnRequest runs under the scheduler's lock: read seen once the workers are gone
	var got []string
	for _, q := range seen {
		got = append(got, fmt.Sprintf("%s robots=%v first=%v gap=%v rest=%v", q.URL[len(r.farm.URL(h, "")):], q.Robots, q.First, q.Gap, q.Rest))
	}
	want := []string{
		"/robots.txt robots=true first=true gap=0s rest=3s (floor)",
		"/r robots=false first=false gap=3s rest=3s (floor)",
		"/p1 robots=false first=false gap=3s rest=3s (floor)",
		"/p2 robots=false first=false gap=3s rest=3s (floor)",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests seen:\n%v\nwant:\n%v", got, want)
	}
}

// R5.2, R3.1: robots.txt answers of odd statuses. A 3xx without a Location
// leads nowhere: no robots.txt, everything allowed. 999, a bot block,
// stops the host. A 304 to a request that was not conditional says nothing
// of the rules: the page gets an error that says so. No error reads like a
// formatting slip.
func TestRobotsTxtOddStatuses(t *testing.T) {
	for _, c := range []struct {
		status  int
		fetched bool
		refused bool
	}{
		{300, true, false},
		{302, true, false},
		{999, false, true},
		{304, false, false},
	} {
		r := newFarmRig(t)
		host := r.site(politetest.Site{Name: "odd.test", Pages: map[string]politetest.Page{politetest.RobotsPath: {Status: c.status}}})
		r.start(polite.Config{})
		u := r.url(host, "/a")
		r.add(u)
		res := r.results(1)[u]
		pageAsked := len(pageVisitsOf(r.farm, host)) > 0
		switch {
		case c.fetched && (res.Err != nil || !pageAsked):
			t.Errorf("robots.txt %d: %v, page asked %v; want the page", c.status, res.Err, pageAsked)
		case !c.fetched && (res.Err == nil || pageAsked):
			t.Errorf("robots.txt %d: %v, page asked %v; want an error and no page", c.status, res.Err, pageAsked)
		case c.refused && !isA[*polite.RefusalError](res.Err):
			t.Errorf("robots.txt %d: %v, want a *RefusalError", c.status, res.Err)
		case res.Err != nil && (strings.Contains(res.Err.Error(), "%!") || !strings.Contains(res.Err.Error(), u)):
			t.Errorf("robots.txt %d: %q does not name the URL, or reads like a formatting slip", c.status, res.Err)
		}
	}
}

// R5.2, R5.3, R3.1: a robots.txt answered 200 with a challenge page stops
// the host, and is not kept in the Store as the site's rules: a later run
// must not read the challenge as a robots.txt that allows everything.
func TestChallengeRobotsTxtIsNotStored(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "guarded.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Body: []byte("<html>checking</html>"), Header: http.Header{"Cf-Mitigated": {"challenge"}}},
	}})
	store := polite.NewMemoryStore()
	r.start(polite.Config{Store: store})
	u := r.url(host, "/a")
	r.add(u)
	if res := r.results(1)[u]; !isA[*polite.RefusalError](res.Err) {
		t.Errorf("page: %v, want the host stopped by the challenge", res.Err)
	}
	origin := "http://guarded.test:" + u[len("http://guarded.test:"):len(u)-len("/a")]
	if rec, kept, err := store.LoadRobots(origin); err != nil || kept {
		t.Errorf("store kept robots.txt of %s: status %d, %q (%v)", origin, rec.Status, rec.Body, err)
	}
}

// FetchRobots: an origin's rules, read as before its first page, and no page.

// R5.1, R5.3: FetchRobots asks robots.txt once, through the budget, and
// no page; a second call answers from the copy with no request, and the
// origin's first page follows after a rest, with no second robots.txt.
func TestFetchRobotsReadsTheRulesAndNoPage(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "rules.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /private/\nCrawl-delay: 7\n\nSitemap: https://rules.test/sitemap.xml\n"),
	}})
	f := r.start(polite.Config{})
	ctx := context.Background()
	rules, err := f.FetchRobots(ctx, r.url(h, "/private/x"))
	if err != nil || rules == nil {
		t.Fatalf("FetchRobots = %v, %v", rules, err)
	}
	if d := rules.Decide(polite.DefaultName, r.url(h, "/private/x")); d.Allowed || d.Line != 2 || d.Pattern != "/private/" {
		t.Errorf("Decide(/private/x) = %+v, want line 2 Disallow /private/", d)
	}
	if cd := rules.CrawlDelay(polite.DefaultName); cd != 7*time.Second {
		t.Errorf("CrawlDelay = %v, want 7s", cd)
	}
	if sm := rules.Sitemaps(); len(sm) != 1 || sm[0] != "https://rules.test/sitemap.xml" {
		t.Errorf("Sitemaps = %v", sm)
	}
	if vs := r.farm.Audit().VisitsTo(h); len(vs) != 1 || vs[0].Path != politetest.RobotsPath {
		t.Fatalf("farm saw %v, want robots.txt alone", vs)
	}
	if _, err := f.FetchRobots(ctx, r.url(h, "/other")); err != nil {
		t.Fatal(err)
	}
	if n := r.farm.Audit().Count(h); n != 1 {
		t.Errorf("a second FetchRobots made %d requests in all, want the first one only", n)
	}
	res, err := f.Fetch(ctx, r.url(h, "/open"))
	if err != nil || res.Err != nil {
		t.Fatalf("Fetch after FetchRobots: %v, %v", res, err)
	}
	vs := r.farm.Audit().VisitsTo(h)
	if len(vs) != 2 || vs[1].Path != "/open" {
		t.Fatalf("farm saw %v, want robots.txt then /open", vs)
	}
	if g := vs[1].Start.Sub(vs[0].Start); g < 7*time.Second {
		t.Errorf("the page followed robots.txt after %v, before its Crawl-delay", g)
	}
	if n := f.Pending(); n != 0 {
		t.Errorf("Pending = %d after FetchRobots and Fetch, want 0", n)
	}
}

// R5.2: a missing robots.txt allows everything; one that refuses stops
// the host, and FetchRobots says so with the error its pages would get.
func TestFetchRobotsMissingAndRefused(t *testing.T) {
	r := newFarmRig(t)
	missing := r.site(politetest.Site{Name: "missing.test", Pages: map[string]politetest.Page{politetest.RobotsPath: {Status: 404}}})
	refused := r.site(politetest.Site{Name: "refused.test", Pages: map[string]politetest.Page{politetest.RobotsPath: {Status: 403}}})
	f := r.start(polite.Config{})
	ctx := context.Background()
	rules, err := f.FetchRobots(ctx, r.url(missing, "/"))
	if err != nil || rules == nil || !rules.Allowed(polite.DefaultName, r.url(missing, "/anything")) {
		t.Errorf("FetchRobots on a 404 = %v, %v; want rules that allow all", rules, err)
	}
	rules, err = f.FetchRobots(ctx, r.url(refused, "/"))
	if !isA[*polite.RefusalError](err) || !isA[*polite.StoppedError](err) || rules != nil {
		t.Errorf("FetchRobots on a 403 = %v, %v; want a *RefusalError, host stopped", rules, err)
	}
	res, err := f.Fetch(ctx, r.url(refused, "/page"))
	if err != nil || !isA[*polite.StoppedError](res.Err) {
		t.Errorf("a page of the refused host: %v, %v", res, err)
	}
	for _, h := range []string{missing, refused} {
		if vs := r.farm.Audit().VisitsTo(h); len(vs) != 1 || vs[0].Path != politetest.RobotsPath {
			t.Errorf("%s: farm saw %v, want robots.txt alone", h, vs)
		}
	}
}

// R5.6: a host whose robots.txt the run does not read has no rules to
// ask for; FetchRobots returns nil and asks nothing. A bad URL is
// refused as Add refuses it.
func TestFetchRobotsUnreadAndBadURL(t *testing.T) {
	r := newFarmRig(t)
	own := r.site(politetest.Site{Name: "own.test"})
	f := r.start(polite.Config{Unrestricted: polite.Unrestricted{Hosts: []string{own}, Reason: "our own site"}})
	ctx := context.Background()
	if rules, err := f.FetchRobots(ctx, r.url(own, "/")); rules != nil || err != nil {
		t.Errorf("FetchRobots on an unrestricted host = %v, %v; want nil, nil", rules, err)
	}
	if n := r.farm.Audit().Count(own); n != 0 {
		t.Errorf("farm saw %d requests, want none", n)
	}
	if _, err := f.FetchRobots(ctx, "ftp://own.test/"); !errors.Is(err, polite.ErrUnsupportedScheme) {
		t.Errorf("FetchRobots(ftp://…) = %v, want ErrURL", err)
	}
}

// R7.1: the Content-Signal lines robots.txt states for a URL, read from
// the rules FetchRobots returns, with their lines.
func TestFetchRobotsSignals(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "signals.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nContent-Signal: search=yes, ai-input=no\nAllow: /\n"),
	}})
	f := r.start(polite.Config{})
	rules, err := f.FetchRobots(context.Background(), r.url(h, "/"))
	if err != nil {
		t.Fatal(err)
	}
	sig := rules.Signals(polite.DefaultName, r.url(h, "/page"))
	if ok, because := sig.AIInput(); ok || because == nil || because.Source != "robots.txt line 2" {
		t.Errorf("AIInput = %v, %v; want refused by robots.txt line 2", ok, because)
	}
	if p, _ := sig.Category("search"); p != polite.PreferenceYes {
		t.Errorf("search = %v, want yes", p)
	}
	if got := (*polite.Robots)(nil).Signals(polite.DefaultName, "/"); len(got.All) != 0 {
		t.Errorf("nil Robots' signals = %v, want none", got)
	}
}
