package polite

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite/politetest"
)

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
