package politetest_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite/politetest"
)

// Sites can share a server address, as names on one server do: the
// budget is the address, and the audit reports by it. MapName points a
// name at an address the farm serves without a site of its own; Port
// says where each address listens.
func ExampleFarm_NewAddr() {
	farm := politetest.New(nil)
	defer farm.Close()
	shared, err := farm.NewAddr()
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"blog.test", "shop.test"} {
		if _, err := farm.AddSite(politetest.Site{Name: name, Addr: shared}); err != nil {
			log.Fatal(err)
		}
	}
	farm.MapName("alias.test", shared) // resolves, and the farm answers 421 for it
	addrs, _ := farm.Resolver().LookupNetIP(context.Background(), "ip", "shop.test")
	fmt.Println(len(farm.Addrs()), addrs[0] == shared, farm.Port(shared) > 0)
	// Output: 1 true true
}

// A site over HTTPS with a certificate of the farm's own authority, and
// one whose certificate has expired: a client that trusts CertPool
// reaches the first and is refused by the second. The audit keeps every
// ClientHello it saw.
func ExampleCert() {
	farm := politetest.New(nil)
	defer farm.Close()
	for _, s := range []politetest.Site{
		{Name: "good.test", TLS: politetest.GoodCert},
		{Name: "old.test", TLS: politetest.ExpiredCert},
	} {
		if _, err := farm.AddSite(s); err != nil {
			log.Fatal(err)
		}
	}
	tr := &http.Transport{DialContext: farm.DialContext, TLSClientConfig: &tls.Config{RootCAs: farm.CertPool()}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for _, name := range []string{"good.test", "old.test"} {
		resp, err := client.Get(farm.HTTPSURL(name, "/"))
		if err != nil {
			fmt.Println(name, "refused")
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		fmt.Println(name, resp.StatusCode)
	}
	var hellos []politetest.Hello = farm.Audit().Hellos()
	var certs []string
	for _, h := range hellos {
		certs = append(certs, h.ServerName+" "+h.Cert.String())
	}
	slices.Sort(certs)
	fmt.Println(slices.Compact(certs))
	// Output:
	// good.test 200
	// old.test refused
	// [good.test GoodCert old.test ExpiredCert]
}

// A site of crawler traps (an endless calendar, session ids, repeating
// path segments, pages of one content), for a crawler that follows links:
// TrapPages are its real pages. ReportOn judges any list of visits, here
// against a rest of 3 s; Count and Reset read and clear the audit;
// ShortURL writes a farm URL without its scheme and port.
func ExampleFarm_AddTrapSite() {
	farm := politetest.New(nil)
	defer farm.Close()
	home, err := farm.AddTrapSite()
	if err != nil {
		log.Fatal(err)
	}
	const name = "traps.test"
	tr := &http.Transport{DialContext: farm.DialContext}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(farm.URL(name, politetest.TrapPages[1]))
	if err != nil {
		log.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	var visits []politetest.Visit = farm.Audit().VisitsTo(name)
	rep := politetest.ReportOn(visits, func(politetest.Visit) time.Duration { return 3 * time.Second })
	var gaps []politetest.Gap = rep.ShortGaps
	fmt.Println(resp.StatusCode, farm.Audit().Count(name), len(gaps), politetest.ShortURL(home))
	farm.Audit().Reset()
	fmt.Println(len(farm.Audit().Visits()))
	// Output:
	// 200 1 0 traps.test/
	// 0
}

// In a test, Start makes the farm and closes it when the test ends: here
// 500 plain hosts, each on its own address, served through one listener
// with connections closed after 5 s idle, as many servers do, and a page
// saved from the wild (curl -i) replayed by one of them. A farm in
// another process is reached by name through NewResolver.
func ExampleStart() {
	_ = func(t *testing.T) {
		sites := politetest.Hosts(500)
		page, err := politetest.ReadPage("challenge.http") // saved with curl -i
		if err != nil {
			t.Fatal(err)
		}
		sites[0].Pages = map[string]politetest.Page{"/": page}
		var farm *politetest.Farm = politetest.Start(t)
		farm.SetIdleTimeout(5 * time.Second)
		if err := farm.ShareOneListener(); err != nil {
			t.Fatal(err)
		}
		for _, s := range sites {
			if _, err := farm.AddSite(s); err != nil {
				t.Fatal(err)
			}
		}
		names := map[string]netip.Addr{}
		for _, s := range sites {
			addrs, _ := farm.Resolver().LookupNetIP(context.Background(), "ip", s.Name)
			names[s.Name] = addrs[0]
		}
		_ = politetest.NewResolver(names)      // what a child process would use
		_ = farm.TLSPort(names[sites[0].Name]) // 0: no site there serves TLS
		if err := farm.Close(); !errors.Is(err, nil) && !errors.Is(err, politetest.ErrClosed) {
			t.Error(err)
		}
	}
}

// stepClock is a FakeClock a test might keep: it stands still until the
// farm advances it.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// A farm on a clock of the test's own: given a FakeClock, a scripted wait
// advances it instead of sleeping, so a minute's latency costs nothing,
// and the audit's times are that clock's.
func ExampleFakeClock() {
	var clk politetest.FakeClock = &stepClock{now: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	var _ politetest.Clock = clk // a FakeClock is a Clock that the farm advances
	farm := politetest.New(clk)
	defer farm.Close()
	if _, err := farm.AddSite(politetest.Site{Name: "slow.test", Latency: time.Minute}); err != nil {
		log.Fatal(err)
	}
	tr := &http.Transport{DialContext: farm.DialContext}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(farm.URL("slow.test", "/"))
	if err != nil {
		log.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	v := farm.Audit().Visits()[0]
	fmt.Println(v.End.Sub(v.Start), v.Start.Format(time.Kitchen))
	// Output: 1m0s 10:00AM
}
