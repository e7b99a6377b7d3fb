package polite_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// shutdownRig is a declared API (no robots.txt) whose /slow holds its
// answer until gate is closed, with /next queued behind it. entered is
// closed when /slow's request has reached the server.
func shutdownRig(t *testing.T) (r *farmRig, slow, next string, entered, gate chan struct{}) {
	r = newFarmRig(t)
	entered, gate = make(chan struct{}), make(chan struct{})
	name := r.site(politetest.Site{Name: "slow.test", Default: func(path string) politetest.Page {
		if path == "/slow" {
			close(entered)
			return politetest.Page{Body: []byte("<p>slow</p>"), Gate: gate}
		}
		return politetest.Page{Body: []byte("<p>next</p>")}
	}})
	r.start(polite.Config{APIs: []polite.API{{Host: name, Terms: "https://slow.test/terms"}}})
	slow, next = r.url(name, "/slow"), r.url(name, "/next")
	r.add(slow, next)
	<-entered
	return r, slow, next, entered, gate
}

// R11.2: Shutdown lets the request in flight finish with its page, and
// answers what was not asked yet with ErrClosed at once; nothing more is
// asked. Close, by contrast, cancels the request in flight.
func TestShutdownLetsTheRequestInFlightFinish(t *testing.T) {
	r, slow, next, _, gate := shutdownRig(t)
	done := make(chan error, 1)
	go func() { done <- r.f.Shutdown(context.Background()) }()
	// The queued URL is answered first, while /slow is still held.
	first := r.results(1)
	if res := first[next]; res == nil || !errors.Is(res.Err, polite.ErrClosed) {
		t.Fatalf("first Result: %+v, want %s with ErrClosed", first, next)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	res := r.results(1)[slow]
	if res == nil || res.Err != nil || res.Status != http.StatusOK || string(res.Body) != "<p>slow</p>" {
		t.Errorf("%s after Shutdown: %+v, want its page", slow, res)
	}
	if _, err := r.f.Next(context.Background()); err == nil {
		t.Error("a Result after both URLs were answered")
	}
	vs := r.farm.Audit().VisitsTo("slow.test")
	if len(vs) != 1 || vs[0].Path != "/slow" || vs[0].Cut {
		t.Errorf("the server saw %+v; want /slow only, answered whole", vs)
	}
}

// R11.2: a Shutdown whose context ends cancels what is still in flight,
// and says so.
func TestShutdownWhoseContextEndsCancels(t *testing.T) {
	r, slow, next, _, gate := shutdownRig(t)
	defer close(gate)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.f.Shutdown(ctx) }()
	if res := r.results(1)[next]; res == nil || !errors.Is(res.Err, polite.ErrClosed) {
		t.Fatalf("queued URL: %+v, want ErrClosed", res)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown: %v, want context.Canceled", err)
	}
	if res := r.results(1)[slow]; res == nil || !errors.Is(res.Err, polite.ErrClosed) {
		t.Errorf("%s: %+v, want ErrClosed: its request was cancelled", slow, res)
	}
}
