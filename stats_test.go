package polite_test

import (
	"context"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// Stats agrees with what the farm saw, during and after a run.
func TestStats(t *testing.T) {
	r := newFarmRig(t)
	a := r.site(politetest.Site{Name: "a.test"})
	b := r.site(politetest.Site{Name: "b.test"})
	no := r.site(politetest.Site{Name: "no.test", Default: func(string) politetest.Page { return politetest.Page{Status: 403} }})
	f := r.start(polite.Config{AllowPrivateNetworks: true})
	r.add(r.pages(a, 3)...)
	r.add(r.pages(b, 2)...)
	r.add(r.pages(no, 2)...)
	r.results(7)
	st, err := f.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Hosts != 3 || st.Stopped != 1 || st.Refusals["refused"] != 1 || st.Queued != 0 || st.InFlight != 0 || st.Active != 0 {
		t.Errorf("stats %+v", st)
	}
	if want := len(r.farm.Audit().Visits()); st.Requests != want {
		t.Errorf("stats say %d requests, the farm saw %d", st.Requests, want)
	}
	if st.Bytes == 0 {
		t.Error("no bytes counted")
	}
	f.Close()
	after, err := f.Stats(context.Background())
	if err != nil || after.Requests != st.Requests {
		t.Errorf("after Close: %+v %v", after, err)
	}
}
