package redisshare_test

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/redistest"
	"github.com/politecrawler/polite/politetest"
)

// BenchmarkShared crawls 2,000 hosts answering in 200 ms from a farm
// process, with the default Config: "processes=4" is four fetcher
// processes sharing one redis-server, each given the same four pages of
// every host; "alone" is one process without Shared given all sixteen
// pages of every host, the same requests to the same servers. It reports
// the farm's requests/s against the limit R2 allows over its visits
// (efficiency), how much later than its rest allowed a request began
// (late, median and 90th percentile), Redis calls per request, and CPU
// per request of the fetcher processes (not of redis-server). With two
// pages each, the start (every host's robots.txt at once, then the first
// pages) weighed more: 0.96 efficiency, the first page after robots.txt
// 650 ms late at the median.
//
//	go test -run '^$' -bench Shared -benchtime 1x ./redisshare
func BenchmarkShared(b *testing.B) {
	const hosts, pages, procs = 2000, 4, 4
	latency := 200 * time.Millisecond
	b.Run("processes=4", func(b *testing.B) {
		for range b.N {
			srv := redistest.Start(b)
			fc := startFarm(b, hosts, latency)
			var urls []string
			for p := range pages {
				urls = append(urls, urlsOf(fc, hosts, fmt.Sprintf("/page%d", p))...)
			}
			var ps []*fetcherChild
			for range procs {
				ps = append(ps, startFetcher(b, srv.Addr(), fc, urls, 0))
			}
			reportRun(b, fc, ps)
		}
	})
	b.Run("alone", func(b *testing.B) {
		for range b.N {
			fc := startFarm(b, hosts, latency)
			var urls []string
			for p := range pages * procs {
				urls = append(urls, urlsOf(fc, hosts, fmt.Sprintf("/page%d", p))...)
			}
			reportRun(b, fc, []*fetcherChild{startFetcher(b, "", fc, urls, 0, aloneEnv+"=1")})
		}
	})
}

// reportRun waits for the fetcher processes and reports what the farm saw.
func reportRun(b *testing.B, fc *farmChild, ps []*fetcherChild) {
	var cpu time.Duration
	var calls int64
	var requests, withheld, failed int
	for _, p := range ps {
		for _, o := range p.wait(b) {
			if o.Err != "" {
				failed++
			}
		}
		cpu += p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
		calls += p.final.Calls
		requests += p.final.Requests
		withheld += p.final.Withheld
	}
	vs := fc.visits(b)
	rep := politetest.ReportOn(vs, func(prev politetest.Visit) time.Duration { return restAfter(prev.End.Sub(prev.Start)) })
	rate, limit := rates(vs)
	b.ReportMetric(rate/limit, "efficiency")
	b.ReportMetric(rate, "requests/s")
	b.ReportMetric(float64(len(vs)), "requests")
	b.ReportMetric(float64(rep.Overlaps), "overlaps")
	b.ReportMetric(float64(len(rep.ShortGaps)), "short_gaps")
	b.ReportMetric(float64(failed), "errors")
	b.ReportMetric(float64(calls)/float64(requests), "redis_calls/request")
	// Of those: a Take and a Rest per request, a Take per one withheld,
	// and the rest records (host, robots.txt) and the watch.
	b.ReportMetric(float64(withheld)/float64(requests), "withheld/request")
	b.ReportMetric(float64(calls-2*int64(requests)-int64(withheld))/float64(requests), "other_calls/request")
	b.ReportMetric(float64(cpu.Microseconds())/float64(requests), "cpu_µs/request")
	late := lateness(vs)
	b.ReportMetric(float64(late[len(late)/2].Milliseconds()), "late_p50_ms")
	b.ReportMetric(float64(late[len(late)*9/10].Milliseconds()), "late_p90_ms")
}

// lateness is, for each request after the first at its address, how much
// later it began than the rest after the one before allowed, sorted.
func lateness(vs []politetest.Visit) []time.Duration {
	byAddr := make(map[netip.Addr][]politetest.Visit)
	for _, v := range vs {
		byAddr[v.Addr] = append(byAddr[v.Addr], v)
	}
	var late []time.Duration
	for _, vs := range byAddr {
		for i := 1; i < len(vs); i++ {
			prev := vs[i-1]
			late = append(late, vs[i].Start.Sub(prev.End)-restAfter(prev.End.Sub(prev.Start)))
		}
	}
	slices.Sort(late)
	return late
}

// restAfter is R2's rest after a request of duration d with no
// Crawl-delay and no failure: the floor or 5 × d, capped.
func restAfter(d time.Duration) time.Duration {
	return max(polite.MinRest, min(polite.MinDurationFactor*d, polite.DurationRestCap))
}

// rates sums, over the farm's addresses, the requests/s each got from its
// first request to its last, and the limit R2 allows over the same
// requests, the rests computed from the durations the farm saw.
func rates(vs []politetest.Visit) (rate, limit float64) {
	byAddr := make(map[netip.Addr][]politetest.Visit)
	for _, v := range vs {
		byAddr[v.Addr] = append(byAddr[v.Addr], v)
	}
	for _, vs := range byAddr {
		if len(vs) < 2 {
			continue
		}
		var ideal time.Duration
		for _, v := range vs[:len(vs)-1] {
			d := v.End.Sub(v.Start)
			ideal += d + restAfter(d)
		}
		n := float64(len(vs) - 1)
		rate += n / vs[len(vs)-1].Start.Sub(vs[0].Start).Seconds()
		limit += n / ideal.Seconds()
	}
	return rate, limit
}
