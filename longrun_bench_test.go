package polite

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/clock"
)

// BenchmarkLongRun streams 1,000,000 hosts through one Fetcher on the
// fake clock, as a crawl of a week would meet them (R1.2, R11): waves of
// 50,000 new hosts, each with one page (robots.txt, a 404, then the page),
// every Result read, then a day passes before the next wave, so the hosts
// of the waves before are idle past their robots period. heap_100k_MiB
// and heap_1M_MiB are the live heap (after a collection) once the wave
// that reaches 100,000 and 1,000,000 hosts has been read; ratio is the
// second over the first: memory follows the hosts active now, not the
// hosts ever seen. Every request is real HTTP to a loopback server of 256
// addresses (127.1.0.0/24) that closes each connection after its answer;
// hosts_held is Stats.Hosts at the end. With POLITE_LONGRUN_PROFILE set
// to a directory, a heap profile is written there at each of the two
// measures. It takes a quarter of an hour:
//
//	go test -run '^$' -bench LongRun -benchtime 1x -timeout 30m .
func BenchmarkLongRun(b *testing.B) {
	for range b.N {
		runLongRun(b, 1_000_000, 50_000)
	}
}

// waveResolver gives host hN.test the address 127.1.0.(N mod 256).
type waveResolver struct{}

func (waveResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var n int
	fmt.Sscanf(host, "h%d.test", &n)
	return []netip.Addr{netip.AddrFrom4([4]byte{127, 1, 0, byte(n)})}, nil
}

func runLongRun(b *testing.B, hosts, wave int) {
	b.StopTimer()
	ln, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		b.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<p>%s</p>", r.Host)
	})}
	srv.SetKeepAlivesEnabled(false)
	go srv.Serve(ln)
	defer srv.Close()

	clk := clock.NewFake()
	f, err := newFetcher(Config{Resolver: waveResolver{}, AllowPrivateNetworks: true, Logger: quiet},
		hooks{clock: clk, onIdle: clk.Set})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	heapNow := func(seen int) float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if dir := os.Getenv("POLITE_LONGRUN_PROFILE"); dir != "" {
			if w, err := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%d.pb.gz", seen))); err == nil {
				pprof.WriteHeapProfile(w)
				w.Close()
			}
		}
		return float64(m.HeapAlloc) / (1 << 20)
	}
	var at100k, at1M float64
	failed := 0
	b.StartTimer()
	for start := 0; start < hosts; start += wave {
		for h := start; h < start+wave; h++ {
			if err := f.Add(ctx, "http://h"+strconv.Itoa(h)+".test:"+port+"/page"); err != nil {
				b.Fatal(err)
			}
		}
		for range wave {
			r, err := f.Next(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if r.Err != nil || r.Status != http.StatusOK {
				failed++
			}
		}
		switch start + wave {
		case 100_000:
			b.StopTimer()
			at100k = heapNow(start + wave)
			b.StartTimer()
		case hosts:
			b.StopTimer()
			at1M = heapNow(start + wave)
			b.StartTimer()
		}
		clk.Advance(RobotsMaxAge + time.Hour)
	}
	b.StopTimer()
	st, _ := f.Stats(ctx)
	b.ReportMetric(at100k, "heap_100k_MiB")
	b.ReportMetric(at1M, "heap_1M_MiB")
	b.ReportMetric(at1M/at100k, "ratio")
	b.ReportMetric(float64(st.Hosts), "hosts_held")
	b.ReportMetric(float64(st.Requests), "requests")
	b.ReportMetric(float64(failed), "errors")
}
