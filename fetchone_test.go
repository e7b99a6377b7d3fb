package polite_test

import (
	"context"
	"errors"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// Fetch: one URL's Result to its caller alone, under every rule.

// A Fetched URL is asked after robots.txt and a rest from the request
// before, like any (R5.1, R2.1); its Result is the caller's, not the
// Results loop's, and it counts in no Pending.
func TestFetchReturnsItsResultAlone(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "a.test"})
	f := r.start(polite.Config{})
	ctx := context.Background()
	u, v := r.url(host, "/one"), r.url(host, "/two")
	res, err := f.Fetch(ctx, u)
	if err != nil || res.Err != nil || res.Status != 200 || res.URL != u {
		t.Fatalf("Fetch(%s) = %+v, %v", u, res, err)
	}
	if n := f.Pending(); n != 0 {
		t.Errorf("Pending after Fetch = %d, want 0", n)
	}
	r.add(v)
	got := drainResults(t, f)
	if len(got) != 1 || got[0].URL != v {
		t.Errorf("Results yielded %d: %v; want only the added %s", len(got), got, v)
	}
	vs := r.farm.Audit().Visits()
	if len(vs) != 3 || vs[0].Path != politetest.RobotsPath || vs[1].Path != "/one" || vs[2].Path != "/two" {
		t.Fatalf("visits %v: want robots.txt, /one, /two", vs)
	}
	if rep := r.farm.Audit().Report(politetest.AtLeast(polite.MinRest)); !rep.Polite() {
		t.Error(rep)
	}
	if _, err := f.Fetch(ctx, u); !errors.Is(err, polite.ErrDuplicate) {
		t.Errorf("Fetch of a URL fetched already: %v, want ErrDuplicate", err)
	}
	if err := f.Add(ctx, u); !errors.Is(err, polite.ErrDuplicate) {
		t.Errorf("Add of a URL fetched already: %v, want ErrDuplicate", err)
	}
}

// drainResults ranges over Results until nothing is pending.
func drainResults(t *testing.T, f *polite.Fetcher) []*polite.Result {
	t.Helper()
	var out []*polite.Result
	for res, err := range f.Results(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	return out
}

// A Fetch waiting when the fetcher closes gets its Result, with
// ErrClosed, as every accepted URL does (R11.2); a Fetch after Close is
// refused.
func TestFetchAnsweredOnClose(t *testing.T) {
	r, host, entered := heldRobots(t)
	f := r.start(polite.Config{})
	done := make(chan *polite.Result, 1)
	go func() {
		res, err := f.Fetch(context.Background(), r.url(host, "/p"))
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-entered // robots.txt in flight, the page held for it
	f.Close()
	if res := <-done; !errors.Is(res.Err, polite.ErrClosed) {
		t.Errorf("the Fetch waiting at Close: %v, want ErrClosed", res.Err)
	}
	if _, err := f.Fetch(context.Background(), r.url(host, "/q")); !errors.Is(err, polite.ErrClosed) {
		t.Errorf("Fetch after Close: %v, want ErrClosed", err)
	}
}

// A Fetch whose ctx ends while it waits returns ctx's error at once.
func TestFetchContextEnds(t *testing.T) {
	r, host, entered := heldRobots(t)
	f := r.start(polite.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.Fetch(ctx, r.url(host, "/p"))
		done <- err
	}()
	<-entered
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with its ctx ended: %v, want context.Canceled", err)
	}
}

// heldRobots is a farm host whose robots.txt is held in flight until the
// test ends; entered says when it is.
func heldRobots(t *testing.T) (r *farmRig, host string, entered chan string) {
	r = newFarmRig(t)
	gate := make(chan struct{})
	t.Cleanup(func() { close(gate) })
	entered = make(chan string, 1)
	host = r.site(politetest.Site{Name: "a.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Gate: gate, Entered: entered},
	}})
	return r, host, entered
}
