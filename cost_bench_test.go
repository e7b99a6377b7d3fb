package polite

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/farm"
)

// BenchmarkRequestCost compares the CPU time and allocations per request
// of the Fetcher with a bare net/http loop making the same requests
// (each host's robots.txt and one page) to the same farm, with the same
// concurrency. CPU is the process's user+system time, so it includes the
// farm's own serving, which is the same on both sides.
//
//	go test -run '^$' -bench RequestCost -benchtime 1x .
func BenchmarkRequestCost(b *testing.B) {
	const hosts = 1000
	fm := farm.New(nil)
	defer fm.Close()
	var pages, robots []string
	for i := range hosts {
		s, err := fm.AddSite(farm.Site{Name: fmt.Sprintf("c%04d.test", i)})
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, fm.URL(s.Name, "/page"))
		robots = append(robots, fm.URL(s.Name, farm.RobotsPath))
	}
	b.Run("impl=net-http", func(b *testing.B) {
		for range b.N {
			client := bareClient(fm)
			measureCost(b, 2*hosts, func() {
				var wg sync.WaitGroup
				work := make(chan string)
				for range DefaultMaxInFlight {
					wg.Go(func() {
						for u := range work {
							req, _ := http.NewRequest(http.MethodGet, u, nil)
							req.Header.Set("User-Agent", DefaultName)
							resp, err := client.Do(req)
							if err != nil {
								b.Error(err)
								continue
							}
							io.Copy(io.Discard, io.LimitReader(resp.Body, DefaultMaxBodyBytes))
							resp.Body.Close()
						}
					})
				}
				for i := range hosts {
					work <- robots[i]
				}
				for i := range hosts {
					work <- pages[i]
				}
				close(work)
				wg.Wait()
			})
			client.CloseIdleConnections()
		}
	})
	b.Run("impl=polite", func(b *testing.B) {
		for range b.N {
			f, err := New(Config{Resolver: fm.Resolver(), AllowPrivateNetworks: true, Logger: quiet})
			if err != nil {
				b.Fatal(err)
			}
			measureCost(b, 2*hosts, func() {
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
			f.Close()
		}
	})
}

// bareClient dials farm names through the farm's resolver: a plain
// net/http client with keep-alive, as a caller without polite would use.
func bareClient(fm *farm.Farm) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: 1,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, _ := net.SplitHostPort(addr)
			ips, err := fm.Resolver().LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil, err
			}
			return d.DialContext(ctx, network, net.JoinHostPort(ips[0].String(), port))
		},
	}}
}

// measureCost runs work once and reports CPU time and allocations per
// request.
func measureCost(b *testing.B, requests int, work func()) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0 := cpuTime()
	work()
	c1 := cpuTime()
	runtime.ReadMemStats(&m1)
	b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(requests), "cpu-ns/request")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(requests), "allocs/request")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(requests), "B/request")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
