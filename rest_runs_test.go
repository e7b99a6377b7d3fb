package polite_test

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// A rest outlives the run that earned it (R1.4): a Fetcher on a Store
// that an earlier Fetcher used waits out what is left of its rests, as the
// farm's audit sees it.

// R1.4, R1.3, R1.1: two Fetchers on one Store, the second started a second
// after the first ended. Its first request to each address and host comes
// a full rest (3 s, R2.1) after the first one's last response there ended,
// not a second: to the same host, whose robots.txt copy is kept so that
// its page is that first request; to another host on the same address,
// whose first request is its robots.txt (hosts on an address share its
// rest); and to a host that resolves to another address since, which
// brings its rest along. Before, each came a second after.
func TestRestOutlivesTheFetcher(t *testing.T) {
	for _, kind := range []string{"memory", "disk"} {
		t.Run(kind, func(t *testing.T) {
			r := newFarmRig(t)
			if err := r.farm.ShareOneListener(); err != nil { // one port: a moved host keeps its origin
				t.Fatal(err)
			}
			kept := r.site(politetest.Site{Name: "kept.test"})
			first, err := r.farm.AddSite(politetest.Site{Name: "first.test"})
			if err != nil {
				t.Fatal(err)
			}
			second := r.site(politetest.Site{Name: "second.test", Addr: first.Addr})
			moving := r.site(politetest.Site{Name: "moving.test"})
			elsewhere, err := r.farm.NewAddr()
			if err != nil {
				t.Fatal(err)
			}

			path := filepath.Join(t.TempDir(), "polite.db")
			st := polite.NewMemoryStore()
			if kind == "disk" {
				st = openTestStore(t, path)
			}
			r.start(polite.Config{Store: st})
			r.add(r.url(kept, "/a"), r.url(first.Name, "/a"), r.url(moving, "/a"))
			r.results(3)
			r.f.Close()
			run1 := len(r.farm.Audit().Visits())
			if kind == "disk" { // the next run is a new process's: the file alone holds the rests
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
				st = openTestStore(t, path)
			}
			defer st.Close()

			r.clk.Advance(time.Second)
			r.farm.MapName(moving, elsewhere) // no site there: a 421, enough to see when it is asked
			r.start(polite.Config{Store: st})
			r.add(r.url(kept, "/b"), r.url(second, "/b"), r.url(moving, "/b"))
			r.results(3)

			vs := r.farm.Audit().Visits()
			lastEnd := func(match func(politetest.Visit) bool) (time.Time, bool) {
				var end time.Time
				for _, v := range vs[:run1] {
					if match(v) && v.End.After(end) {
						end = v.End
					}
				}
				return end, !end.IsZero()
			}
			firstOf := func(match func(politetest.Visit) bool) (politetest.Visit, bool) {
				for _, v := range vs[run1:] {
					if match(v) {
						return v, true
					}
				}
				return politetest.Visit{}, false
			}
			onHost := func(h string) func(politetest.Visit) bool {
				return func(v politetest.Visit) bool { return v.Host == h }
			}
			onAddr := func(a netip.Addr) func(politetest.Visit) bool {
				return func(v politetest.Visit) bool { return v.Addr == a }
			}
			for _, c := range []struct {
				what        string
				run1, run2  func(politetest.Visit) bool
				wantInRun2  string // the path of the first request of run 2
				wantAddress netip.Addr
			}{
				{"the same host", onHost(kept), onHost(kept), "/b", netip.Addr{}},
				{"another host on the address", onAddr(first.Addr), onAddr(first.Addr), politetest.RobotsPath, first.Addr},
				{"the host at its new address", onHost(moving), onHost(moving), "/b", elsewhere},
			} {
				end, ok1 := lastEnd(c.run1)
				v, ok2 := firstOf(c.run2)
				if !ok1 || !ok2 {
					t.Errorf("%s: no request in run 1 (%v) or run 2 (%v)", c.what, ok1, ok2)
					continue
				}
				if v.Path != c.wantInRun2 || c.wantAddress.IsValid() && v.Addr != c.wantAddress {
					t.Errorf("%s: run 2 began with %s at %v, want %s at %v", c.what, v.Path, v.Addr, c.wantInRun2, c.wantAddress)
				}
				if gap := v.Start.Sub(end); gap != polite.MinRest {
					t.Errorf("%s: run 2's first request (%s %s) came %v after run 1's last response ended, want the rest, %v",
						c.what, v.Host, v.Path, gap, polite.MinRest)
				}
			}
			if rep := r.farm.Audit().Report(restRule(polite.MinRest)); !rep.Polite() {
				t.Errorf("farm audit over both runs: %v", rep)
			}
		})
	}
}

// The child of TestRestOutlivesAKilledProcess: a Fetcher on the store file
// the parent names fetches the URL it names from the parent's farm, says
// "delivered" once it has the Result and "kept" each time a rest is saved,
// and waits to be killed.
const (
	restChildEnv = "POLITE_REST_CHILD" // the store file
	restURLEnv   = "POLITE_REST_URL"   // the URL to fetch
	restNameEnv  = "POLITE_REST_NAME"  // host=address, for the resolver
)

func TestRestOutlivesAKilledProcessChild(t *testing.T) {
	path := os.Getenv(restChildEnv)
	if path == "" {
		t.Skip("the child of TestRestOutlivesAKilledProcess")
	}
	fail := func(err error) { fmt.Println("error", err); os.Exit(2) }
	name, addr, _ := strings.Cut(os.Getenv(restNameEnv), "=")
	a, err := netip.ParseAddr(addr)
	if err != nil {
		fail(err)
	}
	st, err := polite.OpenStore(path)
	if err != nil {
		fail(err)
	}
	f, err := polite.New(polite.Config{Store: notedStore{st}, Resolver: politetest.NewResolver(map[string]netip.Addr{name: a}),
		AllowPrivateNetworks: true, Logger: quiet})
	if err != nil {
		fail(err)
	}
	res, err := f.Fetch(context.Background(), os.Getenv(restURLEnv))
	if err != nil || res.Err != nil {
		fail(fmt.Errorf("%v %v", err, res))
	}
	fmt.Println("delivered", res.URL)
	bufio.NewReader(os.Stdin).ReadString('\n') // until the parent kills it, or goes
	os.Exit(0)
}

// notedStore says on standard output when a rest has been saved.
type notedStore struct{ polite.Store }

func (s notedStore) SaveRests(rs []polite.RestRecord) error {
	err := s.Store.SaveRests(rs)
	if err == nil {
		for _, r := range rs {
			fmt.Println("kept", r.Host, r.Rest)
		}
	}
	return err
}

// R1.4, R1.3: a process killed with SIGKILL right after its response, its
// Fetcher running and its store file open, leaves the rest in the file: a
// Fetcher of the next process on the file waits it out. The farm, in this
// process, serves both and judges from its audit: the second process's
// first request (its page: the robots.txt copy is in the file) comes a
// full rest after the killed one's response ended. Before, it came within
// milliseconds. Real time: the processes share no clock.
func TestRestOutlivesAKilledProcess(t *testing.T) {
	skipProcessTests(t)
	checkNoLeaks(t)
	fm := politetest.New(nil)
	defer fm.Close()
	site, err := fm.AddSite(politetest.Site{Name: "crashed.test"})
	if err != nil {
		t.Fatal(err)
	}
	// The file holds the site's robots.txt, fresh: the child's page is its
	// first request, and one rest is all the test waits.
	path := filepath.Join(t.TempDir(), "polite.db")
	st := openTestStore(t, path)
	err = st.SaveRobots(polite.StoredRobots{Origin: originOf(t, fm.URL(site.Name, "/")), Status: 404, Fetched: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRestOutlivesAKilledProcessChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), restChildEnv+"="+path, restURLEnv+"="+fm.URL(site.Name, "/a"),
		restNameEnv+"="+site.Name+"="+site.Addr.String())
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The page's rest kept and its Result delivered, in either order.
	lines := bufio.NewScanner(out)
	delivered, kept := false, 0
	for (!delivered || kept < 1) && lines.Scan() {
		switch line := lines.Text(); {
		case strings.HasPrefix(line, "delivered "):
			delivered = true
		case strings.HasPrefix(line, "kept "):
			kept++
		case strings.HasPrefix(line, "error"):
			t.Fatalf("child: %s", line)
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	if !delivered || kept < 1 {
		t.Fatalf("the child ended with its Result delivered %v and %d rests kept, want both", delivered, kept)
	}

	st = openTestStore(t, path)
	defer st.Close()
	f, err := polite.New(polite.Config{Store: st, Resolver: fm.Resolver(), AllowPrivateNetworks: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if res, err := f.Fetch(context.Background(), fm.URL(site.Name, "/b")); err != nil || res.Err != nil {
		t.Fatalf("the next process's page: %v %v", err, res)
	}
	vs := fm.Audit().Visits()
	if len(vs) != 2 || vs[0].Path != "/a" || vs[1].Path != "/b" {
		t.Fatalf("farm saw %v, want /a from the killed process, then /b", vs)
	}
	gap := vs[1].Start.Sub(vs[0].End)
	if gap < polite.MinRest {
		t.Errorf("the next process asked %v after the killed one's response ended, want at least the rest, %v", gap, polite.MinRest)
	}
	t.Logf("the next process asked %v after the killed one's response ended", gap)
}
