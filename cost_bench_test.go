package polite

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"net"
	"net/http"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/politecrawler/polite/botauth"
	"github.com/politecrawler/polite/politetest"
)

// BenchmarkRequestCost compares the CPU time and allocations per request
// of the Fetcher with a bare net/http loop making the same requests (each
// host's robots.txt and one page, 2,000 in all) to the same farm, up to
// 64 at a time (bareInFlight). The farm runs in a child process, so the CPU measured
// (this process's user+system time, its garbage collector included) is
// the client's alone.
//
// The bare loop runs twice: at once, every page right after the
// robots.txt requests (bare, the baseline), and paced, each page sent
// when the fetcher would send it, 3 s after its host's robots.txt ended
// (paced). What the paced loop costs over the bare one is the price of
// spreading requests out, which any polite client pays; what the fetcher
// costs over the paced loop is its own work.
//
// The fetcher runs twice too: as configured by default (polite), and
// with a Config.Signer of package botauth (signed), which signs every
// request with Ed25519 under Web Bot Auth. What signed costs over polite
// is the price of a verifiable identity (signing-ns/request).
//
// Each iteration runs the four back to back, each of the 24 orders in
// turn: what the machine is doing at the moment, and what one side leaves
// behind as its connections close, weigh on all sides alike. The figures
// are the medians over the iterations, and the medians of each
// iteration's ratios; a -benchtime that is a multiple of 24 gives every
// order the same weight.
//
// Each side's goroutines carry the profiler label side=bare, paced,
// polite or signed, so that a CPU profile splits by side:
//
//	go test -run '^$' -bench RequestCost -benchtime 24x .
//	go test -run '^$' -bench RequestCost -benchtime 24x -cpuprofile cpu.out .
//	go tool pprof -tagfocus side=polite -top polite.test cpu.out
func BenchmarkRequestCost(b *testing.B) {
	const hosts = 1000
	fp, res, robots, pages := costFarm(b, hosts)
	defer fp.close()
	signer := costSigner(b)
	var bare, paced, polite, signed []cost
	var ratios, pacedRatios, signedRatios, signing []float64
	for i := range b.N {
		var cb, cpaced, cp, cs cost
		runs := []func(){
			func() { cb = bareCost(b, res, robots, pages) },
			func() { cpaced = pacedCost(b, res, robots, pages) },
			func() { cp = politeCost(b, res, pages, nil) },
			func() { cs = politeCost(b, res, pages, signer) },
		}
		for _, k := range sideOrders[i%len(sideOrders)] {
			side := [...]string{"bare", "paced", "polite", "signed"}[k]
			pprof.Do(context.Background(), pprof.Labels("side", side), func(context.Context) { runs[k]() })
		}
		bare, paced, polite, signed = append(bare, cb), append(paced, cpaced), append(polite, cp), append(signed, cs)
		ratios = append(ratios, cp.cpu/cb.cpu)
		pacedRatios = append(pacedRatios, cp.cpu/cpaced.cpu)
		signedRatios = append(signedRatios, cs.cpu/cb.cpu)
		signing = append(signing, cs.cpu-cp.cpu)
	}
	report := func(side string, cs []cost) {
		b.ReportMetric(median(cs, func(c cost) float64 { return c.cpu }), side+"-cpu-ns/request")
		b.ReportMetric(median(cs, func(c cost) float64 { return c.allocs }), side+"-allocs/request")
		b.ReportMetric(median(cs, func(c cost) float64 { return c.bytes }), side+"-B/request")
	}
	report("bare", bare)
	report("paced", paced)
	report("polite", polite)
	report("signed", signed)
	b.ReportMetric(median(ratios, func(r float64) float64 { return r }), "cpu-ratio")
	b.ReportMetric(median(signedRatios, func(r float64) float64 { return r }), "cpu-ratio-signed")
	b.ReportMetric(median(signing, func(r float64) float64 { return r }), "signing-ns/request")
	b.ReportMetric(slices.Min(ratios), "cpu-ratio-min")
	b.ReportMetric(slices.Max(ratios), "cpu-ratio-max")
	b.ReportMetric(median(pacedRatios, func(r float64) float64 { return r }), "cpu-ratio-to-paced")
}

// sideOrders are the 24 orders of BenchmarkRequestCost's four sides.
var sideOrders = func() [][4]int {
	var out [][4]int
	var perm func(p [4]int, n int)
	perm = func(p [4]int, n int) {
		if n == len(p) {
			out = append(out, p)
			return
		}
		for i := n; i < len(p); i++ {
			p[n], p[i] = p[i], p[n]
			perm(p, n+1)
			p[n], p[i] = p[i], p[n]
		}
	}
	perm([4]int{0, 1, 2, 3}, 0)
	return out
}()

// costSigner is the signed side's Config.Signer: Web Bot Auth, a fresh
// Ed25519 key.
func costSigner(b *testing.B) RequestSigner {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	s, err := botauth.NewSigner(key, "https://crawler.test", botauth.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// costFarm starts a farm process of hosts sites and returns, with it, its
// resolver and each host's robots.txt and page URLs.
func costFarm(b *testing.B, hosts int) (fp *farmProcess, res *politetest.Resolver, robots, pages []string) {
	fp = startFarmProcess(b, hosts)
	for i := range hosts {
		robots = append(robots, fp.url(i, politetest.RobotsPath))
		pages = append(pages, fp.url(i, "/page"))
	}
	return fp, fp.resolver(), robots, pages
}

// bareInFlight is the bare loops' concurrency: 64, the fetcher's fixed
// pool before #18, so that their figures compare with earlier runs. A
// higher one would send a host's robots.txt and page at once, on two
// connections, which no polite client does.
const bareInFlight = 64

// cost is one run's CPU time, allocations and bytes allocated per request.
type cost struct{ cpu, allocs, bytes float64 }

// bareCost makes the requests with a plain net/http client: robots.txt of
// every host, then every page, bareInFlight at a time.
func bareCost(b *testing.B, res *politetest.Resolver, robots, pages []string) cost {
	client := bareClient(res)
	defer client.CloseIdleConnections()
	all := slices.Concat(robots, pages)
	return measureCost(len(all), func() {
		inParallel(len(all), func(i int) { bareGet(b, client, all[i]) })
	})
}

// bareGet fetches u as a plain net/http caller would, reading the body.
func bareGet(b *testing.B, client *http.Client, u string) {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("User-Agent", DefaultName)
	resp, err := client.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, DefaultMaxBodyBytes))
	resp.Body.Close()
}

// inParallel calls each for 0 to n-1, bareInFlight at a time, and
// returns when all have returned.
func inParallel(n int, each func(i int)) {
	var wg sync.WaitGroup
	work := make(chan int)
	for range bareInFlight {
		wg.Go(func() {
			for i := range work {
				each(i)
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

// pacedCost makes the bare loop's requests at the fetcher's pace: every
// robots.txt at once, then each page 3 s after its host's robots.txt
// ended.
// The pages are sent from timer goroutines, which do not inherit the
// caller's profiler labels: each sets side=paced itself.
func pacedCost(b *testing.B, res *politetest.Resolver, robots, pages []string) cost {
	client := bareClient(res)
	defer client.CloseIdleConnections()
	labelled := pprof.WithLabels(context.Background(), pprof.Labels("side", "paced"))
	return measureCost(len(robots)+len(pages), func() {
		ends := make([]time.Time, len(robots))
		inParallel(len(robots), func(i int) { bareGet(b, client, robots[i]); ends[i] = time.Now() })
		sendPaced(func(i int) {
			pprof.SetGoroutineLabels(labelled)
			bareGet(b, client, pages[i])
		}, ends)
	})
}

// sendPaced calls get for each i, MinRest after ends[i], with at most
// bareInFlight calls at a time, and returns when all have returned.
func sendPaced(get func(i int), ends []time.Time) {
	slots := make(chan struct{}, bareInFlight)
	var wg sync.WaitGroup
	for i := range ends {
		wg.Add(1)
		time.AfterFunc(time.Until(ends[i].Add(MinRest)), func() {
			defer wg.Done()
			slots <- struct{}{}
			get(i)
			<-slots
		})
	}
	wg.Wait()
}

// politeCost fetches the pages with a Fetcher, which asks each host's
// robots.txt first; with signer, when not nil, as its Config.Signer.
func politeCost(b *testing.B, res *politetest.Resolver, pages []string, signer RequestSigner) cost {
	f, err := New(Config{Resolver: res, AllowPrivateNetworks: true, Logger: quiet, Signer: signer})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	return measureCost(2*len(pages), func() {
		ctx := context.Background()
		for _, u := range pages {
			if err := f.Add(ctx, u); err != nil {
				b.Fatal(err)
			}
		}
		for range pages {
			if r, err := f.Next(ctx); err != nil || r.Err != nil {
				b.Fatal(err, r.Err)
			}
		}
	})
}

// median is the middle of xs by key (the mean of the two middle ones for
// an even count).
func median[T any](xs []T, key func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = key(x)
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// bareClient dials farm names through the farm's resolver: a plain
// net/http client with keep-alive, as a caller without polite would use.
func bareClient(res *politetest.Resolver) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: 1,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, _ := net.SplitHostPort(addr)
			ips, err := res.LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil, err
			}
			return d.DialContext(ctx, network, net.JoinHostPort(ips[0].String(), port))
		},
	}}
}

// measureCost runs work once and returns its CPU time and allocations
// per request.
func measureCost(requests int, work func()) cost {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0 := cpuTime()
	work()
	c1 := cpuTime()
	runtime.ReadMemStats(&m1)
	n := float64(requests)
	return cost{
		cpu:    float64((c1 - c0).Nanoseconds()) / n,
		allocs: float64(m1.Mallocs-m0.Mallocs) / n,
		bytes:  float64(m1.TotalAlloc-m0.TotalAlloc) / n,
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRequestPhases splits the cost of BenchmarkRequestCost by phase:
// per host, the robots.txt phase (the lookup, robots.txt on a new
// connection, the page gated); per page, the page phase. The bare loop's
// phases are its robots.txt requests, then its pages sent at once (burst)
// or each 3 s after its host's robots.txt ended, as the fetcher sends them
// (paced). All figures are CPU µs, medians over the iterations.
//
//	go test -run '^$' -bench RequestPhases -benchtime 12x .
func BenchmarkRequestPhases(b *testing.B) {
	const hosts = 1000
	fp, res, robots, pages := costFarm(b, hosts)
	defer fp.close()
	µs := func(d time.Duration, n int) float64 { return float64(d.Nanoseconds()) / float64(n) / 1e3 }
	m := map[string][]float64{}
	for range b.N {
		f, err := New(Config{Resolver: res, AllowPrivateNetworks: true, Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		c0 := cpuTime()
		for _, u := range pages {
			if err := f.Add(ctx, u); err != nil {
				b.Fatal(err)
			}
		}
		// The first page comes 3 s after the first robots.txt ended, when
		// every robots.txt is in.
		if r, err := f.Next(ctx); err != nil || r.Err != nil {
			b.Fatal(err, r.Err)
		}
		c1 := cpuTime()
		for range hosts - 1 {
			if r, err := f.Next(ctx); err != nil || r.Err != nil {
				b.Fatal(err, r.Err)
			}
		}
		c2 := cpuTime()
		f.Close()
		m["polite-robots-µs/host"] = append(m["polite-robots-µs/host"], µs(c1-c0, hosts))
		m["polite-page-µs/page"] = append(m["polite-page-µs/page"], µs(c2-c1, hosts))

		client := bareClient(res)
		get := func(u string) { bareGet(b, client, u) }
		ends := make([]time.Time, hosts)
		burst := func(each func(i int)) { inParallel(hosts, each) }
		c0 = cpuTime()
		burst(func(i int) { get(robots[i]); ends[i] = time.Now() })
		c1 = cpuTime()
		burst(func(i int) { get(pages[i]) })
		c2 = cpuTime()
		client.CloseIdleConnections()
		m["bare-robots-µs/host"] = append(m["bare-robots-µs/host"], µs(c1-c0, hosts))
		m["bare-burst-page-µs/page"] = append(m["bare-burst-page-µs/page"], µs(c2-c1, hosts))

		burst(func(i int) { get(robots[i]); ends[i] = time.Now() })
		c0 = cpuTime()
		sendPaced(func(i int) { get(pages[i]) }, ends)
		c1 = cpuTime()
		client.CloseIdleConnections()
		m["bare-paced-page-µs/page"] = append(m["bare-paced-page-µs/page"], µs(c1-c0, hosts))
	}
	for name, xs := range m {
		b.ReportMetric(median(xs, func(x float64) float64 { return x }), name)
	}
}
