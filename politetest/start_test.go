package politetest_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/politecrawler/polite/politetest"
)

// get fetches url from the farm with a plain client that dials through
// the farm, and returns the status.
func get(t *testing.T, farm *politetest.Farm, url string) int {
	t.Helper()
	tr := &http.Transport{DialContext: farm.DialContext}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode
}

func TestStartServesHostsAndClosesAtCleanup(t *testing.T) {
	var farm *politetest.Farm
	t.Run("test", func(t *testing.T) {
		farm = politetest.Start(t, politetest.Hosts(3)...)
		if n := len(farm.Addrs()); n != 3 {
			t.Fatalf("%d addresses, want one per host, 3", n)
		}
		for i := 1; i <= 3; i++ {
			host := fmt.Sprintf("host%d.test", i)
			if st := get(t, farm, farm.URL(host, "/")); st != http.StatusOK {
				t.Errorf("%s: status %d, want 200", host, st)
			}
		}
		rep := farm.Audit().Report(politetest.AtLeast(3 * time.Second))
		if rep.Requests != 3 || rep.Addresses != 3 || !rep.Polite() {
			t.Errorf("one request per address: %v", rep)
		}
	})
	// The subtest's cleanup closed the farm.
	if _, err := farm.AddSite(politetest.Site{Name: "late.test"}); !errors.Is(err, politetest.ErrClosed) {
		t.Errorf("AddSite after the test ended: %v, want ErrClosed", err)
	}
}

// fatalRecorder is a test that notes a Fatal instead of ending.
type fatalRecorder struct {
	testing.TB
	fatal []any
}

func (r *fatalRecorder) Fatal(args ...any) { r.fatal = append(r.fatal, args...) }

func TestStartFailsOnASiteItCannotAdd(t *testing.T) {
	rec := &fatalRecorder{TB: t}
	politetest.Start(rec, politetest.Site{Name: "a.test"}, politetest.Site{Name: "A.test"})
	if len(rec.fatal) != 1 {
		t.Errorf("a duplicate name: Fatal(%v), want one error", rec.fatal)
	}
}

func TestPoliteAndAtLeast(t *testing.T) {
	if !(politetest.Report{}).Polite() {
		t.Error("an empty report is not polite")
	}
	if (politetest.Report{Overlaps: 1}).Polite() {
		t.Error("an overlap is polite")
	}
	if (politetest.Report{ShortGaps: []politetest.Gap{{}}}).Polite() {
		t.Error("a short gap is polite")
	}
	if got := politetest.AtLeast(3 * time.Second)(politetest.Visit{}); got != 3*time.Second {
		t.Errorf("AtLeast(3s) = %v", got)
	}
}

func TestDialContextRefusesAnUnknownName(t *testing.T) {
	farm := politetest.Start(t)
	_, err := farm.DialContext(t.Context(), "tcp", "nowhere.test:80")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Errorf("DialContext to an unknown name: %v, want a not-found *net.DNSError", err)
	}
}
