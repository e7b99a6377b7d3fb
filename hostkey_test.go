package polite_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// One host, two spellings (R1.1): a host is compared, stopped and looked
// up in one normal form — lower case, IDNA A-label, no trailing dot,
// default port dropped — whether it comes through Add, a redirect or the
// Config.

// addr takes a fresh farm address and returns it with its port, for
// pages that must name the port of a site before the site is added.
func (r *farmRig) addr() (netip.Addr, string) {
	r.t.Helper()
	a, err := r.farm.NewAddr()
	if err != nil {
		r.t.Fatal(err)
	}
	return a, strconv.Itoa(r.farm.Port(a))
}

// outcome says what a Result was, briefly.
func outcome(res *polite.Result) string {
	if res == nil {
		return "no Result"
	}
	return fmt.Sprintf("status %d, err %v, final %s", res.Status, res.Err, res.FinalURL)
}

// paths lists the paths the farm was asked for on a host, in order.
func paths(vs []politetest.Visit) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Path)
	}
	return out
}

// refuser adds refuser.test, whose every page answers 403, and returns
// its port.
func refuser(r *farmRig) string {
	a, port := r.addr()
	r.site(politetest.Site{Name: "refuser.test", Addr: a, Default: func(string) politetest.Page {
		return politetest.Page{Status: 403}
	}})
	return port
}

// stopRefuser fetches refuser.test's first page, which stops the host
// (R3.1).
func stopRefuser(r *farmRig) {
	r.t.Helper()
	first := r.url("refuser.test", "/a")
	r.add(first)
	if res := r.results(1)[first]; res == nil || !errors.Is(res.Err, polite.ErrRefused) {
		r.t.Fatalf("the 403 did not refuse: %s", outcome(res))
	}
}

// wantOnlyFirst checks refuser.test saw its robots.txt and /a, nothing
// after the 403.
func wantOnlyFirst(t *testing.T, r *farmRig) {
	t.Helper()
	if got := paths(r.farm.Audit().VisitsTo("refuser.test")); !slices.Equal(got, []string{politetest.RobotsPath, "/a"}) {
		t.Errorf("refuser.test saw %q, want robots.txt and /a only", got)
	}
}

// R3.1, R1.1: once refuser.test is stopped by a 403, the same host
// written with a trailing dot or in upper case is stopped too, and no
// request reaches it.
func TestStoppedHostUnderAnotherSpelling(t *testing.T) {
	r := newFarmRig(t)
	port := refuser(r)
	r.start(polite.Config{})
	stopRefuser(r)
	dot := "http://refuser.test.:" + port + "/b"
	upper := "http://REFUSER.test:" + port + "/c"
	r.add(dot, upper)
	res := r.results(2)
	for _, u := range []string{dot, upper} {
		if res[u] == nil || !errors.Is(res[u].Err, polite.ErrHostStopped) {
			t.Errorf("%s: %s, want ErrHostStopped", u, outcome(res[u]))
		}
	}
	wantOnlyFirst(t, r)
}

// R3.1, R8.3, R1.1: a redirect hop is keyed as Add is: a redirect to a
// stopped host under another spelling of its name is not followed.
func TestRedirectToStoppedHostUnderAnotherSpelling(t *testing.T) {
	r := newFarmRig(t)
	port := refuser(r)
	hop := r.site(politetest.Site{Name: "hop.test", Pages: map[string]politetest.Page{
		"/go": {Redirect: "http://refuser.test.:" + port + "/x"},
	}})
	r.start(polite.Config{})
	stopRefuser(r)
	from := r.url(hop, "/go")
	r.add(from)
	res := r.results(1)[from]
	if res == nil || !errors.Is(res.Err, polite.ErrHostStopped) || len(res.Redirects) != 1 {
		t.Errorf("redirect to the stopped host: %s, want ErrHostStopped after one hop", outcome(res))
	}
	wantOnlyFirst(t, r)
}

// recordingResolver records the names the fetcher asks for.
type recordingResolver struct {
	polite.Resolver
	mu    sync.Mutex
	asked []string
}

func (r *recordingResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	r.asked = append(r.asked, host)
	r.mu.Unlock()
	return r.Resolver.LookupNetIP(ctx, network, host)
}

func (r *recordingResolver) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.asked)
}

// R1.1, R5.1: an IDN host in Unicode and in A-labels is one host: looked
// up once, by its A-label, asked once for robots.txt, requested under its
// A-label; a redirect to another spelling of it stays on it. Result.URL is
// the URL as given.
func TestIDNHostIsOneHost(t *testing.T) {
	r := newFarmRig(t)
	const alabel = "xn--bcher-kva.example" // bücher.example
	a, port := r.addr()
	r.site(politetest.Site{Name: alabel, Addr: a, Pages: map[string]politetest.Page{
		"/hop": {Redirect: "http://BÜCHER.example.:" + port + "/landed"},
	}})
	rec := &recordingResolver{Resolver: r.farm.Resolver()}
	r.start(polite.Config{Resolver: rec})
	unicode := "http://bücher.example:" + port + "/"
	ascii := "http://" + alabel + ":" + port + "/other"
	hop := "http://Bücher.Example:" + port + "/hop"
	r.add(unicode, ascii, hop)
	res := r.results(3)
	for _, u := range []string{unicode, ascii, hop} {
		if res[u] == nil || res[u].Err != nil {
			t.Errorf("%s: %s", u, outcome(res[u]))
		}
	}
	if res[unicode] != nil {
		if got, want := res[unicode].FinalURL, "http://"+alabel+":"+port+"/"; got != want {
			t.Errorf("FinalURL %q, want the A-label host %q", got, want)
		}
	}
	got := paths(r.farm.Audit().VisitsTo(alabel))
	slices.Sort(got)
	if want := []string{"/", "/hop", "/landed", "/other", politetest.RobotsPath}; !slices.Equal(got, want) {
		t.Errorf("%s saw %q, want %q: one robots.txt", alabel, got, want)
	}
	if asked := rec.names(); !slices.Equal(asked, []string{alabel}) {
		t.Errorf("resolver asked for %q, want the A-label once", asked)
	}
}

// R5.5, R5.6, R1.1: the hosts named in Config.APIs and Config.Unrestricted
// are read in the same normal form: upper case, a trailing dot or Unicode
// name the host they mean, which is then not asked for robots.txt.
func TestConfigHostsInNormalForm(t *testing.T) {
	r := newFarmRig(t)
	api := r.site(politetest.Site{Name: "api.example"})
	idnAPI := r.site(politetest.Site{Name: "xn--mnchen-3ya.example"}) // münchen.example
	mine := r.site(politetest.Site{Name: "xn--bcher-kva.example"})    // bücher.example
	r.start(polite.Config{
		APIs: []polite.API{
			{Host: "API.Example.", Terms: "https://api.example/terms"},
			{Host: "MÜNCHEN.example", Terms: "https://xn--mnchen-3ya.example/terms"},
		},
		Unrestricted: polite.Unrestricted{Hosts: []string{"Bücher.Example."}, Reason: "my own site, checked before launch"},
	})
	urls := []string{r.url(api, "/a"), r.url(idnAPI, "/a"), r.url(mine, "/a")}
	r.add(urls...)
	res := r.results(len(urls))
	for _, u := range urls {
		if res[u] == nil || res[u].Err != nil {
			t.Errorf("%s: %s", u, outcome(res[u]))
		}
	}
	for _, h := range []string{api, idnAPI, mine} {
		if got := paths(r.farm.Audit().VisitsTo(h)); !slices.Equal(got, []string{"/a"}) {
			t.Errorf("%s saw %q, want /a only: robots.txt asked", h, got)
		}
	}
	for _, v := range r.farm.Audit().VisitsTo(mine) {
		if ua := v.Header.Get("User-Agent"); ua != "PoliteCrawler-unrestricted/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)" {
			t.Errorf("%s saw User-Agent %q", mine, ua)
		}
	}
}

// R8.3, R1.1: a redirect to the same URL under another spelling of its
// host is a loop, caught without asking again.
func TestRedirectLoopUnderAnotherSpelling(t *testing.T) {
	r := newFarmRig(t)
	a, port := r.addr()
	name := r.site(politetest.Site{Name: "loop.test", Addr: a, Pages: map[string]politetest.Page{
		"/x": {Redirect: "http://LOOP.test.:" + port + "/x"},
	}})
	r.start(polite.Config{})
	from := r.url(name, "/x")
	r.add(from)
	res := r.results(1)[from]
	if res == nil || !errors.Is(res.Err, polite.ErrRedirectLoop) || len(res.Redirects) != 0 {
		t.Errorf("%s: %s, want ErrRedirectLoop with no hop followed", from, outcome(res))
	}
	if got := paths(r.farm.Audit().VisitsTo(name)); !slices.Equal(got, []string{politetest.RobotsPath, "/x"}) {
		t.Errorf("loop.test saw %q, want robots.txt and /x once", got)
	}
}

// R1.1, R10.1: a host that ends in a number is the IPv4 address a browser
// reads in it. A farm address written as one decimal number, in hex parts
// or with octal zeros is one host with its dotted spelling: a duplicate of
// it, asked at that address, under one robots.txt. Without
// AllowPrivateNetworks such a spelling of a private address is refused at
// Add, as its dotted form is, and the Resolver is never asked for it.
func TestNumericIPv4SpellingsAreTheAddress(t *testing.T) {
	r := newFarmRig(t)
	a, port := r.addr()
	r.site(politetest.Site{Name: a.String(), Addr: a})
	b := a.As4()
	number := strconv.FormatUint(uint64(b[0])<<24|uint64(b[1])<<16|uint64(b[2])<<8|uint64(b[3]), 10)
	hex := fmt.Sprintf("0x%x.0x%x.%d.0%o", b[0], b[1], b[2], b[3])
	asked := &recordingResolver{Resolver: r.farm.Resolver()}
	r.start(polite.Config{Resolver: asked})
	dotted := "http://" + a.String() + ":" + port + "/p"
	r.add("http://" + number + ":" + port + "/p")
	for _, again := range []string{dotted, "http://" + hex + ":" + port + "/p"} {
		if err := r.f.Add(t.Context(), again); !errors.Is(err, polite.ErrDuplicate) {
			t.Errorf("Add(%s) = %v, want ErrDuplicate: the same address", again, err)
		}
	}
	res := r.results(1)["http://"+number+":"+port+"/p"]
	if res == nil || res.Err != nil || res.FinalURL != dotted || res.Addr != a {
		t.Fatalf("%s: %s, from %v; want %s fetched from %v", number, outcome(res), res.Addr, dotted, a)
	}
	if got := paths(r.farm.Audit().VisitsTo(a.String())); !slices.Equal(got, []string{politetest.RobotsPath, "/p"}) {
		t.Errorf("farm saw %q, want robots.txt then /p", got)
	}
	if names := asked.names(); len(names) != 0 {
		t.Errorf("the Resolver was asked for %q: an address is no name", names)
	}

	f, err := polite.NewOnFakeClock(polite.Config{Logger: quiet, Resolver: asked}, r.clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, u := range []string{"http://2130706433/", "http://0x7f.1/", "http://0177.0.0.01/", "http://10.258/", "http://" + number + "/"} {
		if err := f.Add(t.Context(), u); !errors.Is(err, polite.ErrPrivateAddress) {
			t.Errorf("Add(%s) without AllowPrivateNetworks = %v, want ErrPrivateAddress", u, err)
		}
	}
	if names := asked.names(); len(names) != 0 {
		t.Errorf("the Resolver was asked for %q", names)
	}
}
