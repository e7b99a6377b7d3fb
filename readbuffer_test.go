package polite_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/netguard"
	"github.com/politecrawler/polite/politetest"
)

// A connection's read buffer (netguard.ReadBufferSize) is smaller than a response
// can be: a header line many times its size, and a body sent chunked, are
// read whole.
func TestResponseLongerThanReadBuffer(t *testing.T) {
	r := newFarmRig(t)
	long := strings.Repeat("a", 8*netguard.ReadBufferSize)
	body := []byte("<html><body>" + strings.Repeat("x", 20*netguard.ReadBufferSize) + "</body></html>")
	h := r.site(politetest.Site{Name: "long.test", Default: func(string) politetest.Page {
		// BodyDelay makes the farm flush half the body before the rest,
		// without a Content-Length: the body is sent chunked.
		return politetest.Page{Header: http.Header{"Content-Type": {"text/html"}, "X-Long": {long}}, Body: body, BodyDelay: time.Millisecond}
	}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	u := r.farm.URL(h, "/")
	r.add(u)
	res := r.results(1)[u]
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := res.Header.Get("X-Long"); got != long {
		t.Errorf("X-Long: %d bytes, want %d", len(got), len(long))
	}
	if !bytes.Equal(res.Body, body) {
		t.Errorf("body: %d bytes, want %d", len(res.Body), len(body))
	}
}
