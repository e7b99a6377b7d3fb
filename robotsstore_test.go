package polite_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

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
	if res := r.results(1)[u]; !errors.Is(res.Err, polite.ErrRefused) {
		t.Errorf("page: %v, want the host stopped by the challenge", res.Err)
	}
	origin := "http://guarded.test:" + u[len("http://guarded.test:"):len(u)-len("/a")]
	if rec, kept, err := store.LoadRobots(origin); err != nil || kept {
		t.Errorf("store kept robots.txt of %s: status %d, %q (%v)", origin, rec.Status, rec.Body, err)
	}
}
