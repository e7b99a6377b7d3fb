package polite_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R8.3: a redirect to another host is a new request there, scheduled on
// that host's budget; the Result records the chain.
func TestRedirectToAnotherHost(t *testing.T) {
	r := newFarmRig(t)
	to := r.site(politetest.Site{Name: "new.test"})
	target := r.farm.URL(to, "/landing")
	from := r.site(politetest.Site{Name: "old.test", Pages: map[string]politetest.Page{"/moved": {Status: 301, Redirect: target}}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	u := r.farm.URL(from, "/moved")
	r.add(u)
	res := r.results(1)[u]
	if res.Err != nil || res.Status != 200 || res.FinalURL != target {
		t.Fatalf("got %d %v final %s", res.Status, res.Err, res.FinalURL)
	}
	if len(res.Redirects) != 1 || res.Redirects[0].URL != u || res.Redirects[0].Status != 301 || res.Redirects[0].Location != target {
		t.Errorf("chain = %+v", res.Redirects)
	}
	if r.farm.Audit().Count(from) != 2 || r.farm.Audit().Count(to) != 2 { // robots.txt, then the page
		t.Errorf("farm saw old %d, new %d requests", r.farm.Audit().Count(from), r.farm.Audit().Count(to))
	}
}

// R8.3: a redirect within one host waits for that host's rest, like any
// other request to it, and a relative Location is resolved.
func TestRedirectSameHostRests(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "same.test", Pages: map[string]politetest.Page{"/a": {Redirect: "/b"}}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	u := r.farm.URL(h, "/a")
	r.add(u)
	res := r.results(1)[u]
	if res.Err != nil || res.FinalURL != r.farm.URL(h, "/b") {
		t.Fatalf("got %v final %s", res.Err, res.FinalURL)
	}
	wantGaps(t, h, r.farm.Audit().VisitsTo(h), 3, polite.MinRest) // robots.txt, /a, /b
}

// R8.3: a loop is caught without another request, and a chain longer than
// five hops is cut after the fifth redirect: six requests in all. The
// Result is the last response, not followed; Redirects, the hops followed.
func TestRedirectLoopAndLimit(t *testing.T) {
	r := newFarmRig(t)
	loop := r.site(politetest.Site{Name: "loop.test", Pages: map[string]politetest.Page{
		"/x":    {Redirect: "/y"},
		"/y":    {Redirect: "/x"},
		"/s":    {Redirect: "/self"},
		"/self": {Redirect: "/self"},
	}})
	long := r.site(politetest.Site{Name: "long.test", Default: func(path string) politetest.Page {
		n, _ := strconv.Atoi(strings.TrimPrefix(path, "/hop"))
		return politetest.Page{Redirect: fmt.Sprintf("/hop%d", n+1)}
	}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	lu, gu, su := r.farm.URL(loop, "/x"), r.farm.URL(long, "/"), r.farm.URL(loop, "/s")
	r.add(lu, gu, su)
	res := r.results(3)
	if !errors.Is(res[su].Err, polite.ErrRedirectLoop) || len(res[su].Redirects) != 1 {
		t.Errorf("self redirect: %v after %d hops", res[su].Err, len(res[su].Redirects))
	}
	if !errors.Is(res[lu].Err, polite.ErrRedirectLoop) || len(res[lu].Redirects) != 1 || res[lu].Status != 302 {
		t.Errorf("loop: %v after %d hops", res[lu].Err, len(res[lu].Redirects))
	}
	if n := r.farm.Audit().Count(loop); n != 5 {
		t.Errorf("loops: farm saw %d requests, want robots.txt and 4", n)
	}
	if !errors.Is(res[gu].Err, polite.ErrTooManyRedirects) || len(res[gu].Redirects) != polite.MaxRedirects {
		t.Errorf("long chain: %v after %d hops", res[gu].Err, len(res[gu].Redirects))
	}
	if n := len(pageVisits(r.farm.Audit().VisitsTo(long))); n != polite.MaxRedirects+1 {
		t.Errorf("long chain: farm saw %d page requests, want %d", n, polite.MaxRedirects+1)
	}
	if rep := r.farm.Audit().Report(restRule(polite.MinRest)); rep.Overlaps != 0 || len(rep.ShortGaps) != 0 {
		t.Errorf("farm audit: %v", rep)
	}
}

// A redirect to a scheme the fetcher does not speak, or to a URL with
// credentials, ends the chain with the reason; nothing more is requested.
func TestRedirectToForbiddenTarget(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "bad.test", Pages: map[string]politetest.Page{
		"/ftp":   {Redirect: "ftp://files.test/x"},
		"/creds": {Redirect: "http://user:pw@bad.test/"},
	}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	ftp, creds := r.farm.URL(h, "/ftp"), r.farm.URL(h, "/creds")
	r.add(ftp, creds)
	res := r.results(2)
	if !errors.Is(res[ftp].Err, polite.ErrUnsupportedScheme) {
		t.Errorf("ftp redirect: %v", res[ftp].Err)
	}
	if !errors.Is(res[creds].Err, polite.ErrInvalidURL) {
		t.Errorf("credentials redirect: %v", res[creds].Err)
	}
	if n := len(pageVisits(r.farm.Audit().VisitsTo(h))); n != 2 {
		t.Errorf("farm saw %d page requests, want 2", n)
	}
}

// R8.3, R10.2: only 301, 302, 303, 307 and 308 are followed. A 300 (a
// choice), a 305 (a proxy, which the fetcher never uses) and an
// unassigned 3xx come back as they are, with their Location unasked.
func TestOnlyRedirectStatusesAreFollowed(t *testing.T) {
	r := newFarmRig(t)
	to := r.site(politetest.Site{Name: "elsewhere.test"})
	target := r.farm.URL(to, "/landing")
	pages := map[string]politetest.Page{}
	for _, status := range []int{300, 305, 399} {
		pages[fmt.Sprintf("/s%d", status)] = politetest.Page{Status: status, Redirect: target}
	}
	from := r.site(politetest.Site{Name: "choices.test", Pages: pages})
	r.start(polite.Config{AllowPrivateNetworks: true})
	for p := range pages {
		r.add(r.farm.URL(from, p))
	}
	for u, res := range r.results(len(pages)) {
		if res.Err != nil || len(res.Redirects) != 0 || res.FinalURL != u || res.Verdict.Kind != polite.ResponseNotFound {
			t.Errorf("%s: status %d, kind %v, %v, %d hops; want the 3xx itself, nothing followed", u, res.Status, res.Verdict.Kind, res.Err, len(res.Redirects))
		}
	}
	if n := r.farm.Audit().Count(to); n != 0 {
		t.Errorf("elsewhere.test saw %d requests, want none", n)
	}
}

// R7.1, R5.5, R5.6: a page's robots.txt signals are those of the origin
// it was fetched from. A redirect to a declared API or an unrestricted
// host, whose robots.txt is not read, leaves the first site's
// ai-input=no behind: the page's text is not held back by it.
func TestRedirectLeavesTheFirstSitesSignals(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  func(host string) polite.Config
	}{
		{"documented API", func(host string) polite.Config {
			return polite.Config{APIs: []polite.API{{Host: host, Terms: "https://api.test/terms"}}}
		}},
		{"unrestricted", func(host string) polite.Config {
			return polite.Config{Unrestricted: polite.Unrestricted{Hosts: []string{host}, Reason: "our own site, in a test"}}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newFarmRig(t)
			to := r.site(politetest.Site{Name: "open.test"})
			target := r.url(to, "/page")
			from := r.site(politetest.Site{Name: "closed.test", Pages: map[string]politetest.Page{
				politetest.RobotsPath: politetest.Robots("User-agent: *\nContent-Signal: ai-input=no\nAllow: /\n"),
				"/moved":              {Status: 301, Redirect: target},
			}})
			r.start(c.cfg(to))
			u := r.url(from, "/moved")
			r.add(u)
			res := r.results(1)[u]
			if res.Err != nil || res.FinalURL != target {
				t.Fatalf("%v, final %s", res.Err, res.FinalURL)
			}
			if _, err := res.TextForAI(); isA[*polite.AIInputRefusedError](err) {
				t.Errorf("TextForAI of %s: %v; closed.test's signal followed the redirect", target, err)
			}
		})
	}
}
