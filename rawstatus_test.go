package polite_test

import (
	"bufio"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// rawServer is a raw TCP server on addr, a loopback address of its own:
// serve has each connection, closed when it returns.
func rawServer(t *testing.T, addr string, serve func(net.Conn)) netip.AddrPort {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return netip.MustParseAddrPort(ln.Addr().String())
}

// zeroStatusServer is a raw TCP server that answers every request
// "HTTP/1.1 000", a status net/http accepts.
func zeroStatusServer(t *testing.T) (netip.AddrPort, *atomic.Int64) {
	t.Helper()
	var requests atomic.Int64
	ap := rawServer(t, "127.30.0.1:0", func(c net.Conn) {
		rd := bufio.NewReader(c)
		for {
			if _, err := http.ReadRequest(rd); err != nil {
				return
			}
			requests.Add(1)
			if _, err := c.Write([]byte("HTTP/1.1 000 Zero\r\nContent-Length: 5\r\n\r\nhello")); err != nil {
				return
			}
		}
	})
	return ap, &requests
}

// R2.5, R11.1: status 000 is no HTTP status: a failure of the host, not a
// Result with neither a page nor an error. Its robots.txt fails five times
// and stops the host; the page's Result says why.
func TestStatusZeroIsAFailure(t *testing.T) {
	ap, requests := zeroStatusServer(t)
	r := newFarmRig(t)
	r.start(polite.Config{Resolver: politetest.NewResolver(map[string]netip.Addr{"zero.test": ap.Addr()})})
	u := "http://zero.test:" + strconv.Itoa(int(ap.Port())) + "/a"
	r.add(u)
	res := r.results(1)[u]
	if res.Err == nil {
		t.Fatalf("status %d, %d bytes, no error: neither a page nor a reason", res.Status, len(res.Body))
	}
	if n := requests.Load(); n != polite.FailuresToStop {
		t.Errorf("server saw %d requests, want %d robots.txt requests then the stop", n, polite.FailuresToStop)
	}
}
