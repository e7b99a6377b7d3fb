package render_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
	"github.com/politecrawler/polite/render"
)

// BenchmarkRender renders the shop page of the tests (its list from one
// fetch()), a host of its own for each op, with the default Config and
// Options. It reports the render's wall time, that time less the rest
// its fetch() waited (R2.1, 3 s), the CPU of the test process (the farm
// and the Fetcher included) and of the browser (its start included, over
// the ops), and the browser's peak memory over one more render: the sum
// of its processes' PSS, sampled every 100 ms (apart from the ops, since
// reading smaps_rollup costs more CPU than a render).
//
//	go test -run '^$' -bench Render -benchtime 5x ./render
func BenchmarkRender(b *testing.B) {
	if _, err := osLookPath("chromium"); err != nil {
		b.Skip("chromium not found")
	}
	farm := politetest.Start(b)
	f, err := polite.New(polite.Config{Resolver: farm.Resolver(), AllowPrivateNetworks: true, Types: render.Types})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var self0, kids0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids0)
	r, err := render.New(f, render.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var wall, rests time.Duration
	b.ResetTimer()
	for i := range b.N {
		w, rest := renderShop(b, farm, f, r, i)
		wall, rests = wall+w, rests+rest
	}
	b.StopTimer()
	var self1, kids1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	peak := samplePSS()
	renderShop(b, farm, f, r, b.N)
	peakPSS := peak()
	r.Close()
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids1)
	n := float64(b.N)
	b.ReportMetric(wall.Seconds()/n, "wall_s/render")
	b.ReportMetric((wall-rests).Seconds()/n, "wall_less_rest_s/render")
	b.ReportMetric(cpu(self1, self0).Seconds()*1000/n, "go_cpu_ms/render")
	b.ReportMetric(cpu(kids1, kids0).Seconds()*1000/(n+1), "browser_cpu_ms/render")
	b.ReportMetric(float64(peakPSS)/(1<<20), "browser_peak_pss_MiB")
}

// renderShop fetches and renders the shop page on a host of its own, the
// i-th, and returns the render's wall time and the rest it waited.
func renderShop(b *testing.B, farm *politetest.Farm, f *polite.Fetcher, r *render.Renderer, i int) (wall, rest time.Duration) {
	ctx := context.Background()
	{
		name := fmt.Sprintf("shop%d.test", i)
		if _, err := farm.AddSite(politetest.Site{Name: name, Pages: map[string]politetest.Page{
			"/":               {Body: []byte(shop), Header: html},
			"/api/items.json": {Body: []byte(`[{"name":"teapot"}]`), Header: http.Header{"Content-Type": {"application/json"}}},
		}}); err != nil {
			b.Fatal(err)
		}
		page, err := f.Fetch(ctx, farm.URL(name, "/"))
		if err != nil || page.Err != nil {
			b.Fatal(err, page.Err)
		}
		start := time.Now()
		got, err := r.Render(ctx, page)
		if err != nil {
			b.Fatal(err)
		}
		wall = time.Since(start)
		if !strings.Contains(got.Text, "teapot") {
			b.Fatalf("rendered %q", got.Text)
		}
		// The fetch() waited out the rest after the page, from its end.
		rest = page.Started.Add(page.Duration).Add(page.Rest.Wait).Sub(start)
	}
	return wall, rest
}

func cpu(a, b syscall.Rusage) time.Duration {
	t := func(r syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return t(a) - t(b)
}

// samplePSS samples, every 100 ms until the returned func is called, the
// PSS of this process's descendants (the browser), and returns the peak.
func samplePSS() func() int64 {
	var mu sync.Mutex
	var peak int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			v := descendantsPSS()
			mu.Lock()
			peak = max(peak, v)
			mu.Unlock()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// descendantsPSS sums the PSS, in bytes, of every descendant process.
func descendantsPSS() int64 {
	parents := map[int]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		raw, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
		ppid, _ := strconv.Atoi(f[1])
		parents[pid] = ppid
	}
	me := os.Getpid()
	var sum int64
	for pid := range parents {
		p := parents[pid]
		for p != 0 && p != me {
			p = parents[p]
		}
		if p != me {
			continue
		}
		fh, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
		if err != nil {
			continue
		}
		s := bufio.NewScanner(fh)
		for s.Scan() {
			if rest, ok := strings.CutPrefix(s.Text(), "Pss:"); ok {
				kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
				sum += kb << 10
			}
		}
		fh.Close()
	}
	return sum
}
