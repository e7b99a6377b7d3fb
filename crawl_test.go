package polite_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

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
