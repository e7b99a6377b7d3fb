package politetest

import (
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"
)

// One listener serves every address: each request reaches the site of the
// address dialled and is audited there, and a connection to an address
// that is not the farm's is closed unanswered.
func TestShareOneListener(t *testing.T) {
	f := newFarm(t, nil)
	if err := f.ShareOneListener(); err != nil {
		t.Fatal(err)
	}
	a := addSite(t, f, Site{Name: "a.test"})
	b := addSite(t, f, Site{Name: "b.test"})
	if a.Addr == b.Addr || f.Port(a.Addr) != f.Port(b.Addr) {
		t.Fatalf("addresses %v, %v on ports %d, %d: want two addresses on one port", a.Addr, b.Addr, f.Port(a.Addr), f.Port(b.Addr))
	}
	c := client(t, f, 5*time.Second, netip.Addr{})
	for _, s := range []*Site{a, b, a} {
		resp, body := get(t, c, f.URL(s.Name, "/x"))
		if resp.StatusCode != 200 || !strings.Contains(string(body), s.Name+"/x") {
			t.Errorf("%s: status %d, body %q", s.Name, resp.StatusCode, body)
		}
	}
	if n := len(f.Audit().VisitsTo("a.test")); n != 2 {
		t.Errorf("a.test: %d visits, want 2", n)
	}
	for _, v := range f.Audit().Visits() {
		if want := map[string]netip.Addr{"a.test": a.Addr, "b.test": b.Addr}[v.Host]; v.Addr != want {
			t.Errorf("visit to %s audited on %v, want %v", v.Host, v.Addr, want)
		}
	}

	conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(f.Port(a.Addr))))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(conn, "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n")
	// Closed with the request unread, the connection may end in a reset.
	if got, _ := io.ReadAll(conn); len(got) > 0 {
		t.Errorf("a connection to 127.0.0.1 was answered: %q", got)
	}
	if n := len(f.Audit().Visits()); n != 3 {
		t.Errorf("%d visits after the stranger's request, want 3", n)
	}
}
