package polite

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/politecrawler/polite/politetest"
)

// R10.1 at the socket: even a request pinned to loopback is refused by
// the dialler itself when private networks are not allowed. White-box (the
// transport and the scheduler's budget it pins), so in package polite.
func TestDialGuardSeesTheDialledAddress(t *testing.T) {
	r := newRig(t)
	h := r.site(politetest.Site{Name: "guarded.test"})
	c := &http.Client{Transport: newTransport(false, nil)}
	defer c.CloseIdleConnections()
	addrs, _ := r.farm.Resolver().LookupNetIP(context.Background(), "ip", h)
	req, _ := http.NewRequestWithContext(withPin(context.Background(), &budget{addr: addrs[0]}), http.MethodGet, r.farm.URL(h, "/"), nil)
	resp, err := c.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, ErrPrivateAddress) {
		t.Errorf("dial to %v: %v, want ErrPrivateAddress", addrs[0], err)
	}
	if n := r.farm.Audit().Count(h); n != 0 {
		t.Errorf("farm saw %d requests", n)
	}
	// And a request with no pinned address is never dialled at all.
	req, _ = http.NewRequest(http.MethodGet, r.farm.URL(h, "/"), nil)
	if resp, err := (&http.Client{Transport: newTransport(true, nil)}).Do(req); err == nil {
		resp.Body.Close()
		t.Error("an unpinned request was dialled")
	}
}
