package polite_test

import (
	"bufio"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// dropAfterRequestServer is a raw TCP server on a loopback address of its
// own: robots.txt (a 404) and paths under /keep (an empty 200) are answered
// on a connection kept open, and every other request is read and then its
// connection dropped with no answer, closed or, with reset, reset. It
// returns the paths it read, in order, and the paths whose request asked
// to close the connection.
func dropAfterRequestServer(t *testing.T, addr string, reset bool) (netip.AddrPort, func() (paths []string, closing map[string]bool)) {
	t.Helper()
	var mu sync.Mutex
	var paths []string
	closing := make(map[string]bool)
	ap := rawServer(t, addr, func(c net.Conn) {
		rd := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(rd)
			if err != nil {
				return
			}
			mu.Lock()
			paths = append(paths, req.URL.Path)
			closing[req.URL.Path] = req.Close
			mu.Unlock()
			answer := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 0\r\n\r\n"
			switch {
			case req.URL.Path == politetest.RobotsPath:
				answer = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
			case !strings.HasPrefix(req.URL.Path, "/keep"):
				if reset {
					c.(*net.TCPConn).SetLinger(0)
				}
				return
			}
			if _, err := c.Write([]byte(answer)); err != nil {
				return
			}
		}
	})
	return ap, func() ([]string, map[string]bool) {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), paths...), maps.Clone(closing)
	}
}

// R2.1, R2.5: a server that reads a request on a kept connection and drops
// the connection with no answer gets that request once. net/http would
// send it again at once on a new connection, a second request with no rest
// after a failure, unseen by the fetcher; it is a failure, backed off, and
// with Retries -1 not asked again.
func TestDroppedRequestIsNotSentAgainAtOnce(t *testing.T) {
	for i, reset := range []bool{false, true} {
		t.Run("reset="+strconv.FormatBool(reset), func(t *testing.T) {
			ap, seen := dropAfterRequestServer(t, "127.30.0."+strconv.Itoa(2+i)+":0", reset)
			r := newFarmRig(t)
			r.start(polite.Config{Retries: -1, Resolver: politetest.NewResolver(map[string]netip.Addr{"drop.test": ap.Addr()})})
			u := "http://drop.test:" + strconv.Itoa(int(ap.Port())) + "/page"
			r.add(u)
			res := r.results(1)[u]
			if res.Err == nil || res.Attempts != 1 || !strings.Contains(res.Err.Error(), "dropped the connection after the request, with no answer") {
				t.Errorf("Result: %d attempts, err %v; want 1, and the failure said", res.Attempts, res.Err)
			}
			if got, _ := seen(); len(got) != 2 || got[0] != politetest.RobotsPath || got[1] != "/page" {
				t.Errorf("server read %q, want robots.txt and the page once", got)
			}
		})
	}
}

// The same drop ends the budget's kept connections (R2.5): net/http's
// resend is refused only on a connection kept from an earlier request,
// and a server that closes one as the next request comes (a keep-alive
// timeout as long as the rest) would fail every other request so. The
// page after the dropped one asks to close its connection, though a third
// is queued behind it.
func TestDroppedRequestEndsKeptConnections(t *testing.T) {
	ap, seen := dropAfterRequestServer(t, "127.30.0.4:0", false)
	r := newFarmRig(t)
	r.start(polite.Config{Retries: -1, Resolver: politetest.NewResolver(map[string]netip.Addr{"drop.test": ap.Addr()})})
	base := "http://drop.test:" + strconv.Itoa(int(ap.Port()))
	r.add(base+"/dropped", base+"/keep1", base+"/keep2")
	r.results(3)
	paths, closing := seen()
	if want := []string{politetest.RobotsPath, "/dropped", "/keep1", "/keep2"}; !slices.Equal(paths, want) {
		t.Fatalf("server read %q, want %q", paths, want)
	}
	if closing[politetest.RobotsPath] || !closing["/keep1"] {
		t.Errorf("Connection: close asked by robots.txt %v, by the page after the drop %v; want false, true",
			closing[politetest.RobotsPath], closing["/keep1"])
	}
}
