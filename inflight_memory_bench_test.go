//go:build linux

package polite

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// BenchmarkInFlightMemory measures what a request in flight costs in
// memory, beyond its body, by difference: 2,000 hosts whose server takes
// 60 s to answer, one page each, fetched once with MaxInFlight 200 and once
// with 2,000. Once that many requests are in flight (the farm holds each
// one), the process's heap in use, goroutine stacks, goroutines and RSS
// are read after a collection; the difference between the two runs over
// the 1,800 requests more in flight is a request's share: its goroutine
// and its connection's two (net/http's read and write loops), their
// stacks, the connection's buffers, and the request and response. Every
// host, its robots.txt and its queue are in both runs, so they cancel.
//
//	go test -run '^$' -bench InFlightMemory -benchtime 1x .
func BenchmarkInFlightMemory(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc/self/status:", err)
	}
	const hosts, few = 2000, 200
	for range b.N {
		lo := inFlightHeld(b, hosts, few)
		hi := inFlightHeld(b, hosts, hosts)
		n := float64(hosts - few)
		const kib = 1024
		b.ReportMetric((float64(hi.heapInuse)-float64(lo.heapInuse))/n/kib, "heap_KiB/request")
		b.ReportMetric((float64(hi.stacks)-float64(lo.stacks))/n/kib, "stacks_KiB/request")
		b.ReportMetric((float64(hi.rss)-float64(lo.rss))/n/kib, "rss_KiB/request")
		b.ReportMetric(float64(hi.goroutines-lo.goroutines)/n, "goroutines/request")
		b.ReportMetric((float64(hi.stacks)-float64(lo.stacks))/float64(hi.goroutines-lo.goroutines)/kib, "KiB/goroutine")
	}
}

// heldMemory is what the process holds with requests held in flight.
type heldMemory struct {
	heapInuse, stacks, rss uint64
	goroutines             int
}

// inFlightHeld crawls one page on each of hosts hosts whose server takes a
// minute to answer, with MaxInFlight limit, and reads the process's
// memory once limit requests are in flight.
func inFlightHeld(b *testing.B, hosts, limit int) heldMemory {
	b.Helper()
	fp := startFarmProcessWith(b, hosts, farmOptions{latency: time.Minute})
	defer fp.close()
	st, err := openProcStatus()
	if err != nil {
		b.Fatal(err)
	}
	defer st.close()
	// robots.txt waits a minute too: the requests held are robots.txt
	// requests, one per host, as a page's would be.
	f, err := New(Config{Resolver: fp.resolver(), AllowPrivateNetworks: true, Logger: quiet, MaxInFlight: limit})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	for i := range hosts {
		if err := f.Add(ctx, fp.url(i, "/page")); err != nil {
			b.Fatal(err)
		}
	}
	// The farm holds each request a minute: well before it ends, limit
	// are under way there.
	for start := time.Now(); inFlightAtFarm(b, fp) < limit; {
		if time.Since(start) > 30*time.Second {
			b.Fatalf("the farm holds %d requests after 30 s, want %d", inFlightAtFarm(b, fp), limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return heldMemory{heapInuse: ms.HeapInuse, stacks: ms.StackInuse, rss: uint64(st.field("VmRSS:")), goroutines: runtime.NumGoroutine()}
}

// inFlightAtFarm counts the visits the farm has under way.
func inFlightAtFarm(b *testing.B, fp *farmProcess) int {
	visits, err := fp.visits()
	if err != nil {
		b.Fatal(fmt.Errorf("farm visits: %w", err))
	}
	n := 0
	for _, v := range visits {
		if v.End.IsZero() {
			n++
		}
	}
	return n
}
