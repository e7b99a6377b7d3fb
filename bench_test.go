package polite

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/farm"
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
				runPoliteness(b, hosts, 4)
			}
		})
	}
}

func runPoliteness(b *testing.B, hosts, perHost int) {
	b.StopTimer()
	fp := startFarmProcess(b, hosts)
	defer fp.close()
	var urls []string
	for i := range hosts {
		for p := range perHost {
			urls = append(urls, fp.url(i, fmt.Sprintf("/p%d", p)))
		}
	}
	f, err := New(Config{Resolver: fp.resolver(), AllowPrivateNetworks: true, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	b.StartTimer()
	begin := time.Now()
	for _, u := range urls {
		if err := f.Add(ctx, u); err != nil {
			b.Fatal(err)
		}
	}
	failed := 0
	for range urls {
		r, err := f.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if r.Err != nil {
			failed++
		}
	}
	b.StopTimer()
	f.Close()

	visits, err := fp.visits()
	if err != nil {
		b.Fatal(err)
	}
	rep := farm.ReportOn(visits, restRule(MinRest))
	rate, limit, lastFirst := visitRates(visits)
	b.ReportMetric(rate/limit, "efficiency")
	b.ReportMetric(rate, "requests/s")
	b.ReportMetric(limit, "limit/s")
	b.ReportMetric(float64(rep.Overlaps), "overlaps")
	b.ReportMetric(float64(len(rep.ShortGaps)), "short_gaps")
	b.ReportMetric(lastFirst.Sub(begin).Seconds(), "startup_s")
	b.ReportMetric(float64(failed), "errors")
}

// visitRates sums, over the farm's addresses, the requests/s each got in
// its steady state (from its first request to its last) and the limit the
// rules allow over the same requests, the rest computed by R2 from the
// durations the farm saw (see BenchmarkPoliteness). lastFirst is the
// latest first request of an address.
func visitRates(visits []farm.Visit) (rate, limit float64, lastFirst time.Time) {
	byAddr := make(map[netip.Addr][]farm.Visit)
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
			ideal += d + restAfter(pacing{floor: MinRest, factor: MinDurationFactor}, outcome{duration: d}).Wait
		}
		n := float64(len(vs) - 1)
		rate += n / vs[len(vs)-1].Start.Sub(vs[0].Start).Seconds()
		limit += n / ideal.Seconds()
	}
	return rate, limit, lastFirst
}
