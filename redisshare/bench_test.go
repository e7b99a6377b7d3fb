package redisshare_test

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/redistest"
	"github.com/politecrawler/polite/politetest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkShared crawls 2,000 hosts answering in 200 ms from a farm
// process, with the default Config. "processes=4/pages=10" is four
// fetcher processes sharing one redis-server, each given the same ten
// pages of every host (41 requests a host with its robots.txt);
// "processes=4/pages=1", one page each; "alone", one process without
// Shared given all forty pages of every host, the same requests to the
// same servers. It reports the farm's requests/s against the limit R2
// allows over its visits (efficiency), how much later than its rest
// allowed a request began (late, median and 90th percentile), and per
// request: the round trips to Redis (calls: a pipeline is one), the
// commands Redis ran (its own INFO commandstats), the CPU redis-server
// used (INFO cpu), and that of the fetcher processes. shard_requests/s is
// what one redis-server could coordinate at that CPU a request.
//
//	go test -run '^$' -bench Shared -benchtime 1x ./redisshare
func BenchmarkShared(b *testing.B) {
	const hosts, procs = 2000, 4
	latency := 200 * time.Millisecond
	for _, pages := range []int{10, 1} {
		b.Run(fmt.Sprintf("processes=%d/pages=%d", procs, pages), func(b *testing.B) {
			for range b.N {
				srv := redistest.Start(b)
				fc := startFarm(b, hosts, latency)
				var urls []string
				for p := range pages {
					urls = append(urls, urlsOf(fc, hosts, fmt.Sprintf("/page%d", p))...)
				}
				before := redisInfo(b, srv)
				var ps []*fetcherChild
				for range procs {
					ps = append(ps, startFetcher(b, srv.Addr(), fc, urls, 0))
				}
				reportRun(b, fc, ps, srv, before)
			}
		})
	}
	b.Run("alone", func(b *testing.B) {
		for range b.N {
			fc := startFarm(b, hosts, latency)
			var urls []string
			for p := range 10 * procs {
				urls = append(urls, urlsOf(fc, hosts, fmt.Sprintf("/page%d", p))...)
			}
			reportRun(b, fc, []*fetcherChild{startFetcher(b, "", fc, urls, 0, aloneEnv+"=1")}, nil, redisStats{})
		}
	})
}

// reportRun waits for the fetcher processes and reports what the farm
// saw, and what Redis did (srv nil: no Redis).
func reportRun(b *testing.B, fc *farmChild, ps []*fetcherChild, srv *redistest.Server, before redisStats) {
	var cpu time.Duration
	var calls, commands int64
	var withheld, failed int
	for _, p := range ps {
		for _, o := range p.wait(b) {
			if o.Err != "" {
				failed++
			}
		}
		cpu += p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
		calls += p.final.Calls
		commands += p.final.Commands
		withheld += p.final.Withheld
	}
	vs := fc.visits(b)
	requests := float64(len(vs))
	rep := politetest.ReportOn(vs, func(prev politetest.Visit) time.Duration { return restAfter(prev.End.Sub(prev.Start)) })
	rate, limit := rates(vs)
	b.ReportMetric(rate/limit, "efficiency")
	b.ReportMetric(rate, "requests/s")
	b.ReportMetric(requests, "requests")
	b.ReportMetric(float64(rep.Overlaps), "overlaps")
	b.ReportMetric(float64(len(rep.ShortGaps)), "short_gaps")
	b.ReportMetric(float64(failed), "errors")
	b.ReportMetric(float64(withheld)/requests, "withheld/request")
	b.ReportMetric(float64(cpu.Microseconds())/requests, "cpu_µs/request")
	if srv != nil {
		after := redisInfo(b, srv)
		redisCPU := float64((after.cpu - before.cpu).Microseconds()) / requests
		b.ReportMetric(float64(calls)/requests, "redis_calls/request")
		b.ReportMetric(float64(commands)/requests, "commands_sent/request")
		b.ReportMetric(float64(after.commands-before.commands)/requests, "redis_cmdstat/request")
		b.ReportMetric(redisCPU, "redis_cpu_µs/request")
		b.ReportMetric(1e6/redisCPU, "shard_requests/s")
	}
	late := lateness(vs)
	b.ReportMetric(float64(late[len(late)/2].Milliseconds()), "late_p50_ms")
	b.ReportMetric(float64(late[len(late)*9/10].Milliseconds()), "late_p90_ms")
}

// redisStats is what redis-server says of its work so far.
type redisStats struct {
	cpu      time.Duration // used_cpu_user + used_cpu_sys (INFO cpu)
	commands int64         // the calls of every command (INFO commandstats)
}

// redisInfo reads INFO cpu and INFO commandstats.
func redisInfo(b *testing.B, srv *redistest.Server) redisStats {
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	info, err := rdb.Info(ctx, "cpu", "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var st redisStats
	for _, line := range strings.Split(info, "\r\n") {
		k, v, _ := strings.Cut(line, ":")
		switch {
		case k == "used_cpu_user" || k == "used_cpu_sys":
			secs, _ := strconv.ParseFloat(v, 64)
			st.cpu += time.Duration(secs * float64(time.Second))
		case strings.HasPrefix(k, "cmdstat_"):
			// calls=N,usec=...; the INFO itself is not the crawl's.
			if k == "cmdstat_info" {
				continue
			}
			calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
			n, _ := strconv.ParseInt(calls, 10, 64)
			st.commands += n
		}
	}
	return st
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
