package polite

import (
	"context"
	"fmt"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/schedule"
	"github.com/politecrawler/polite/politetest"
)

// BenchmarkPoliteness runs a real-time crawl of many farm hosts, each on
// its own address with a few pages, and measures from the server's side
// how close the fetcher comes to the limit the rules allow (R1.2):
//
//	efficiency = pages/s ÷ Σ_budgets 1/(rest + duration)
//
// Both sides are taken per budget in its steady state, from its first
// request to its last (robots.txt is each budget's first request):
// requests/s sums (n−1)/(last start − first start), and
// the limit sums (n−1)/Σ(duration + rest) over the same requests, the rest
// computed by R2 from the durations the farm saw. Overlaps and short gaps
// are the farm's audit. startup_s is how long the last budget waited for
// its first request (every budget is due at once at the start).
//
//	go test -run '^$' -bench Politeness -benchtime 1x .
func BenchmarkPoliteness(b *testing.B) {
	for _, hosts := range []int{200, 2000, 10000} {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			for range b.N {
				runPoliteness(b, hosts, 4, Config{})
			}
		})
	}
}

// BenchmarkSlowStore is BenchmarkPoliteness at 2,000 hosts with a Store
// that adds 50 ms to every call (a memory store behind a slow disk or a
// network): the Store is asked outside the scheduler's lock, and a page's
// copy is read while its budget rests, so the efficiency stays where it
// is without one (R1.2). store_calls counts the Store's calls.
//
//	go test -run '^$' -bench SlowStore -benchtime 1x .
func BenchmarkSlowStore(b *testing.B) {
	for range b.N {
		st := &slowStore{Store: NewMemoryStore(), delay: 50 * time.Millisecond}
		runPoliteness(b, 2000, 4, Config{Store: st})
		b.ReportMetric(float64(st.calls.Load()), "store_calls")
	}
}

// slowStore is a Store whose every call takes delay longer.
type slowStore struct {
	Store
	delay time.Duration
	calls atomic.Int64
}

func (s *slowStore) wait() { s.calls.Add(1); time.Sleep(s.delay) }

func (s *slowStore) LoadPage(u string) (StoredPage, bool, error) {
	s.wait()
	return s.Store.LoadPage(u)
}
func (s *slowStore) SavePage(p StoredPage) error { s.wait(); return s.Store.SavePage(p) }
func (s *slowStore) LoadRobots(o string) (StoredRobots, bool, error) {
	s.wait()
	return s.Store.LoadRobots(o)
}
func (s *slowStore) SaveRobots(r StoredRobots) error  { s.wait(); return s.Store.SaveRobots(r) }
func (s *slowStore) AddRefusal(r RefusalRecord) error { s.wait(); return s.Store.AddRefusal(r) }
func (s *slowStore) LoadHost(h string) (HostRecord, bool, error) {
	s.wait()
	return s.Store.LoadHost(h)
}
func (s *slowStore) SaveHost(h HostRecord) error { s.wait(); return s.Store.SaveHost(h) }

func runPoliteness(b *testing.B, hosts, perHost int, cfg Config) {
	b.StopTimer()
	fp := startFarmProcess(b, hosts)
	defer fp.close()
	var urls []string
	for i := range hosts {
		for p := range perHost {
			urls = append(urls, fp.url(i, fmt.Sprintf("/p%d", p)))
		}
	}
	var log requestLog
	cfg.Resolver, cfg.AllowPrivateNetworks, cfg.Logger, cfg.OnRequest = fp.resolver(), true, quiet, log.add
	f, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.StartTimer()
	begin := time.Now()
	waits0, wait0 := schedule.RunnableWaits()
	failed := crawlAll(b, f, urls)
	b.StopTimer()
	f.Close()

	visits, err := fp.visits()
	if err != nil {
		b.Fatal(err)
	}
	reportPoliteness(b, visits, begin, failed)
	reportSchedWait(b, waits0, wait0)
	reportLoss(b, &log, visits)
}

// visitRates sums, over the farm's addresses, the requests/s each got in
// its steady state (from its first request to its last) and the limit the
// rules allow over the same requests, the rest computed by R2 from the
// durations the farm saw (see BenchmarkPoliteness). lastFirst is the
// latest first request of an address.
func visitRates(visits []politetest.Visit) (rate, limit float64, lastFirst time.Time) {
	byAddr := make(map[netip.Addr][]politetest.Visit)
	for _, v := range visits {
		byAddr[v.Addr] = append(byAddr[v.Addr], v)
	}
	for _, vs := range byAddr {
		if vs[0].Start.After(lastFirst) {
			lastFirst = vs[0].Start
		}
		if len(vs) < 2 {
			continue
		}
		var ideal time.Duration
		for _, v := range vs[:len(vs)-1] {
			d := v.End.Sub(v.Start)
			ideal += d + restAfter(pacing.Policy{Floor: MinRest, Factor: MinDurationFactor}, pacing.Outcome{Duration: d}).Wait
		}
		n := float64(len(vs) - 1)
		rate += n / vs[len(vs)-1].Start.Sub(vs[0].Start).Seconds()
		limit += n / ideal.Seconds()
	}
	return rate, limit, lastFirst
}

// crawlAll adds every URL, reads a Result for each, and counts those that
// failed.
func crawlAll(b *testing.B, f *Fetcher, urls []string) (failed int) {
	ctx := context.Background()
	for _, u := range urls {
		if err := f.Add(ctx, u); err != nil {
			b.Fatal(err)
		}
	}
	for range urls {
		r, err := f.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if r.Err != nil {
			failed++
		}
	}
	return failed
}

// reportPoliteness reports what the farm saw of a crawl begun at begin:
// the efficiency against the limit (visitRates), the audit's overlaps and
// short gaps, how long the last address waited for its first request, and
// the Results that failed.
func reportPoliteness(b *testing.B, visits []politetest.Visit, begin time.Time, failed int) {
	rep := politetest.ReportOn(visits, restRule(MinRest))
	rate, limit, lastFirst := visitRates(visits)
	b.ReportMetric(rate/limit, "efficiency")
	b.ReportMetric(rate, "requests/s")
	b.ReportMetric(limit, "limit/s")
	b.ReportMetric(float64(rep.Overlaps), "overlaps")
	b.ReportMetric(float64(len(rep.ShortGaps)), "short_gaps")
	b.ReportMetric(lastFirst.Sub(begin).Seconds(), "startup_s")
	b.ReportMetric(float64(failed), "errors")
}
