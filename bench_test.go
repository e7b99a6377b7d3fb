package polite

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/ed25519"
	crand "crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/politecrawler/polite/botauth"
	"github.com/politecrawler/polite/internal/clock"
	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/schedule"
	"github.com/politecrawler/polite/politetest"
	"go.etcd.io/bbolt"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

// BenchmarkPoliteness runs a real-time crawl of many farm hosts, each on
// its own address with a few pages, and measures from the server's side
// how close the fetcher comes to the limit the rules allow (R1.2):
//
//	efficiency = pages/s ÷ Σ_budgets 1/(rest + duration)
//
// Both sides are taken per budget in its steady state, from its first
// request to its last (robots.txt is each budget's first request):
// requests/s sums (n−1)/(last start − first start), and
// the limit sums (n−1)/Σ(duration + rest) over the same requests, the rest
// computed by R2 from the durations the farm saw. Overlaps and short gaps
// are the farm's audit. startup_s is how long the last budget waited for
// its first request (every budget is due at once at the start).
//
//	go test -run '^$' -bench Politeness -benchtime 1x .
func BenchmarkPoliteness(b *testing.B) {
	for _, hosts := range []int{200, 2000, 10000} {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			for range b.N {
				runPoliteness(b, hosts, 4, Config{})
			}
		})
	}
}

// BenchmarkSlowStore is BenchmarkPoliteness at 2,000 hosts with a Store
// that adds 50 ms to every call (a memory store behind a slow disk or a
// network): the Store is asked outside the scheduler's lock, and a page's
// copy is read while its budget rests, so the efficiency stays where it
// is without one (R1.2). store_calls counts the Store's calls.
//
//	go test -run '^$' -bench SlowStore -benchtime 1x .
func BenchmarkSlowStore(b *testing.B) {
	for range b.N {
		st := &slowStore{Store: NewMemoryStore(), delay: 50 * time.Millisecond}
		runPoliteness(b, 2000, 4, Config{Store: st})
		b.ReportMetric(float64(st.calls.Load()), "store_calls")
	}
}

// BenchmarkDiskStore is BenchmarkPoliteness at 2,000 hosts with the
// on-disk store of OpenStore, each of its saves committed with fsync: what
// the fetcher writes per response (a page, a robots.txt copy, its rest,
// R1.4) must not cost the rate the rules allow (R1.2).
//
//	go test -run '^$' -bench DiskStore -benchtime 1x .
func BenchmarkDiskStore(b *testing.B) {
	for range b.N {
		st, err := OpenStore(filepath.Join(b.TempDir(), "polite.db"))
		if err != nil {
			b.Fatal(err)
		}
		runPoliteness(b, 2000, 4, Config{Store: st})
		st.Close()
	}
}

// slowStore is a Store whose every call takes delay longer.
type slowStore struct {
	Store
	delay time.Duration
	calls atomic.Int64
}

func (s *slowStore) wait() { s.calls.Add(1); time.Sleep(s.delay) }

func (s *slowStore) LoadPage(u string) (StoredPage, bool, error) {
	s.wait()
	return s.Store.LoadPage(u)
}
func (s *slowStore) SavePage(p StoredPage) error { s.wait(); return s.Store.SavePage(p) }
func (s *slowStore) LoadRobots(o string) (StoredRobots, bool, error) {
	s.wait()
	return s.Store.LoadRobots(o)
}
func (s *slowStore) SaveRobots(r StoredRobots) error  { s.wait(); return s.Store.SaveRobots(r) }
func (s *slowStore) AddRefusal(r RefusalRecord) error { s.wait(); return s.Store.AddRefusal(r) }
func (s *slowStore) LoadHost(h string) (HostRecord, bool, error) {
	s.wait()
	return s.Store.LoadHost(h)
}
func (s *slowStore) SaveHost(h HostRecord) error     { s.wait(); return s.Store.SaveHost(h) }
func (s *slowStore) SaveRests(rs []RestRecord) error { s.wait(); return s.Store.SaveRests(rs) }
func (s *slowStore) LoadAddrRest(a netip.Addr) (RestRecord, bool, error) {
	s.wait()
	return s.Store.LoadAddrRest(a)
}
func (s *slowStore) LoadHostRest(h string) (RestRecord, bool, error) {
	s.wait()
	return s.Store.LoadHostRest(h)
}

func runPoliteness(b *testing.B, hosts, perHost int, cfg Config) {
	b.StopTimer()
	fp := startFarmProcess(b, hosts)
	defer fp.close()
	var urls []string
	for i := range hosts {
		for p := range perHost {
			urls = append(urls, fp.url(i, fmt.Sprintf("/p%d", p)))
		}
	}
	var log requestLog
	cfg.Resolver, cfg.AllowPrivateNetworks, cfg.Logger, cfg.OnRequest = fp.resolver(), true, quiet, log.add
	f, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.StartTimer()
	begin := time.Now()
	waits0, wait0 := schedule.RunnableWaits()
	failed := crawlAll(b, f, urls)
	b.StopTimer()
	f.Close()

	visits, err := fp.visits()
	if err != nil {
		b.Fatal(err)
	}
	reportPoliteness(b, visits, begin, failed)
	reportSchedWait(b, waits0, wait0)
	reportLoss(b, &log, visits)
}

// visitRates sums, over the farm's addresses, the requests/s each got in
// its steady state (from its first request to its last) and the limit the
// rules allow over the same requests, the rest computed by R2 from the
// durations the farm saw (see BenchmarkPoliteness). lastFirst is the
// latest first request of an address.
func visitRates(visits []politetest.Visit) (rate, limit float64, lastFirst time.Time) {
	byAddr := make(map[netip.Addr][]politetest.Visit)
	for _, v := range visits {
		byAddr[v.Addr] = append(byAddr[v.Addr], v)
	}
	for _, vs := range byAddr {
		if vs[0].Start.After(lastFirst) {
			lastFirst = vs[0].Start
		}
		if len(vs) < 2 {
			continue
		}
		var ideal time.Duration
		for _, v := range vs[:len(vs)-1] {
			d := v.End.Sub(v.Start)
			ideal += d + restAfter(pacing.Policy{Floor: MinRest, Factor: MinDurationFactor}, pacing.Outcome{Duration: d}).Wait
		}
		n := float64(len(vs) - 1)
		rate += n / vs[len(vs)-1].Start.Sub(vs[0].Start).Seconds()
		limit += n / ideal.Seconds()
	}
	return rate, limit, lastFirst
}

// crawlAll adds every URL, reads a Result for each, and counts those that
// failed.
func crawlAll(b *testing.B, f *Fetcher, urls []string) (failed int) {
	ctx := context.Background()
	for _, u := range urls {
		if err := f.Add(ctx, u); err != nil {
			b.Fatal(err)
		}
	}
	for range urls {
		r, err := f.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if r.Err != nil {
			failed++
		}
	}
	return failed
}

// reportPoliteness reports what the farm saw of a crawl begun at begin:
// the efficiency against the limit (visitRates), the audit's overlaps and
// short gaps, how long the last address waited for its first request, and
// the Results that failed.
func reportPoliteness(b *testing.B, visits []politetest.Visit, begin time.Time, failed int) {
	rep := politetest.ReportOn(visits, restRule(MinRest))
	rate, limit, lastFirst := visitRates(visits)
	b.ReportMetric(rate/limit, "efficiency")
	b.ReportMetric(rate, "requests/s")
	b.ReportMetric(limit, "limit/s")
	b.ReportMetric(float64(rep.Overlaps), "overlaps")
	b.ReportMetric(float64(len(rep.ShortGaps)), "short_gaps")
	b.ReportMetric(lastFirst.Sub(begin).Seconds(), "startup_s")
	b.ReportMetric(float64(failed), "errors")
}

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

// requestLog keeps the fetcher's own account of its requests
// (Config.OnRequest), to tell where a benchmark's efficiency goes.
type requestLog struct {
	mu     sync.Mutex
	events []RequestEvent
}

func (l *requestLog) add(e RequestEvent) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// reportLoss splits what a gap between two requests to an address took
// beyond the limit's (visitRates) into its parts, each a mean over the
// gaps, in milliseconds: late_ms, how long a budget waited past its rest
// for the fetcher to start it; overhead_ms, how much longer the fetcher
// measured a request than the farm saw it, its connection, its CPU wait
// and its body read; rest_extra_ms, how much longer the rest that
// followed from the fetcher's measure was than the one from the farm's
// (R2.2: five times the duration). late_first_gap_ms and
// late_later_gaps_ms split late_ms between the gap after robots.txt and
// those after a page. send_lag_*_ms (from the fetcher's start to the
// farm's) and recv_lag_*_ms (from the farm's end to the fetcher's) split
// overhead_ms, for each address's first request (robots.txt, on a new
// connection) and its later ones. Requests and visits are paired in order per
// address: one request at a time goes to each (R1.1); unpaired counts the
// requests of addresses where the counts differ.
func reportLoss(b *testing.B, log *requestLog, visits []politetest.Visit) {
	policy := pacing.Policy{Floor: MinRest, Factor: MinDurationFactor}
	events := make(map[netip.Addr][]RequestEvent)
	for _, e := range log.events {
		events[e.Addr] = append(events[e.Addr], e)
	}
	seen := make(map[netip.Addr][]politetest.Visit)
	for _, v := range visits {
		seen[v.Addr] = append(seen[v.Addr], v)
	}
	var late, overhead, restExtra time.Duration
	var sendLag, recvLag [2]time.Duration
	var lagged [2]int
	gaps, paired, unpaired := 0, 0, 0
	var lateBy [3]time.Duration
	var gapsBy [3]int
	for addr, es := range events {
		slices.SortFunc(es, func(a, b RequestEvent) int { return a.Started.Compare(b.Started) })
		vs := seen[addr]
		slices.SortFunc(vs, func(a, b politetest.Visit) int { return cmp.Compare(a.Start.UnixNano(), b.Start.UnixNano()) })
		if len(vs) != len(es) {
			unpaired += len(es)
			continue
		}
		for i, e := range es {
			farm := vs[i].End.Sub(vs[i].Start)
			overhead += e.Duration - farm
			paired++
			k := min(i, 1)
			sendLag[k] += vs[i].Start.Sub(e.Started)
			recvLag[k] += e.Started.Add(e.Duration).Sub(vs[i].End)
			lagged[k]++
			if i == 0 {
				continue
			}
			prev := es[i-1]
			late += e.Gap - prev.Rest.Wait
			lateBy[min(i, 2)] += e.Gap - prev.Rest.Wait
			gapsBy[min(i, 2)]++
			prevFarm := vs[i-1].End.Sub(vs[i-1].Start)
			restExtra += prev.Rest.Wait - restAfter(policy, pacing.Outcome{Duration: prevFarm}).Wait
			gaps++
		}
	}
	ms := func(d time.Duration, n int) float64 {
		if n == 0 {
			return 0
		}
		return d.Seconds() * 1000 / float64(n)
	}
	b.ReportMetric(ms(late, gaps), "late_ms")
	b.ReportMetric(ms(lateBy[1], gapsBy[1]), "late_first_gap_ms")
	b.ReportMetric(ms(lateBy[2], gapsBy[2]), "late_later_gaps_ms")
	b.ReportMetric(ms(overhead, paired), "overhead_ms")
	b.ReportMetric(ms(restExtra, gaps), "rest_extra_ms")
	b.ReportMetric(ms(sendLag[0], lagged[0]), "send_lag_first_ms")
	b.ReportMetric(ms(recvLag[0], lagged[0]), "recv_lag_first_ms")
	b.ReportMetric(ms(sendLag[1], lagged[1]), "send_lag_later_ms")
	b.ReportMetric(ms(recvLag[1], lagged[1]), "recv_lag_later_ms")
	b.ReportMetric(float64(unpaired), "unpaired")
}

// reportSchedWait reports sched_wait_us: how long, on average, the
// process's goroutines waited to run since waits0 and wait0 were read
// (schedule.RunnableWaits), the CPU's shortage the fetcher heeds.
func reportSchedWait(b *testing.B, waits0 uint64, wait0 float64) {
	waits1, wait1 := schedule.RunnableWaits()
	if waits1 > waits0 {
		b.ReportMetric((wait1-wait0)/float64(waits1-waits0)*1e6, "sched_wait_us")
	}
}

// A farm process serves a benchmark's hosts from a child process: the
// test binary again, running TestFarmProcessChild. Servers are not in the
// crawler's process in real life, and at 10,000 hosts one process could
// not hold both ends of every keep-alive connection within this machine's
// 20,000 file descriptors. The child serves every address through one
// listener (politetest.ShareOneListener) and keeps the audit; the parent asks
// for the visits at the end.

const farmProcessEnv = "POLITE_FARM_PROCESS_HOSTS"

// farmProcessIdleEnv, when set to a duration, makes the farm process
// close a keep-alive connection idle that long (politetest.SetIdleTimeout), as
// servers elsewhere do; unset, idle connections stay open.
const farmProcessIdleEnv = "POLITE_FARM_PROCESS_IDLE"

// farmProcessLatencyEnv, when set to a duration, makes every site of the
// farm process wait that long before it answers any request (Site.Latency),
// as servers elsewhere take; unset, they answer at once.
const farmProcessLatencyEnv = "POLITE_FARM_PROCESS_LATENCY"

// farmProcessSlowEnv, when set to "d/n", makes every n-th site of the farm
// process (b00000.test, then every n-th) wait d before it answers, in place
// of farmProcessLatencyEnv's wait.
const farmProcessSlowEnv = "POLITE_FARM_PROCESS_SLOW"

// farmHello is the child's first line: where its hosts are.
type farmHello struct {
	Port  int
	Names []string
	Addrs []netip.Addr
}

// TestFarmProcessChild is the farm process; it skips unless started by
// startFarmProcess. It prints a farmHello line, then answers each line on
// its standard input with a line of the visits so far (without their
// headers), and ends when its input does.
func TestFarmProcessChild(t *testing.T) {
	hosts, _ := strconv.Atoi(os.Getenv(farmProcessEnv))
	if hosts <= 0 {
		t.Skip("the farm process of a benchmark; started by startFarmProcess")
	}
	// Failures go to stderr, which the parent passes on: stdout is the
	// parent's to read.
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "farm process:", err)
		os.Exit(1)
	}
	fm := politetest.New(nil)
	defer fm.Close()
	if v := os.Getenv(farmProcessIdleEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fail(err)
		}
		fm.SetIdleTimeout(d)
	}
	var latency time.Duration
	if v := os.Getenv(farmProcessLatencyEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fail(err)
		}
		latency = d
	}
	var slow time.Duration
	slowEvery := 0
	if v := os.Getenv(farmProcessSlowEnv); v != "" {
		d, n, _ := strings.Cut(v, "/")
		var err error
		if slow, err = time.ParseDuration(d); err != nil {
			fail(err)
		}
		if slowEvery, err = strconv.Atoi(n); err != nil || slowEvery <= 0 {
			fail(fmt.Errorf("%s=%q: want a duration/n", farmProcessSlowEnv, v))
		}
	}
	if err := fm.ShareOneListener(); err != nil {
		fail(err)
	}
	var hello farmHello
	for i := range hosts {
		wait := latency
		if slowEvery > 0 && i%slowEvery == 0 {
			wait = slow
		}
		s, err := fm.AddSite(politetest.Site{Name: fmt.Sprintf("b%05d.test", i), Latency: wait})
		if err != nil {
			fail(err)
		}
		hello.Names, hello.Addrs = append(hello.Names, s.Name), append(hello.Addrs, s.Addr)
		hello.Port = fm.Port(s.Addr)
	}
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(hello); err != nil {
		fail(err)
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		vs := fm.Audit().Visits()
		for i := range vs {
			vs[i].Header = nil
		}
		if err := out.Encode(vs); err != nil {
			fail(err)
		}
	}
}

// farmProcess is the parent's handle on a farm process.
type farmProcess struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	stdout io.Reader
	out    *json.Decoder
	hello  farmHello
}

// startFarmProcess starts a farm process with hosts default sites, named
// b00000.test on, that keeps idle connections open.
func startFarmProcess(tb testing.TB, hosts int) *farmProcess {
	tb.Helper()
	return startFarmProcessWith(tb, hosts, farmOptions{})
}

// startFarmProcessIdle is startFarmProcess with a farm that closes a
// connection idle for idle; zero keeps idle connections open.
func startFarmProcessIdle(tb testing.TB, hosts int, idle time.Duration) *farmProcess {
	tb.Helper()
	return startFarmProcessWith(tb, hosts, farmOptions{idle: idle})
}

// farmOptions say how a farm process's servers behave; the zero value
// keeps idle connections open and answers at once.
type farmOptions struct {
	idle    time.Duration // close a connection idle this long; zero: never
	latency time.Duration // wait before answering each request
	// slow is what every slowEvery-th site waits instead of latency.
	slow      time.Duration
	slowEvery int
}

// startFarmProcessWith is startFarmProcess with a farm that behaves as
// opt says.
func startFarmProcessWith(tb testing.TB, hosts int, opt farmOptions) *farmProcess {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFarmProcessChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), farmProcessEnv+"="+strconv.Itoa(hosts))
	if opt.idle > 0 {
		cmd.Env = append(cmd.Env, farmProcessIdleEnv+"="+opt.idle.String())
	}
	if opt.latency > 0 {
		cmd.Env = append(cmd.Env, farmProcessLatencyEnv+"="+opt.latency.String())
	}
	if opt.slowEvery > 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%v/%d", farmProcessSlowEnv, opt.slow, opt.slowEvery))
	}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	p := &farmProcess{cmd: cmd, in: in, stdout: out, out: json.NewDecoder(out)}
	if err := p.out.Decode(&p.hello); err != nil || len(p.hello.Names) != hosts {
		p.close()
		tb.Fatalf("farm process: %d hosts, %v (its stderr, if any, is above)", len(p.hello.Names), err)
	}
	return p
}

// slowAddrs are the addresses of the slow sites, every n-th
// (farmOptions.slowEvery).
func (p *farmProcess) slowAddrs(n int) map[netip.Addr]bool {
	slow := make(map[netip.Addr]bool)
	for i := 0; i < len(p.hello.Addrs); i += n {
		slow[p.hello.Addrs[i]] = true
	}
	return slow
}

// url is the URL of path on host i.
func (p *farmProcess) url(i int, path string) string {
	return "http://" + net.JoinHostPort(p.hello.Names[i], strconv.Itoa(p.hello.Port)) + path
}

// resolver resolves the farm's host names.
func (p *farmProcess) resolver() *politetest.Resolver {
	names := make(map[string]netip.Addr, len(p.hello.Names))
	for i, n := range p.hello.Names {
		names[n] = p.hello.Addrs[i]
	}
	return politetest.NewResolver(names)
}

// visits asks for the visits so far, ordered by start.
func (p *farmProcess) visits() ([]politetest.Visit, error) {
	if _, err := io.WriteString(p.in, "visits\n"); err != nil {
		return nil, err
	}
	var vs []politetest.Visit
	err := p.out.Decode(&vs)
	return vs, err
}

// close ends the farm process and waits for it. What it still writes is
// read and dropped, so it cannot block on a full pipe.
func (p *farmProcess) close() {
	p.in.Close()
	go io.Copy(io.Discard, p.stdout)
	p.cmd.Wait()
}

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
	_, key, err := ed25519.GenerateKey(crand.Reader)
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
// pool when the fetcher had one, so that their figures compare with earlier runs. A
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

// BenchmarkPageWork is what a worker does with a page once its body is
// read: judge the response (R3.5) and read the content signals that apply
// (R7), which for HTML means its meta tags. It runs on the farm's small
// default page, which has no meta tag, and on the same page with the
// head most pages have (charset, viewport, description, robots). The
// links are read only when a caller asks (Result.Links): "links" is that
// cost, paid in the caller's goroutine. windows-1251 and shift_jis-meta
// are the page with the head in legacy encodings, declared in the header
// and in <meta> alone: their cost is the decoding's.
//
//	go test -run '^$' -bench PageWork -benchmem .
func BenchmarkPageWork(b *testing.B) {
	const raw = "http://c0001.test:8080/page"
	farmPage := "<!doctype html>\n<html><head><title>c0001.test/page</title></head><body>\n" +
		"<h1>c0001.test/page</h1>\n<a href=\"/\">/</a>\n<a href=\"/page/1\">/page/1</a>\n" +
		"<a href=\"/page/2\">/page/2</a>\n<a href=\"/page/3\">/page/3</a>\n</body></html>\n"
	withMeta := strings.Replace(farmPage, "<head>", "<head><meta charset=\"utf-8\">\n"+
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"+
		"<meta name=\"description\" content=\"A page of the farm, with the head most pages have.\">\n"+
		"<meta name=\"robots\" content=\"index, follow\">\n", 1)
	header := http.Header{
		"Content-Type": {"text/html; charset=utf-8"},
		"Date":         {time.Now().UTC().Format(http.TimeFormat)},
	}
	f, err := New(Config{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	u, err := url.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	t := newTask(raw)
	b.Run("classify", func(b *testing.B) {
		b.ReportAllocs()
		body := []byte(farmPage)
		for b.Loop() {
			classifyAt(http.StatusOK, header, body, time.Now())
		}
	})
	// The same pages in legacy encodings, with Cyrillic and Japanese text
	// in place of the farm's: decoded before they are read (R8.4).
	cyrillic, _ := charmap.Windows1251.NewEncoder().String(strings.ReplaceAll(withMeta, "c0001.test/page", "Новости дня"))
	sjis, _ := japanese.ShiftJIS.NewEncoder().String(strings.ReplaceAll(withMeta, "c0001.test/page", "今日のニュース"))
	// A page whose links are written as most sites write them: relative,
	// with queries, to other hosts; each goes through the URL parser.
	var mixed strings.Builder
	for i := range 25 {
		fmt.Fprintf(&mixed, "<a href=\"page/%d\">p</a><a href=\"?p=%d&amp;s=new\">q</a><a href=\"../about/%d.html\">a</a><a href=\"https://other.example/x/%d\">o</a>\n", i, i, i, i)
	}
	relative := strings.Replace(withMeta, "<a href=\"/\">/</a>", mixed.String(), 1)
	for _, page := range []struct{ name, body, contentType string }{
		{"farm-page", farmPage, "text/html; charset=utf-8"},
		{"relative-links", relative, "text/html; charset=utf-8"},
		{"page-with-meta", withMeta, "text/html; charset=utf-8"},
		{"windows-1251", cyrillic, "text/html; charset=windows-1251"},
		{"shift_jis-meta", strings.Replace(sjis, `charset="utf-8"`, `charset="shift_jis"`, 1), "text/html"},
	} {
		body := []byte(page.body)
		header := header.Clone()
		header.Set("Content-Type", page.contentType)
		b.Run("signals/"+page.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.readPage(t, &completion{}, u, header, body)
			}
		})
		b.Run("links/"+page.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c := &completion{}
				f.readPage(t, c, u, header, body)
				if n := len(pageLinks(c.page.get(), c.signals)); n < 4 {
					b.Fatalf("the page has 4 links or more, not %d", n)
				}
			}
		})
	}
}

// benchStorePages is how many pages each batch saves or loads: ~20 KB
// HTML bodies, each different, with a server's usual headers.
const benchStorePages = 10_000

// BenchmarkStore measures the on-disk store per page, on batches of
// benchStorePages distinct pages:
//
//   - write: save every page into a new store;
//   - write-64: the same, from 64 goroutines at once (saves take turns:
//     one fsync'd transaction each);
//   - write-unchanged: save every page again with its body unchanged (a
//     new Date and fetch time): a new version costs its headers, not its
//     body;
//   - read: LoadPage of every page, in random order;
//   - open: OpenStore (which checks every record) and Close.
//
// ns/page is the time per page; bytes_on_disk/page the file's size (or,
// for write-unchanged, its growth) over the pages saved; used_bytes/page
// the same counting only the pages in use (the file grows in steps of up
// to 16 MiB and keeps freed pages for reuse).
//
//	go test -run '^$' -bench Store -benchtime 1x .
func BenchmarkStore(b *testing.B) {
	pages := benchCorpus()
	tmp, err := os.MkdirTemp("", "polite-store-bench")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	// template is a store holding every page once, for the benchmarks
	// that start from a full store.
	template := sync.OnceValue(func() string {
		path := filepath.Join(tmp, "template.db")
		s := benchOpen(b, path)
		for _, p := range pages {
			if err := s.SavePage(p); err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
		return path
	})

	b.Run("write", func(b *testing.B) {
		var size, used int64
		for range b.N {
			b.StopTimer()
			path := filepath.Join(b.TempDir(), "store.db")
			s := benchOpen(b, path)
			b.StartTimer()
			for _, p := range pages {
				if err := s.SavePage(p); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			s.Close()
			size, used = storeSizes(b, path)
			b.StartTimer()
		}
		reportStore(b, len(pages), size, used)
	})

	b.Run("write-64", func(b *testing.B) {
		const writers = 64
		var size, used int64
		for range b.N {
			b.StopTimer()
			path := filepath.Join(b.TempDir(), "store.db")
			s := benchOpen(b, path)
			var wg sync.WaitGroup
			b.StartTimer()
			for w := range writers {
				wg.Go(func() {
					for i := w; i < len(pages); i += writers {
						if err := s.SavePage(pages[i]); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			s.Close()
			size, used = storeSizes(b, path)
			b.StartTimer()
		}
		reportStore(b, len(pages), size, used)
	})

	b.Run("write-unchanged", func(b *testing.B) {
		again := make([]StoredPage, len(pages))
		for i, p := range pages {
			p.Fetched = p.Fetched.Add(24 * time.Hour)
			p.Header = p.Header.Clone()
			p.Header.Set("Date", p.Fetched.Format(http.TimeFormat))
			p.Header.Set("Age", "0")
			again[i] = p
		}
		var size, used int64
		for range b.N {
			b.StopTimer()
			path := filepath.Join(b.TempDir(), "store.db")
			copyFile(b, template(), path)
			size0, used0 := storeSizes(b, path)
			s := benchOpen(b, path)
			b.StartTimer()
			for _, p := range again {
				if err := s.SavePage(p); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			s.Close()
			size, used = storeSizes(b, path)
			size, used = size-size0, used-used0
			b.StartTimer()
		}
		reportStore(b, len(pages), size, used)
	})

	b.Run("read", func(b *testing.B) {
		path := template()
		s := benchOpen(b, path)
		defer s.Close()
		order := rand.New(rand.NewPCG(1, 2)).Perm(len(pages))
		b.ResetTimer()
		for range b.N {
			for _, i := range order {
				p, ok, err := s.LoadPage(pages[i].URL)
				if err != nil || !ok || len(p.Body) != len(pages[i].Body) {
					b.Fatalf("LoadPage(%s) = %v, %v", pages[i].URL, ok, err)
				}
			}
		}
		b.StopTimer()
		s.Close()
		size, used := storeSizes(b, path)
		reportStore(b, len(pages), size, used)
	})

	b.Run("open", func(b *testing.B) {
		path := template()
		b.ResetTimer()
		for range b.N {
			s := benchOpen(b, path)
			s.Close()
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/open")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pages)), "ns/page")
	})
}

func benchOpen(b *testing.B, path string) Store {
	s, err := OpenStore(path)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func reportStore(b *testing.B, pages int, size, used int64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pages), "ns/page")
	b.ReportMetric(float64(size)/float64(pages), "bytes_on_disk/page")
	b.ReportMetric(float64(used)/float64(pages), "used_bytes/page")
}

// storeSizes returns a closed store file's size and the bytes of its
// pages in use (bbolt's high-water mark less the free pages).
func storeSizes(b *testing.B, path string) (size, used int64) {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	db, err := bbolt.Open(path, 0, &bbolt.Options{ReadOnly: true, PreLoadFreelist: true, Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bbolt.Tx) error {
		used = tx.Size()
		return nil
	})
	used -= int64(db.Stats().FreePageN) * int64(db.Info().PageSize)
	return fi.Size(), used
}

func copyFile(b *testing.B, from, to string) {
	src, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		b.Fatal(err)
	}
	if err := dst.Sync(); err != nil { // no writeback left to slow the timed part
		b.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
}

// benchCorpus makes benchStorePages pages once: HTML of about 20 KB
// (head, navigation, an article of paragraphs, footer), each different,
// with headers as a typical server sends them.
var benchCorpus = sync.OnceValue(func() []StoredPage {
	words := []string{"the", "crawler", "waits", "between", "requests", "politely", "server", "page", "index",
		"robots", "archive", "history", "document", "network", "library", "garden", "river", "mountain", "report",
		"season", "market", "council", "weather", "research", "students", "village", "museum", "concert", "energy"}
	rng := rand.New(rand.NewPCG(7, 11))
	start := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	pages := make([]StoredPage, benchStorePages)
	var buf bytes.Buffer
	for i := range pages {
		site := fmt.Sprintf("site%d.example", i%500)
		url := fmt.Sprintf("https://%s/articles/%d/%s-%s", site, i, words[rng.IntN(len(words))], words[rng.IntN(len(words))])
		buf.Reset()
		fmt.Fprintf(&buf, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Article %d — %s</title>\n", i, site)
		fmt.Fprintf(&buf, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<link rel=\"stylesheet\" href=\"/static/site.%x.css\">\n<script src=\"/static/app.%x.js\" defer></script>\n</head>\n<body>\n<nav><ul>\n", rng.Uint32(), rng.Uint32())
		for j := range 40 {
			fmt.Fprintf(&buf, "<li><a href=\"/section/%d/%s\">%s</a></li>\n", j, words[rng.IntN(len(words))], words[rng.IntN(len(words))])
		}
		buf.WriteString("</ul></nav>\n<main><article>\n")
		for buf.Len() < 19_000+rng.IntN(2_000) {
			buf.WriteString("<p>")
			for range 40 + rng.IntN(40) {
				buf.WriteString(words[rng.IntN(len(words))])
				buf.WriteByte(' ')
			}
			buf.WriteString("</p>\n")
		}
		buf.WriteString("</article></main>\n<footer><p>&copy; 2026 " + site + "</p></footer>\n</body>\n</html>\n")
		body := bytes.Clone(buf.Bytes())
		fetched := start.Add(time.Duration(i) * 3 * time.Second)
		pages[i] = StoredPage{
			URL:    url,
			Status: 200,
			Header: http.Header{
				"Date":                      {fetched.Format(http.TimeFormat)},
				"Content-Type":              {"text/html; charset=utf-8"},
				"Content-Length":            {strconv.Itoa(len(body))},
				"Etag":                      {fmt.Sprintf(`W/"%x-%x"`, len(body), rng.Uint64())},
				"Last-Modified":             {fetched.Add(-time.Duration(rng.IntN(1000)) * time.Hour).Format(http.TimeFormat)},
				"Server":                    {"nginx/1.25.3"},
				"Cache-Control":             {"public, max-age=600"},
				"Vary":                      {"Accept-Encoding"},
				"Strict-Transport-Security": {"max-age=31536000; includeSubDomains"},
				"X-Content-Type-Options":    {"nosniff"},
				"X-Frame-Options":           {"SAMEORIGIN"},
				"Content-Language":          {"en"},
				"Accept-Ranges":             {"bytes"},
				"Age":                       {strconv.Itoa(rng.IntN(600))},
				"Link":                      {"<https://" + site + "/static/site.css>; rel=preload; as=style"},
			},
			Body:    body,
			Fetched: fetched,
		}
	}
	return pages
})
