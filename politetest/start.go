package politetest

import (
	"strconv"
	"testing"
)

// Start returns a farm on the wall clock serving sites, closed when tb's
// test ends (tb.Cleanup): a farm in one call, as httptest.NewServer is a
// server in one. A site that cannot be added fails the test at once.
func Start(tb testing.TB, sites ...Site) *Farm {
	tb.Helper()
	f := New(nil)
	tb.Cleanup(func() {
		if err := f.Close(); err != nil {
			tb.Errorf("politetest: closing the farm: %v", err)
		}
	})
	for _, s := range sites {
		if _, err := f.AddSite(s); err != nil {
			tb.Fatal(err)
		}
	}
	return f
}

// Hosts returns n plain sites, host1.test to hostN.test, each on an
// address of its own and serving the default pages: the many budgets a
// test of parallel crawling needs. Script their Pages before adding them.
func Hosts(n int) []Site {
	sites := make([]Site, n)
	for i := range sites {
		sites[i].Name = "host" + strconv.Itoa(i+1) + ".test"
	}
	return sites
}
