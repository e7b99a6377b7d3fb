package polite_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

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
	if !errors.Is(err, polite.ErrRefused) || !errors.Is(err, polite.ErrHostStopped) || rules != nil {
		t.Errorf("FetchRobots on a 403 = %v, %v; want ErrRefused, host stopped", rules, err)
	}
	res, err := f.Fetch(ctx, r.url(refused, "/page"))
	if err != nil || !errors.Is(res.Err, polite.ErrHostStopped) {
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
