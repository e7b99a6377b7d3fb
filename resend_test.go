package polite_test

import (
	"bufio"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// dropAfterRequestServer is a raw TCP server on a loopback address of its
// own: robots.txt is a 404 on a connection kept open, and every other
// request is read and then its connection dropped with no answer, closed
// or, with reset, reset. It returns the paths it read, in order.
func dropAfterRequestServer(t *testing.T, addr string, reset bool) (netip.AddrPort, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var paths []string
	ap := rawServer(t, addr, func(c net.Conn) {
		rd := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(rd)
			if err != nil {
				return
			}
			mu.Lock()
			paths = append(paths, req.URL.Path)
			mu.Unlock()
			if req.URL.Path != politetest.RobotsPath {
				if reset {
					c.(*net.TCPConn).SetLinger(0)
				}
				return
			}
			if _, err := c.Write([]byte("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")); err != nil {
				return
			}
		}
	})
	return ap, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), paths...)
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
			if got := seen(); len(got) != 2 || got[0] != politetest.RobotsPath || got[1] != "/page" {
				t.Errorf("server read %q, want robots.txt and the page once", got)
			}
		})
	}
}
