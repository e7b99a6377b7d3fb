//go:build linux

package polite

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/schedule"
	"github.com/politecrawler/polite/politetest"
)

// BenchmarkLatency is BenchmarkPoliteness at 10,000 hosts with servers
// that take their time: every request, robots.txt included, is answered
// after 50 ms, 200 ms or 1 s. It runs the default Config, as a user
// would: the limit needs about Σ duration ÷ (rest + duration) requests in
// flight at once (Little's law; about 1,700 at 1 s, whose rest is 5 s),
// and the fetcher must keep that many in flight on its own (R1.2). Each
// host gets robots.txt and 2 pages, enough to measure each budget after
// its first rest. A fourth run is the 1 s one with a farm that closes a
// connection idle 1 s, so that what the process holds at its peak is the
// requests in flight's: at_goroutines:*_KiB/inflight divide Go's account
// and the RSS beyond the test binary's own by the requests in flight at
// the sample with the most goroutines.
//
// Besides BenchmarkPoliteness's figures it reports inflight_peak, the
// most requests the farm saw in flight at once; inflight_at_rss, those in
// flight at the sample of highest RSS; and, as BenchmarkRSS does, the
// process's peak RSS, its goroutines and Go's account of its memory at
// that sample, and the CPU of this process and of the farm's.
//
//	go test -run '^$' -bench Latency -benchtime 1x .
//
// With POLITE_RSS_PROFILE set to a directory, heap and goroutine
// profiles are written there as BenchmarkRSS writes them.
func BenchmarkLatency(b *testing.B) {
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		b.Skip("needs /proc/self/clear_refs:", err)
	}
	for _, latency := range []time.Duration{50 * time.Millisecond, 200 * time.Millisecond, time.Second} {
		b.Run("latency="+latency.String(), func(b *testing.B) {
			for range b.N {
				runLatency(b, 10000, 2, farmOptions{latency: latency})
			}
		})
	}
	// The farm closes a connection idle 1 s, as many servers do: through
	// the 5 s rests few connections stay, and what the process holds is
	// nearly all the requests in flight's (memory per request in flight).
	b.Run("latency=1s/idle=1s", func(b *testing.B) {
		for range b.N {
			runLatency(b, 10000, 2, farmOptions{latency: time.Second, idle: time.Second})
		}
	})
	// Lookups are work too: every name takes 50 ms to resolve, as real
	// DNS does, and the hosts already resolved must not wait for the rest.
	b.Run("latency=200ms,lookup=50ms", func(b *testing.B) {
		for range b.N {
			runLatencyWith(b, 10000, 2, farmOptions{latency: 200 * time.Millisecond}, 50*time.Millisecond)
		}
	})
	// Slow hosts cannot starve fast ones: a tenth take 10 s a request,
	// the rest 100 ms. efficiency_fast and efficiency_slow are each
	// group's own.
	b.Run("mix=10s,100ms", func(b *testing.B) {
		for range b.N {
			runLatency(b, 10000, 2, farmOptions{latency: 100 * time.Millisecond, slow: 10 * time.Second, slowEvery: 10})
		}
	})
}

// slowResolver answers as its Resolver does, after wait.
type slowResolver struct {
	Resolver
	wait time.Duration
}

func (r slowResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	t := time.NewTimer(r.wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return r.Resolver.LookupNetIP(ctx, network, host)
}

func runLatency(b *testing.B, hosts, perHost int, opt farmOptions) {
	runLatencyWith(b, hosts, perHost, opt, 0)
}

// runLatencyWith is runLatency behind a Resolver that takes lookup to
// answer each name.
func runLatencyWith(b *testing.B, hosts, perHost int, opt farmOptions, lookup time.Duration) {
	b.StopTimer()
	fp := startFarmProcessWith(b, hosts, opt)
	defer fp.close()
	var urls []string
	for i := range hosts {
		for p := range perHost {
			urls = append(urls, fp.url(i, fmt.Sprintf("/p%d", p)))
		}
	}

	// The high-water mark starts from what the test binary holds itself.
	runtime.GC()
	debug.FreeOSMemory()
	st, err := openProcStatus()
	if err != nil {
		b.Fatal(err)
	}
	defer st.close()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skip("cannot reset the RSS high-water mark:", err)
	}
	base := st.field("VmRSS:")
	profileDir := os.Getenv("POLITE_RSS_PROFILE")
	if profileDir != "" {
		defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
		runtime.MemProfileRate = 16 << 10
	}
	s := startMemorySampler(b, st, profileDir)

	cpu0, farm0, busy0 := selfCPU(), processCPU(fp.cmd.Process.Pid), machineCPU()
	b.StartTimer()
	begin := time.Now()
	waits0, wait0 := schedule.RunnableWaits()
	var log requestLog
	var resolver Resolver = fp.resolver()
	if lookup > 0 {
		resolver = slowResolver{resolver, lookup}
	}
	f, err := New(Config{Resolver: resolver, AllowPrivateNetworks: true, Logger: quiet, OnRequest: log.add})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	failed := crawlAll(b, f, urls)
	elapsed := time.Since(begin)
	f.Close()
	b.StopTimer()
	cpu, farmCPU := selfCPU()-cpu0, processCPU(fp.cmd.Process.Pid)-farm0
	others := machineCPU() - busy0 - cpu - farmCPU
	peak := s.stop()
	hwm := st.field("VmHWM:")

	visits, err := fp.visits()
	if err != nil {
		b.Fatal(err)
	}
	at := peak.atRSS
	const mib = 1 << 20
	reportPoliteness(b, visits, begin, failed)
	if opt.slowEvery > 0 {
		var fast, slow []politetest.Visit
		slowAddrs := fp.slowAddrs(opt.slowEvery)
		for _, v := range visits {
			if slowAddrs[v.Addr] {
				slow = append(slow, v)
			} else {
				fast = append(fast, v)
			}
		}
		r, l, _ := visitRates(fast)
		b.ReportMetric(r/l, "efficiency_fast")
		r, l, _ = visitRates(slow)
		b.ReportMetric(r/l, "efficiency_slow")
	}
	reportSchedWait(b, waits0, wait0)
	reportLoss(b, &log, visits)
	b.ReportMetric(float64(inFlightPeak(visits)), "inflight_peak")
	b.ReportMetric(float64(inFlightAt(visits, at.t)), "inflight_at_rss")
	b.ReportMetric(float64(hwm)/mib, "peak_rss_MiB")
	b.ReportMetric(float64(base)/mib, "base_rss_MiB")
	b.ReportMetric(float64(peak.heapLive)/mib, "heap_live_peak_MiB")
	b.ReportMetric(float64(peak.goroutines), "goroutines_peak")
	b.ReportMetric(float64(at.heapInuse)/mib, "at_peak:heap_inuse_MiB")
	b.ReportMetric(float64(at.stacks)/mib, "at_peak:stacks_MiB")
	b.ReportMetric(float64(at.goroutines), "at_peak:goroutines")
	b.ReportMetric(float64(at.fds), "at_peak:fds")
	// What the process holds beyond the test binary's own, its goroutine
	// stacks and its heap in use, per request in flight, at the sample
	// with the most goroutines: about the most requests in flight.
	g := peak.atGoroutines
	if n := inFlightAt(visits, g.t); n > 0 {
		b.ReportMetric(float64(n), "at_goroutines:inflight")
		b.ReportMetric(float64(g.goroutines)/float64(n), "at_goroutines:goroutines/inflight")
		b.ReportMetric(float64(g.rss-base)/float64(n)/1024, "at_goroutines:rss_KiB/inflight")
		b.ReportMetric(float64(g.stacks)/float64(n)/1024, "at_goroutines:stacks_KiB/inflight")
		b.ReportMetric(float64(g.heapInuse)/float64(n)/1024, "at_goroutines:heap_inuse_KiB/inflight")
	}
	b.ReportMetric(elapsed.Seconds(), "run_s")
	b.ReportMetric(cpu.Seconds(), "cpu_s")
	b.ReportMetric(farmCPU.Seconds(), "farm_cpu_s")
	b.ReportMetric(others.Seconds(), "others_cpu_s")
}

// inFlightPeak is the most visits the farm had under way at once.
func inFlightPeak(visits []politetest.Visit) int {
	type edge struct {
		at   time.Time
		step int
	}
	edges := make([]edge, 0, 2*len(visits))
	for _, v := range visits {
		edges = append(edges, edge{v.Start, 1}, edge{v.End, -1})
	}
	// An end before a start at the same instant: a budget's next request
	// does not overlap its last.
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.step - b.step
	})
	n, top := 0, 0
	for _, e := range edges {
		n += e.step
		top = max(top, n)
	}
	return top
}

// inFlightAt counts the visits under way at t.
func inFlightAt(visits []politetest.Visit, t time.Time) int {
	n := 0
	for _, v := range visits {
		if !v.Start.After(t) && v.End.After(t) {
			n++
		}
	}
	return n
}
