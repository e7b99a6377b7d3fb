package polite

import (
	"context"
	"net"
	"strconv"
	"syscall"
	"testing"

	"github.com/politecrawler/polite/politetest"
)

// R10.2: on Linux a connect is bounded by the socket's SYN retries, with
// no timer per dial. The socket of a real connection to the farm says
// how many it has.
func TestConnectIsBoundedBySynRetries(t *testing.T) {
	r := newRig(t)
	h := r.site(politetest.Site{Name: "syn.test"})
	addrs, err := r.farm.Resolver().LookupNetIP(context.Background(), "ip", h)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTransport(true, nil)
	defer tr.CloseIdleConnections()
	ctx := withPin(context.Background(), &budget{addr: addrs[0]})
	conn, err := tr.DialContext(ctx, "tcp", net.JoinHostPort(h, strconv.Itoa(r.farm.Port(addrs[0]))))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	raw, err := conn.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if cerr := raw.Control(func(fd uintptr) {
		n, err = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_SYNCNT)
	}); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil || n != synRetries {
		t.Errorf("TCP_SYNCNT %d (%v), want %d", n, err, synRetries)
	}
}
