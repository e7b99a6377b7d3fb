package polite

import (
	"context"
	"fmt"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/clock"
)

// spreadResolver gives every host name an address of its own in
// 127.0.0.0/8, at once. Nothing is dialled in the memory tests.
type spreadResolver struct{}

func (spreadResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var n uint32
	fmt.Sscanf(host, "h%d.test", &n)
	n++
	return []netip.Addr{netip.AddrFrom4([4]byte{127, byte(n >> 16), byte(n >> 8), byte(n)})}, nil
}

// queuedHeap queues urlsPerHost URLs on each of hosts hosts, with requests
// held, and returns the heap in use and the URLs' own bytes.
func queuedHeap(t testing.TB, hosts, urlsPerHost int) (heap, urlBytes uint64) {
	f, err := newFetcher(Config{Resolver: spreadResolver{}, AllowPrivateNetworks: true, Logger: quiet},
		hooks{clock: clock.Real{}, holdFetches: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	for h := range hosts {
		for i := range urlsPerHost {
			u := fmt.Sprintf("http://h%d.test/section/page-%d.html", h, i)
			urlBytes += uint64(len(u))
			if err := f.Add(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Wait until every URL sits in a queue (Stats comes from the
	// scheduler, after it has taken every Add).
	for {
		st, err := f.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Every host resolved, its robots.txt request queued first.
		if st.Queued == hosts*urlsPerHost && st.Hosts == hosts && st.Resting == hosts {
			break
		}
		// Lookups run on the workers; a Stats call walks every host, so
		// ask again only now and then. (No rule of R2 is waited for here.)
		time.Sleep(20 * time.Millisecond)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	heap = m.HeapAlloc
	runtime.KeepAlive(f)
	return heap, urlBytes
}

// BenchmarkMemoryPerHostAndURL measures what the fetcher holds per idle
// host (resolved, its budget and robots.txt request waiting) and per
// queued URL beyond the URL's own bytes, at 100,000 hosts with 10 URLs
// each, requests held. The targets are 1 KiB and 100 B (R1.2).
//
//	go test -run '^$' -bench MemoryPerHostAndURL -benchtime 1x .
func BenchmarkMemoryPerHostAndURL(b *testing.B) {
	const hosts = 100_000
	for range b.N {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		one, oneBytes := queuedHeap(b, hosts, 1)
		ten, tenBytes := queuedHeap(b, hosts, 10)
		perURL := (float64(ten) - float64(one) - float64(tenBytes-oneBytes)) / float64(hosts*9)
		perHost := (float64(one)-float64(base.HeapAlloc)-float64(oneBytes))/float64(hosts) - perURL
		b.ReportMetric(perHost, "B/idle_host")
		b.ReportMetric(perURL, "B/queued_URL")
		b.ReportMetric(float64(tenBytes)/float64(hosts*10), "URL_bytes")
	}
}
