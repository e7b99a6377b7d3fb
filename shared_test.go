package polite_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// The Fetcher's side of Config.Shared, on the fake clock, with a
// Coordinator of the test's own: what the fetcher does with each answer.
// The rules across processes on a real Redis are redisshare's tests.

// scriptedShared is a Shared whose Take answers as the test says; its
// robots.txt copies and host records are a memory store's.
type scriptedShared struct {
	polite.Store
	mu   sync.Mutex
	take func(polite.Ask) (polite.Turn, error)
	asks []polite.Ask
	rest []time.Duration
}

func (s *scriptedShared) Take(_ context.Context, a polite.Ask) (polite.Turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asks = append(s.asks, a)
	return s.take(a)
}

func (s *scriptedShared) Rest(_ context.Context, t polite.Turn, rest time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rest = append(s.rest, rest)
	return nil
}

func granted(a polite.Ask) (polite.Turn, error) {
	return polite.Turn{Granted: true, Addr: a.Addr, Token: 1}, nil
}

// Fail closed: while the Coordinator fails, the server sees nothing; when
// it answers, every URL is fetched, and Stats said so meanwhile.
func TestCoordinatorDownSendsNothing(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "a.test"})
	back := r.clk.Now().Add(10 * time.Second)
	sh := &scriptedShared{Store: polite.NewMemoryStore(), take: func(a polite.Ask) (polite.Turn, error) {
		if r.clk.Now().Before(back) {
			return polite.Turn{}, errors.New("connection refused")
		}
		return granted(a)
	}}
	f := r.start(polite.Config{Shared: sh})
	urls := r.pages(host, 2)
	r.add(urls...)
	res := r.results(len(urls))
	for _, u := range urls {
		if res[u].Err != nil || res[u].Status != 200 {
			t.Errorf("%s: %d %v", u, res[u].Status, res[u].Err)
		}
	}
	for _, v := range r.farm.Audit().Visits() {
		if v.Start.Before(back) {
			t.Errorf("%s %s at %v, while the Coordinator failed (until %v)", v.Host, v.Path, v.Start, back)
		}
	}
	st, err := f.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.SharedDown || st.SharedErrors == 0 {
		t.Errorf("Stats after the outage: SharedDown %v, SharedErrors %d; want false and the failed Takes counted", st.SharedDown, st.SharedErrors)
	}
	if rep := r.farm.Audit().Report(politetest.AtLeast(polite.MinRest)); !rep.Polite() {
		t.Error(rep)
	}
}

// A Coordinator that fails for one address and answers for another, as
// a Redis Cluster with one master down does, is down once and up again
// once, each change logged once and Stats.SharedDown true between: not a
// line at each Take that goes another way than the one before (R12.2).
func TestCoordinatorPartlyDownLoggedOnce(t *testing.T) {
	r := newFarmRig(t)
	addr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	down := r.site(politetest.Site{Name: "down.test", Addr: addr})
	up := r.site(politetest.Site{Name: "up.test"})
	back := r.clk.Now().Add(30 * time.Second)
	sh := &scriptedShared{Store: polite.NewMemoryStore(), take: func(a polite.Ask) (polite.Turn, error) {
		if a.Addr == addr && r.clk.Now().Before(back) {
			return polite.Turn{}, errors.New("its Redis server does not answer")
		}
		return granted(a)
	}}
	logs := &logRecords{}
	f := r.start(polite.Config{Shared: sh, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	urls := append(r.pages(down, 2), r.pages(up, 6)...)
	r.add(urls...)
	// Stats, sampled after each Result while down.test still fails: once
	// a failed Take is counted, SharedDown is true. The fake clock runs
	// on while the test reads, so only samples taken before the outage
	// ends count, and there must be some.
	samples := 0
	res := make(map[string]*polite.Result)
	for len(res) < len(urls) {
		for u, v := range r.results(1) {
			res[u] = v
		}
		st, err := f.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !r.clk.Now().Before(back) || st.SharedErrors == 0 {
			continue
		}
		samples++
		if !st.SharedDown {
			t.Errorf("Stats.SharedDown false while the Coordinator failed for one address (%d Takes failed)", st.SharedErrors)
		}
	}
	if samples == 0 {
		t.Error("no Stats taken while the Coordinator failed for one address")
	}
	for _, u := range urls {
		if res[u].Err != nil || res[u].Status != 200 {
			t.Errorf("%s: %d %v", u, res[u].Status, res[u].Err)
		}
	}
	var unreachable, again int
	for _, rec := range logs.records(t) {
		msg, _ := rec["msg"].(string)
		switch {
		case strings.HasPrefix(msg, "polite: coordinator unreachable"):
			unreachable++
		case strings.HasPrefix(msg, "polite: coordinator answers again"):
			again++
		}
	}
	if unreachable != 1 || again != 1 {
		t.Errorf("logged %d times unreachable and %d times answering again, want once each", unreachable, again)
	}
}

// A Turn not granted holds the request for its Wait, and the rest given
// back is the one R2 set; the Ask carries the lease and its rest.
func TestCoordinatorWaitHoldsTheRequest(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "a.test"})
	start := r.clk.Now()
	sh := &scriptedShared{Store: polite.NewMemoryStore(), take: func(a polite.Ask) (polite.Turn, error) {
		if r.clk.Now().Before(start.Add(20 * time.Second)) {
			return polite.Turn{Addr: a.Addr, Wait: 20 * time.Second}, nil // another process has it
		}
		return granted(a)
	}}
	r.start(polite.Config{Shared: sh})
	u := r.url(host, "/p")
	r.add(u)
	if res := r.results(1)[u]; res.Err != nil {
		t.Fatal(res.Err)
	}
	vs := r.farm.Audit().Visits()
	if len(vs) != 2 || vs[0].Start.Before(start.Add(20*time.Second)) {
		t.Fatalf("visits %v: want robots.txt after the 20 s wait, then the page", vs)
	}
	// The page's rest is given back after its Result is delivered; Close
	// waits for the worker that gives it.
	r.f.Close()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if len(sh.rest) != 2 || sh.rest[0] < polite.MinRest {
		t.Errorf("rests given back %v: want two, the floor at least", sh.rest)
	}
	a := sh.asks[0]
	if a.Lease != polite.DefaultTimeout+5*time.Second || a.LeaseRest < polite.DurationRestCap || a.Floor != polite.MinRest || a.Origin == "" {
		t.Errorf("the robots.txt Ask: %+v", a)
	}
}

// A host another process stopped is stopped here before any request to
// it, with the other's reason (R3).
func TestCoordinatorStopsHostStoppedElsewhere(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "a.test"})
	sh := &scriptedShared{Store: polite.NewMemoryStore(), take: func(a polite.Ask) (polite.Turn, error) {
		return polite.Turn{Addr: a.Addr, Stopped: "403 at /x"}, nil
	}}
	r.start(polite.Config{Shared: sh})
	urls := r.pages(host, 2)
	r.add(urls...)
	res := r.results(2)
	for _, u := range urls {
		if !errors.Is(res[u].Err, polite.ErrStoppedElsewhere) || !isA[*polite.StoppedError](res[u].Err) {
			t.Errorf("%s: %v, want a *StoppedError caused by ErrStoppedElsewhere", u, res[u].Err)
		}
	}
	if n := len(r.farm.Audit().Visits()); n != 0 {
		t.Errorf("the stopped host saw %d requests", n)
	}
}
