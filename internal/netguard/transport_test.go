package netguard

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"testing"
)

// R10.1 at the socket: even a request pinned to loopback is refused by
// the dialler itself when private networks are not allowed.
func TestDialGuardSeesTheDialledAddress(t *testing.T) {
	farm, ap := farmSite(t, "guarded.test")
	c := &http.Client{Transport: NewTransport(false, nil)}
	defer c.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(WithAddr(context.Background(), ap), http.MethodGet, farm.URL("guarded.test", "/"), nil)
	resp, err := c.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, ErrPrivateAddress) {
		t.Errorf("dial to %v: %v, want ErrPrivateAddress", ap, err)
	}
	if n := farm.Audit().Count("guarded.test"); n != 0 {
		t.Errorf("farm saw %d requests", n)
	}
	// And a request with no pinned address is never dialled at all.
	req, _ = http.NewRequest(http.MethodGet, farm.URL("guarded.test", "/"), nil)
	if resp, err := (&http.Client{Transport: NewTransport(true, nil)}).Do(req); err == nil {
		resp.Body.Close()
		t.Error("an unpinned request was dialled")
	}
}

// R1.1: the pinned address is the one dialled, whatever the URL's host
// resolves to elsewhere; a request pinned to another port than its URL's
// is not dialled.
func TestDialGoesToThePinnedAddress(t *testing.T) {
	farm, ap := farmSite(t, "pinned.test")
	tr := NewTransport(true, nil)
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(WithAddr(context.Background(), ap), http.MethodGet, farm.URL("pinned.test", "/"), nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	vs := farm.Audit().VisitsTo("pinned.test")
	if len(vs) != 1 || vs[0].Addr != ap.Addr() {
		t.Errorf("visits %v, want one at %v", vs, ap.Addr())
	}
	other := netip.AddrPortFrom(ap.Addr(), ap.Port()+1)
	req, _ = http.NewRequestWithContext(WithAddr(context.Background(), other), http.MethodGet, farm.URL("pinned.test", "/"), nil)
	if resp, err := tr.RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Errorf("a request pinned to %v was sent to port %d", other, ap.Port())
	}
	if n := farm.Audit().Count("pinned.test"); n != 1 {
		t.Errorf("farm saw %d requests, want 1", n)
	}
}
