package polite_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R9: URLs are normalised; one already added, in any spelling, is refused
// by Add with ErrDuplicate; session ids are stripped before the request; a calendar
// far from today, a repeating path, or an absurd depth is dropped without
// a request. Every dropped URL has its Result naming the trap.
func TestTrapsAreDroppedWithAResult(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "site.test"})
	r.start(polite.Config{AllowPrivateNetworks: true})
	base := r.farm.URL(h, "")
	page := base + "/a/b"
	cases := map[string]string{ // URL → trap kind ("" for a page)
		page: "",
		"HTTP://SITE.TEST" + base[len("http://site.test"):] + "/a/./c/../b#top": "duplicate",
		base + "/a/b;jsessionid=0123456789ABCDEF":                               "duplicate",
		base + "/shop?item=7&PHPSESSID=abc123":                                  "",
		base + "/shop?item=7":                                                   "duplicate",
		base + "/calendar/2099/01/":                                             "calendar",
		base + "/x/y/x/y/x/y":                                                   "repeating-segments",
		base + "/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18":                  "too-deep",
	}
	var urls []string
	for u := range cases {
		urls = append(urls, u)
	}
	// The page first, so that its spellings are the duplicates.
	r.add(page, base+"/shop?item=7&PHPSESSID=abc123")
	dups := 0
	for _, u := range urls {
		if u == page || u == base+"/shop?item=7&PHPSESSID=abc123" {
			continue
		}
		err := r.f.Add(t.Context(), u)
		switch dup := cases[u] == "duplicate"; {
		case dup && !errors.Is(err, polite.ErrDuplicate):
			t.Errorf("Add(%s): %v, want ErrDuplicate", u, err)
		case !dup && err != nil:
			t.Errorf("Add(%s): %v", u, err)
		}
		if cases[u] == "duplicate" {
			dups++
		}
	}
	res := r.results(len(cases) - dups)
	for u, kind := range cases {
		var te *polite.TrapError
		switch {
		case kind == "duplicate":
		case kind == "" && res[u].Err != nil:
			t.Errorf("%s: %v", u, res[u].Err)
		case kind != "" && (!errors.As(res[u].Err, &te) || string(te.Kind) != kind || !isA[*polite.TrapError](res[u].Err)):
			t.Errorf("%s: %v, want a %s trap", u, res[u].Err, kind)
		}
	}
	var paths []string
	for _, v := range pageVisits(r.farm.Audit().VisitsTo(h)) {
		paths = append(paths, v.Path)
	}
	if fmt.Sprint(paths) != "[/a/b /shop?item=7]" {
		t.Errorf("farm saw %v: want the page once and the shop without its session id", paths)
	}
	st, _ := r.f.Stats(t.Context())
	if st.Traps["duplicate"] != 0 || st.Traps["calendar"] != 1 {
		t.Errorf("trap counts %v", st.Traps)
	}
}

// R9: a URL pattern whose pages keep serving the same content is dropped
// after five of them; the URLs of that pattern still queued come back as
// traps, unrequested, and other pages of the host go on.
func TestRepeatedContentDropsThePattern(t *testing.T) {
	r := newFarmRig(t)
	same := politetest.Page{Body: []byte("<p>the same listing, whatever the page number</p>")}
	h := r.site(politetest.Site{Name: "mirror.test", Default: func(path string) politetest.Page {
		if path == "/list" {
			return same
		}
		return politetest.Page{}
	}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	var urls []string
	for i := range 9 {
		urls = append(urls, r.farm.URL(h, fmt.Sprintf("/list?page=%d", i)))
	}
	other := r.farm.URL(h, "/about")
	r.add(append(urls, other)...)
	res := r.results(len(urls) + 1)
	fetched, dropped := 0, 0
	for _, u := range urls {
		var te *polite.TrapError
		switch {
		case res[u].Err == nil:
			fetched++
		case errors.As(res[u].Err, &te) && te.Kind == "repeated-content":
			dropped++
		default:
			t.Errorf("%s: %v", u, res[u].Err)
		}
	}
	if fetched != 5 || dropped != 4 {
		t.Errorf("%d fetched, %d dropped; want 5 and 4", fetched, dropped)
	}
	if res[other].Err != nil {
		t.Errorf("/about: %v", res[other].Err)
	}
	if n := len(pageVisits(r.farm.Audit().VisitsTo(h))); n != 6 {
		t.Errorf("farm saw %d page requests, want 6", n)
	}
}

// crawlSite is the smallest crawler built on a Fetcher: follow every link
// within the seed's site (its host and the hosts under it) that is not
// nofollow, until nothing is pending. It returns the Results.
func crawlSite(t *testing.T, f *polite.Fetcher, seed string) (_ []*polite.Result, duplicates int) {
	t.Helper()
	site, _ := url.Parse(seed)
	added := map[string]bool{}
	add := func(u string) {
		if p, err := url.Parse(u); err != nil || (p.Hostname() != site.Hostname() && !strings.HasSuffix(p.Hostname(), "."+site.Hostname())) || added[u] {
			return
		}
		switch err := f.Add(context.Background(), u); {
		case err == nil:
			added[u] = true
		case errors.Is(err, polite.ErrDuplicate):
			duplicates++
		}
	}
	add(seed)
	var out []*polite.Result
	for f.Pending() > 0 {
		r, err := f.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
		for _, l := range r.Links() {
			if !l.NoFollow {
				add(l.URL)
			}
		}
		if len(out) > 1000 {
			t.Fatal("the crawl does not end")
		}
	}
	return out, duplicates
}

// R9: a crawl of a site full of traps ends by itself within a bounded
// number of requests, reports each kind of trap, and loses none of the
// site's real pages.
func TestCrawlOfATrapSiteEnds(t *testing.T) {
	r := newFarmRig(t)
	seed, err := r.farm.AddTrapSite()
	if err != nil {
		t.Fatal(err)
	}
	f := r.start(polite.Config{AllowPrivateNetworks: true})
	results, duplicates := crawlSite(t, f, seed)
	fetched := map[string]bool{}
	kinds := map[polite.TrapKind]int{}
	for _, res := range results {
		var te *polite.TrapError
		switch {
		case errors.As(res.Err, &te):
			kinds[te.Kind]++
		case res.Err != nil:
			t.Errorf("%s: %v", res.URL, res.Err)
		default:
			if u, err := url.Parse(res.FinalURL); err == nil && u.Hostname() == "traps.test" {
				fetched[u.Path] = true
			}
		}
	}
	for _, p := range politetest.TrapPages {
		if !fetched[p] {
			t.Errorf("real page %s was not fetched", p)
		}
	}
	if duplicates == 0 {
		t.Error("no URL refused by Add as a duplicate (ErrDuplicate)")
	}
	for _, k := range []polite.TrapKind{polite.TrapCalendar, polite.TrapRepeatedContent, polite.TrapRepeatingSegments} {
		if kinds[k] == 0 {
			t.Errorf("no %s trap reported (%v)", k, kinds)
		}
	}
	if n := len(r.farm.Audit().Visits()); n > 40 {
		t.Errorf("the crawl took %d requests; the site has 6 real pages and 4 traps", n)
	}
	if rep := r.farm.Audit().Report(restRule(polite.MinRest)); rep.Overlaps != 0 || len(rep.ShortGaps) != 0 {
		t.Errorf("farm audit: %v", rep)
	}
}
