package netguard

import (
	"context"
	"net"
	"strconv"
	"syscall"
	"testing"
)

// R10.2: on Linux a connect is bounded by the socket's SYN retries, with
// no timer per dial. The socket of a real connection to the farm says
// how many it has.
func TestConnectIsBoundedBySynRetries(t *testing.T) {
	farm, ap := farmSite(t, "syn.test")
	tr := NewTransport(true, nil)
	defer tr.CloseIdleConnections()
	ctx := WithAddr(context.Background(), ap)
	conn, err := tr.DialContext(ctx, "tcp", net.JoinHostPort("syn.test", strconv.Itoa(farm.Port(ap.Addr()))))
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
