package polite_test

import (
	"errors"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

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
			if _, err := res.TextForAI(); errors.Is(err, polite.ErrAIInputRefused) {
				t.Errorf("TextForAI of %s: %v; closed.test's signal followed the redirect", target, err)
			}
		})
	}
}
