package polite_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R9, R11.1: a URL already added, in any spelling, is refused by Add with
// ErrDuplicate: nothing more is accepted, no second Result comes, and the
// server is asked once.
func TestAddRefusesADuplicate(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "dup.test"})
	r.start(polite.Config{})
	u := r.url(host, "/a/b")
	r.add(u)
	for _, again := range []string{u, strings.Replace(u, "dup.test", "DUP.test", 1) + "#top", r.url(host, "/a/./b;jsessionid=0123456789ABCDEF")} {
		err := r.f.Add(t.Context(), again)
		if !errors.Is(err, polite.ErrDuplicate) {
			t.Errorf("Add(%s): %v, want ErrDuplicate", again, err)
			continue
		}
		// The normal form is named only when it is another spelling.
		if as := " (as " + u + ")"; strings.HasSuffix(err.Error(), as) == (again == u) {
			t.Errorf("Add(%s): %q; want %q at its end only for another spelling", again, err, as)
		}
	}
	if n := r.f.Pending(); n != 1 {
		t.Errorf("Pending() = %d, want 1", n)
	}
	if res := r.results(1)[u]; res.Err != nil {
		t.Errorf("%s: %v", u, res.Err)
	}
	if n := len(pageVisitsOf(r.farm, host)); n != 1 {
		t.Errorf("server saw the page %d times", n)
	}
}
