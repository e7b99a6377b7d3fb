package polite_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R1.2: with the default Config, the fetcher keeps as many requests in
// flight as budgets are due: 300 hosts whose robots.txt answers are held
// all have their request in flight at once, far past the 64 workers a
// fixed pool had. A fetcher that stopped short would hang here, for go
// test's -timeout to catch.
func TestInFlightFollowsTheDueBudgets(t *testing.T) {
	r := newFarmRig(t)
	const hosts = 300
	gate := make(chan struct{})
	entered := make(chan string)
	held := map[string]politetest.Page{politetest.RobotsPath: {Status: 404, Gate: gate, Entered: entered}}
	var urls []string
	for i := range hosts {
		h := r.site(politetest.Site{Name: fmt.Sprintf("w%03d.test", i), Pages: held})
		urls = append(urls, r.url(h, "/page"))
	}
	f := r.start(polite.Config{})
	r.add(urls...)
	for range hosts {
		<-entered
	}
	st, err := f.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.InFlight != hosts || st.Active != hosts {
		t.Errorf("with every robots.txt held: %d in flight on %d addresses, want %d", st.InFlight, st.Active, hosts)
	}
	close(gate)
	for u, res := range r.results(hosts) {
		if res.Err != nil || res.Status != 200 {
			t.Errorf("%s: %d %v", u, res.Status, res.Err)
		}
	}
	if rep := r.farm.Audit().Report(restRule(polite.MinRest)); rep.Overlaps != 0 || len(rep.ShortGaps) != 0 {
		t.Errorf("farm audit: %v", rep)
	}
}

// MaxInFlight still caps the requests in flight: with 8, 8 of the held
// robots.txt requests are in flight, and the others wait for them.
func TestMaxInFlightCaps(t *testing.T) {
	r := newFarmRig(t)
	const hosts, limit = 40, 8
	gate := make(chan struct{})
	entered := make(chan string)
	held := map[string]politetest.Page{politetest.RobotsPath: {Status: 404, Gate: gate, Entered: entered}}
	var urls []string
	for i := range hosts {
		h := r.site(politetest.Site{Name: fmt.Sprintf("c%02d.test", i), Pages: held})
		urls = append(urls, r.url(h, "/page"))
	}
	f := r.start(polite.Config{MaxInFlight: limit})
	r.add(urls...)
	for range limit {
		<-entered
	}
	st, err := f.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.InFlight != limit {
		t.Errorf("%d requests in flight with MaxInFlight %d", st.InFlight, limit)
	}
	go func() { // the others enter as the first end
		for range hosts - limit {
			<-entered
		}
	}()
	close(gate)
	for u, res := range r.results(hosts) {
		if res.Err != nil || res.Status != 200 {
			t.Errorf("%s: %d %v", u, res.Status, res.Err)
		}
	}
}

// A goroutine runs a job and the jobs due when it ends, and no longer: an
// idle Fetcher holds no goroutine for requests, only its dispatcher.
func TestNoJobGoroutineWithoutWork(t *testing.T) {
	r := newFarmRig(t)
	var urls []string
	for i := range 100 {
		h := r.site(politetest.Site{Name: fmt.Sprintf("i%03d.test", i)})
		urls = append(urls, r.pages(h, 2)...)
	}
	r.start(polite.Config{})
	r.add(urls...)
	r.results(len(urls))
	// The last goroutines end just after their Result is queued; this
	// waits for them without a clock, and a hang is -timeout's to catch.
	for jobGoroutines() > 0 {
		runtime.Gosched()
	}
}

// jobGoroutines counts the goroutines running a Fetcher's jobs.
func jobGoroutines() int {
	n := 0
	for _, g := range fetcherGoroutines() {
		if strings.Contains(g, "polite.(*Fetcher).work(") {
			n++
		}
	}
	return n
}
