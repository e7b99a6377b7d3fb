package polite_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R5.2, R3.1: robots.txt answers of odd statuses. A 3xx without a Location
// leads nowhere: no robots.txt, everything allowed. 999, a bot block,
// stops the host. A 304 to a request that was not conditional says nothing
// of the rules: the page gets an error that says so. No error reads like a
// formatting slip.
func TestRobotsTxtOddStatuses(t *testing.T) {
	for _, c := range []struct {
		status  int
		fetched bool
		is      error
	}{
		{300, true, nil},
		{302, true, nil},
		{999, false, polite.ErrRefused},
		{304, false, nil},
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
		case c.is != nil && !errors.Is(res.Err, c.is):
			t.Errorf("robots.txt %d: %v, want %v", c.status, res.Err, c.is)
		case res.Err != nil && (strings.Contains(res.Err.Error(), "%!") || !strings.Contains(res.Err.Error(), u)):
			t.Errorf("robots.txt %d: %q does not name the URL, or reads like a formatting slip", c.status, res.Err)
		}
	}
}
