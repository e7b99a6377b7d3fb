package schedule

import (
	"errors"
	"slices"
	"testing"

	"github.com/politecrawler/polite/internal/clock"
)

// R1.1: two hosts that resolve to one address share its budget, so they
// never have two jobs out at once: b.test's robots.txt, arriving while
// a.test's is in flight, waits for it and its rest. Two hosts at two
// addresses are asked side by side (R1.2).
func TestOneJobOutPerBudget(t *testing.T) {
	r := newRig(t)
	r.add("http://a.test/1")
	r.resolve(r.take("lookup a.test"), "192.0.2.1")
	robotsA := r.take("http://a.test/robots.txt")
	r.add("http://b.test/1", "http://c.test/1")
	r.resolve(r.take("lookup b.test"), "192.0.2.1")
	r.resolve(r.take("lookup c.test"), "192.0.2.3")
	if got := r.out(); !slices.Equal(got, []string{"http://c.test/robots.txt"}) {
		t.Fatalf("with a.test's robots.txt in flight at 192.0.2.1, out: %v; want only c.test's, at its own address", got)
	}
	r.answer(robotsA, noRobots)
	r.fetch("http://c.test/robots.txt", noRobots)
	// a.test's page and b.test's robots.txt both wait at 192.0.2.1: one
	// goes after the rest, the other after that one's.
	at := clock.Epoch.Add(rigFloor)
	r.clk.Set(at)
	got := r.out()
	if len(got) != 2 || !slices.Contains(got, "http://c.test/1") {
		t.Fatalf("after the rest, out: %v; want c.test's page and one job of 192.0.2.1", got)
	}
	first := got[0]
	if first == "http://c.test/1" {
		first = got[1]
	}
	r.fetch(first, ok)
	second := "http://b.test/robots.txt"
	if first == second {
		second = "http://a.test/1"
	}
	r.dueAt(second, at.Add(rigFloor))
}

// R5.1: robots.txt is an origin's first job, and its pages wait for its
// answer: none is out while it is in flight, the one it disallows is
// answered with the root's error and never asked, and the others follow
// through the same budget, after its rest.
func TestRobotsFirstAndPagesWaitForIt(t *testing.T) {
	r := newRig(t)
	r.add("http://192.0.2.1/a", "http://192.0.2.1/private/b", "http://192.0.2.1/c")
	if got := r.out(); !slices.Equal(got, []string{"http://192.0.2.1/robots.txt"}) {
		t.Fatalf("out: %v; want robots.txt alone", got)
	}
	robots := r.take("http://192.0.2.1/robots.txt")
	r.clk.Advance(10 * rigFloor) // the pages wait for the answer, however long
	if got := r.out(); len(got) != 0 {
		t.Fatalf("out with robots.txt in flight: %v", got)
	}
	r.answer(robots, reply{Status: 200, Answer: RobotsRules, Rules: "User-agent: *\nDisallow: /private/\n"})
	var dis *disallowedErr
	if e := r.result("http://192.0.2.1/private/b"); !errors.As(e.Err, &dis) || e.Response != nil {
		t.Errorf("the disallowed page: %+v, want the root's Disallowed error and no request", e)
	}
	at := r.clk.Now().Add(rigFloor)
	r.answer(r.dueAt("http://192.0.2.1/a", at), ok)
	r.dueAt("http://192.0.2.1/c", at.Add(rigFloor))
}
