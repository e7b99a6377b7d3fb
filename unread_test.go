package polite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R11, R10.2: a reader that falls behind holds the fetcher back. With
// MaxUnread Results waiting, no request starts, so the Results held in
// memory (bodies up to MaxBodyBytes each) stay within MaxUnread +
// MaxInFlight however slowly the caller reads; Add still returns at once.
// Without the bound every page was fetched before the first was read.
func TestReaderBehindHoldsRequests(t *testing.T) {
	r := newFarmRig(t)
	pages := map[string]politetest.Page{}
	for i := range 8 {
		pages[fmt.Sprintf("/p%d", i)] = politetest.Page{Body: fmt.Appendf(nil, "<p>page %d</p>", i)}
	}
	host := r.site(politetest.Site{Name: "api.test", Pages: pages})
	held := make(chan struct{}, 1)
	const maxUnread, maxInFlight = 2, 1
	r.start(polite.Config{AllowPrivateNetworks: true, MaxUnread: maxUnread, MaxInFlight: maxInFlight,
		APIs: []polite.API{{Host: host, Terms: "https://api.test/terms"}}},
		onHeld(func() {
			select {
			case held <- struct{}{}:
			default:
			}
		}))
	for i := range 8 {
		r.add(r.farm.URL(host, fmt.Sprintf("/p%d", i)))
	}
	ctx := context.Background()
	for read := 0; read < 8; read++ {
		if read < 8-maxUnread { // until the last page is fetched, it waits for the reader
			<-held
			if n := r.farm.Audit().Count(host); n > read+maxUnread+maxInFlight {
				t.Fatalf("%d requests made with %d Results read; want at most %d", n, read, read+maxUnread+maxInFlight)
			}
		}
		res, err := r.f.Next(ctx)
		if err != nil || res.Err != nil {
			t.Fatalf("Result %d: %v %v", read, err, res)
		}
	}
	if n := r.farm.Audit().Count(host); n != 8 {
		t.Errorf("%d requests, want 8", n)
	}
}
