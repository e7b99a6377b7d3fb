package polite

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"syscall"
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

// BenchmarkRSS measures the memory of the fetcher's process, as the OS
// sees it, through a crawl of 10,000 farm hosts with 10 pages each
// (robots.txt, a 404, then the pages: 11 requests per host, 3 s apart),
// with MaxInFlight 1024 and the default Config otherwise. The farm runs
// in a child process and closes a connection idle for 1 s, as many
// servers do. The reader keeps nothing: every Result is read and dropped.
//
// peak_rss_MiB is the process's VmHWM over the run, its high-water mark
// reset just before the Fetcher is made (clear_refs 5); base_rss_MiB is
// the RSS at that moment, what the test binary holds of its own. The rest
// is sampled every 25 ms: the Go heap in use at its peak (heap_inuse:
// objects, live or not yet swept, and the unused space of their spans),
// the live heap at its peak (as of a garbage collection), goroutines at
// their peak, open file descriptors (the connections, nearly all) at
// their peak over a count a second, and
// Go's own account of its memory at the sample of highest RSS, by class:
// heap in use, heap free (idle, not yet returned to the OS), stacks,
// runtime metadata and other. requests/s and efficiency are
// BenchmarkPoliteness's, from the farm's audit; cpu_s and farm_cpu_s are
// the user and system time of this process and of the farm's over the
// run: together near the machine's 2 cores × run_s, the run is short of
// CPU, and requests wait for it (with their connections and goroutines).
// others_cpu_s is the CPU the rest of the machine used meanwhile: a run
// that shared the machine with more than a few seconds of other work is
// not comparable with one that did not.
//
// It runs in real time, about 35 s a run:
//
//	go test -run '^$' -bench RSS -benchtime 1x -count 3 .
//
// With POLITE_RSS_PROFILE set to a directory, each time the live heap
// grows by 1 MiB past the last profile the run writes a heap profile
// (heap.pb.gz) and a goroutine profile (goroutine.pb.gz) there, each
// overwriting the last: at the end they are from the live heap's peak.
// The heap profile samples every 16 KiB allocated, not every 512 KiB.
// The profiles cost memory and time of their own; measure without them.
//
//	go tool pprof -top -sample_index=inuse_space polite.test heap.pb.gz
//	go tool pprof -top polite.test goroutine.pb.gz
func BenchmarkRSS(b *testing.B) {
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		b.Skip("needs /proc/self/clear_refs:", err)
	}
	for range b.N {
		runRSS(b, 10000, 10, 1024)
	}
}

func runRSS(b *testing.B, hosts, perHost, inFlight int) {
	b.StopTimer()
	fp := startFarmProcessIdle(b, hosts, time.Second)
	defer fp.close()
	res := fp.resolver()
	ctx := context.Background()

	// What came before (the farm's hello, earlier runs) is collected and
	// returned, so that the high-water mark starts from the test's own.
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
		// A finer sample than the default 512 KiB, for what the run
		// allocates from here on.
		defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
		runtime.MemProfileRate = 16 << 10
	}
	s := startMemorySampler(b, st, profileDir)

	cpu0, farm0, busy0 := selfCPU(), processCPU(fp.cmd.Process.Pid), machineCPU()
	b.StartTimer()
	begin := time.Now()
	f, err := New(Config{Resolver: res, AllowPrivateNetworks: true, Logger: quiet, MaxInFlight: inFlight})
	if err != nil {
		b.Fatal(err)
	}
	for i := range hosts {
		for p := range perHost {
			if err := f.Add(ctx, fp.url(i, "/p"+strconv.Itoa(p))); err != nil {
				b.Fatal(err)
			}
		}
	}
	failed := 0
	for range hosts * perHost {
		r, err := f.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if r.Err != nil {
			failed++
		}
	}
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
	rate, limit, _ := visitRates(visits)
	const mib = 1 << 20
	b.ReportMetric(float64(hwm)/mib, "peak_rss_MiB")
	b.ReportMetric(float64(base)/mib, "base_rss_MiB")
	b.ReportMetric(float64(peak.heapInuse)/mib, "heap_inuse_peak_MiB")
	b.ReportMetric(float64(peak.heapLive)/mib, "heap_live_peak_MiB")
	b.ReportMetric(float64(peak.goroutines), "goroutines_peak")
	b.ReportMetric(float64(peak.fds), "fds_peak")
	b.ReportMetric(rate, "requests/s")
	b.ReportMetric(rate/limit, "efficiency")
	b.ReportMetric(float64(failed), "errors")
	b.ReportMetric(float64(peak.gcs), "gc_cycles")
	b.ReportMetric(elapsed.Seconds(), "run_s")
	b.ReportMetric(cpu.Seconds(), "cpu_s")
	b.ReportMetric(farmCPU.Seconds(), "farm_cpu_s")
	b.ReportMetric(others.Seconds(), "others_cpu_s")
	// Go's account at the sample of highest RSS.
	at := peak.atRSS
	b.ReportMetric(float64(at.rss)/mib, "at_peak:rss_MiB")
	b.ReportMetric(float64(at.heapInuse)/mib, "at_peak:heap_inuse_MiB")
	b.ReportMetric(float64(at.heapFree)/mib, "at_peak:heap_free_MiB")
	b.ReportMetric(float64(at.stacks)/mib, "at_peak:stacks_MiB")
	b.ReportMetric(float64(at.runtime)/mib, "at_peak:runtime_MiB")
	b.ReportMetric(float64(at.goroutines), "at_peak:goroutines")
	b.ReportMetric(float64(at.fds), "at_peak:fds")
	if testing.Verbose() {
		b.Logf("peak RSS %.1f MiB at %.1f s: heap in use %.1f (objects %.1f, span space unused %.1f), heap free not returned %.1f, stacks %.1f, runtime %.1f, released %.1f; %d goroutines, %d fds; live heap peak %.1f MiB",
			float64(hwm)/mib, at.t.Sub(begin).Seconds(), float64(at.heapInuse)/mib, float64(at.objects)/mib,
			float64(at.heapInuse-at.objects)/mib, float64(at.heapFree)/mib, float64(at.stacks)/mib,
			float64(at.runtime)/mib, float64(at.released)/mib, at.goroutines, at.fds, float64(peak.heapLive)/mib)
		for _, m := range peak.timeline {
			b.Logf("%5.1f s: rss %6.1f  heap in use %6.1f  live %6.1f  free %6.1f  released %6.1f  stacks %5.1f  runtime %5.1f MiB; %5d goroutines, %5d fds",
				m.t.Sub(begin).Seconds(), float64(m.rss)/mib, float64(m.heapInuse)/mib, float64(m.heapLive)/mib,
				float64(m.heapFree)/mib, float64(m.released)/mib, float64(m.stacks)/mib, float64(m.runtime)/mib, m.goroutines, m.fds)
		}
	}
}

// memSample is one reading of the process's memory.
type memSample struct {
	t          time.Time
	rss        int64 // VmRSS
	objects    int64 // heap objects, live or not yet freed
	heapInuse  int64 // objects and the unused space of their spans
	heapFree   int64 // heap pages free, not returned to the OS
	released   int64 // heap pages returned to the OS
	stacks     int64 // goroutine stacks (and the OS threads' stacks)
	runtime    int64 // runtime metadata, profiling buckets, other
	heapLive   int64 // live heap as of the last garbage collection
	goroutines int64
	fds        int
}

// memPeaks are the peaks a sampler saw.
type memPeaks struct {
	heapInuse, heapLive, goroutines int64
	fds                             int
	gcs                             uint64
	atRSS                           memSample // the sample of highest RSS
	// atGoroutines is the sample with the most goroutines: near the
	// most requests in flight (BenchmarkLatency).
	atGoroutines memSample
	// timeline holds a sample a second, for -v.
	timeline []memSample
}

type memorySampler struct {
	done  chan struct{}
	wg    sync.WaitGroup
	peaks memPeaks
}

var sampledMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/memory/classes/os-stacks:bytes",
	"/memory/classes/metadata/mcache/free:bytes",
	"/memory/classes/metadata/mcache/inuse:bytes",
	"/memory/classes/metadata/mspan/free:bytes",
	"/memory/classes/metadata/mspan/inuse:bytes",
	"/memory/classes/metadata/other:bytes",
	"/memory/classes/profiling/buckets:bytes",
	"/memory/classes/other:bytes",
	"/gc/heap/live:bytes",
	"/sched/goroutines:goroutines",
	"/gc/cycles/total:gc-cycles",
}

// startMemorySampler samples every 25 ms until stop. With profileDir set,
// it writes heap and goroutine profiles there as the live heap grows.
func startMemorySampler(b *testing.B, st *procStatus, profileDir string) *memorySampler {
	s := &memorySampler{done: make(chan struct{})}
	ms := make([]metrics.Sample, len(sampledMetrics))
	for i, n := range sampledMetrics {
		ms[i].Name = n
	}
	read := func() (memSample, uint64) {
		metrics.Read(ms)
		v := func(i int) int64 { return int64(ms[i].Value.Uint64()) }
		return memSample{
			t:          time.Now(),
			rss:        st.field("VmRSS:"),
			objects:    v(0),
			heapInuse:  v(0) + v(1),
			heapFree:   v(2),
			released:   v(3),
			stacks:     v(4) + v(5),
			runtime:    v(6) + v(7) + v(8) + v(9) + v(10) + v(11) + v(12),
			heapLive:   v(13),
			goroutines: v(14),
		}, ms[15].Value.Uint64()
	}
	_, gc0 := read()
	var profiled int64
	lastFDs := 0
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for {
			m, gcs := read()
			p := &s.peaks
			// Counting 5,000 descriptors costs the kernel about 5 ms: done
			// every 25 ms it took an eighth of the run's CPU.
			if n := len(p.timeline); n == 0 || m.t.Sub(p.timeline[n-1].t) >= time.Second {
				lastFDs = countFDs()
			}
			m.fds = lastFDs // at most a second old
			p.heapInuse = max(p.heapInuse, m.heapInuse)
			p.goroutines = max(p.goroutines, m.goroutines)
			p.fds = max(p.fds, m.fds)
			p.gcs = gcs - gc0
			if m.rss > p.atRSS.rss {
				p.atRSS = m
			}
			if m.goroutines > p.atGoroutines.goroutines {
				p.atGoroutines = m
			}
			if n := len(p.timeline); n == 0 || m.t.Sub(p.timeline[n-1].t) >= time.Second {
				p.timeline = append(p.timeline, m)
			}
			if m.heapLive > p.heapLive {
				p.heapLive = m.heapLive
				if profileDir != "" && m.heapLive > profiled+1<<20 {
					profiled = m.heapLive
					writeProfiles(b, profileDir)
				}
			}
			select {
			case <-s.done:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *memorySampler) stop() memPeaks {
	close(s.done)
	s.wg.Wait()
	return s.peaks
}

// writeProfiles writes heap.pb.gz and goroutine.pb.gz in dir.
func writeProfiles(b *testing.B, dir string) {
	for _, name := range []string{"heap", "goroutine"} {
		var buf bytes.Buffer
		if err := pprof.Lookup(name).WriteTo(&buf, 0); err != nil {
			b.Error(err)
			return
		}
		if err := os.WriteFile(filepath.Join(dir, name+".pb.gz"), buf.Bytes(), 0o644); err != nil {
			b.Error(err)
			return
		}
	}
}

// procStatus reads fields of /proc/self/status into one buffer, without
// allocating.
type procStatus struct {
	f   *os.File
	mu  sync.Mutex
	buf []byte
}

func openProcStatus() (*procStatus, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return nil, err
	}
	return &procStatus{f: f, buf: make([]byte, 8<<10)}, nil
}

func (p *procStatus) close() { p.f.Close() }

// field returns a "kB" field of the status in bytes, -1 if unreadable.
func (p *procStatus) field(name string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, err := p.f.ReadAt(p.buf, 0)
	if n == 0 && err != nil {
		return -1
	}
	s := p.buf[:n]
	i := bytes.Index(s, []byte(name))
	if i < 0 {
		return -1
	}
	s = s[i+len(name):]
	if j := bytes.IndexByte(s, '\n'); j >= 0 {
		s = s[:j]
	}
	s = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(s), []byte("kB")))
	var kb int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		kb = kb*10 + int64(c-'0')
	}
	return kb << 10
}

// direntBuf is countFDs's buffer; only the sampler calls it.
var direntBuf = make([]byte, 64<<10)

// countFDs counts the process's open file descriptors without allocating
// a name for each.
func countFDs() int {
	fd, err := syscall.Open("/proc/self/fd", syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return -1
	}
	defer syscall.Close(fd)
	count := 0
	for {
		n, err := syscall.ReadDirent(fd, direntBuf)
		if err != nil || n <= 0 {
			break
		}
		for off := 0; off < n; {
			// struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name.
			reclen := int(direntBuf[off+16]) | int(direntBuf[off+17])<<8
			if name := direntBuf[off+19]; name != '.' {
				count++
			}
			off += reclen
		}
	}
	return count - 1 // the descriptor reading the directory
}

// selfCPU is the process's user and system time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU is the user and system time so far of process pid, from
// /proc/pid/stat (in ticks of 1/100 s, USER_HZ on Linux).
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command may hold spaces; the fields after it are space-separated:
	// state is the 3rd field, utime the 14th, stime the 15th.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(string(f[11]), 10, 64)
	st, _ := strconv.ParseInt(string(f[12]), 10, 64)
	return time.Duration(ut+st) * (time.Second / 100)
}

// machineCPU is the CPU time all processes have used so far, from the
// first line of /proc/stat (in ticks of 1/100 s): user, nice, system,
// irq, softirq and steal, not idle and iowait.
func machineCPU() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 9 || string(f[0]) != "cpu" {
		return 0
	}
	var ticks int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, _ := strconv.ParseInt(string(f[i]), 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100)
}

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
