package polite_test

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R3.2, R5.1, R5.2: an origin of a host that cannot be reached (a closed
// port, or a server that resets each connection once it has read the
// request) does not hold the host's other origin back. Its robots.txt is
// asked again behind the pages queued at the budget, so the other
// origin's answers come between its failures, and those failures are not
// five in a row until nothing else of the host is left. Its own page is
// never asked; every page of the origin that answers is fetched, at the
// budget's rests.
func TestUnreachableOriginHoldsNotItsHost(t *testing.T) {
	for _, reset := range []bool{false, true} {
		t.Run("reset="+strconv.FormatBool(reset), func(t *testing.T) {
			r := newFarmRig(t)
			a, _ := r.addr()
			host := r.site(politetest.Site{Name: "h.test", Addr: a})
			var mu sync.Mutex
			var asked []string
			var port int
			if reset {
				port = int(rawServer(t, a.String()+":0", func(c net.Conn) {
					req, err := http.ReadRequest(bufio.NewReader(c))
					if err != nil {
						return
					}
					mu.Lock()
					asked = append(asked, req.URL.Path)
					mu.Unlock()
					c.(*net.TCPConn).SetLinger(0)
				}).Port())
			} else {
				ln, err := net.Listen("tcp", a.String()+":0")
				if err != nil {
					t.Fatal(err)
				}
				port = ln.Addr().(*net.TCPAddr).Port
				ln.Close()
			}
			// The host's lookup waits until every URL is added: an idle
			// fetcher moves the fake clock on, and the unreachable origin
			// would fail five times in a row before the last pages came.
			gate := &gateResolver{Resolver: r.farm.Resolver(), open: make(chan struct{})}
			r.start(polite.Config{Resolver: gate})
			unreachable := "http://" + host + ":" + strconv.Itoa(port) + "/old"
			live := []string{r.url(host, "/"), r.url(host, "/1"), r.url(host, "/2"), r.url(host, "/3")}
			// The unreachable origin comes second, so its robots.txt is
			// first in the budget's queue.
			r.add(live[0], unreachable)
			r.add(live[1:]...)
			close(gate.open)
			res := r.results(len(live) + 1)
			for _, u := range live {
				if res[u].Err != nil || res[u].Status != http.StatusOK {
					t.Errorf("%s: %s; want it fetched", u, outcome(res[u]))
				}
			}
			if err := res[unreachable].Err; !errors.Is(err, polite.ErrFailures) || !errors.Is(err, polite.ErrHostStopped) {
				t.Errorf("%s: %v; want the host stopped by five failures in a row", unreachable, err)
			}
			vs := r.farm.Audit().VisitsTo(host)
			if got, want := paths(vs), []string{politetest.RobotsPath, "/", "/1", "/2", "/3"}; !slices.Equal(got, want) {
				t.Errorf("the origin that answers was asked %q, want %q", got, want)
			}
			for i, g := range gaps(vs) {
				if g < polite.MinRest {
					t.Errorf("gap %d at the address: %v, want ≥ %v (R2.1)", i, g, polite.MinRest)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			// Its robots.txt: once at most before each request of the other
			// origin, then five in a row.
			if n := len(asked); reset && (n < polite.FailuresToStop || n > polite.FailuresToStop+len(vs) ||
				slices.ContainsFunc(asked, func(p string) bool { return p != politetest.RobotsPath })) {
				t.Errorf("the unreachable origin read %q; want robots.txt alone, %d to %d times",
					asked, polite.FailuresToStop, polite.FailuresToStop+len(vs))
			}
		})
	}
}
