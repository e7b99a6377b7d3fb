package polite_test

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/clock"
	"github.com/politecrawler/polite/politetest"
)

// pageVisitsOf are the farm's visits to a host, robots.txt left out.
func pageVisitsOf(fm *politetest.Farm, host string) []politetest.Visit {
	var vs []politetest.Visit
	for _, v := range fm.Audit().VisitsTo(host) {
		if v.Path != politetest.RobotsPath {
			vs = append(vs, v)
		}
	}
	return vs
}

// checkBackoffGaps fails unless the visits, as the server saw them, are
// apart by at least the backoff after as many failures in a row
// (10 s·2^(n−1), jittered into its upper half: R2.5). Gaps run from start
// to start: the farm ends a stalled visit only when it notices the client
// gone, which may be after the fetcher has moved on; a visit takes no time
// on this clock.
func checkBackoffGaps(t *testing.T, vs []politetest.Visit) {
	t.Helper()
	for i := 1; i < len(vs); i++ {
		gap := vs[i].Start.Sub(vs[i-1].Start)
		if least := 10 * time.Second << (i - 1) / 2; gap < least {
			t.Errorf("gap after failure %d: %v, want ≥ %v (R2.5)", i, gap, least)
		}
	}
}

func truncatedGzip(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(strings.Repeat(text, 200)))
	w.Close()
	return b.Bytes()[:b.Len()/2]
}

// R2.5, R3.2, R5.2, R11.1: a robots.txt answered 200 whose body does not
// arrive whole is a failure: it is asked again after a growing backoff,
// five in a row stop the host, and the page held for it gets its Result.
// The page itself is never asked (R5.1).
func TestRobotsTxtWhoseBodyFailsIsAFailure(t *testing.T) {
	text := "User-agent: *\nDisallow: /private\n"
	for _, c := range []struct {
		name    string
		page    politetest.Page
		timeout time.Duration
	}{
		{"cut short of its length", politetest.Page{Cut: true, Body: []byte(text)}, 0},
		{"chunked stream cut", politetest.Page{Cut: true, Chunked: true, Body: []byte(text)}, 0},
		{"truncated gzip", politetest.Page{Body: truncatedGzip(t, text),
			Header: http.Header{"Content-Type": {"text/plain"}, "Content-Encoding": {"gzip"}}}, 0},
		// The stall is cut by Config.Timeout, a real-time bound of the
		// transport (R10.2); the rests are on the fake clock.
		{"stalled", politetest.Page{Hang: true, Body: []byte(text)}, 50 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newFarmRig(t)
			host := r.site(politetest.Site{Name: "cut.test", Pages: map[string]politetest.Page{politetest.RobotsPath: c.page}})
			r.start(polite.Config{Timeout: c.timeout})
			u := r.url(host, "/a")
			r.add(u)
			res := r.results(1)[u]
			if !errors.Is(res.Err, polite.ErrHostStopped) || !errors.Is(res.Err, polite.ErrFailures) ||
				!errors.Is(res.Err, polite.ErrIncompleteBody) {
				t.Errorf("page: %v; want the host stopped by five incomplete robots.txt bodies", res.Err)
			}
			if n := r.farm.Audit().Count(host); n != polite.FailuresToStop {
				t.Errorf("server saw %d requests, want %d robots.txt requests", n, polite.FailuresToStop)
			}
			if vs := pageVisitsOf(r.farm, host); len(vs) != 0 {
				t.Errorf("server saw the page asked: %v", vs)
			}
			checkBackoffGaps(t, r.farm.Audit().VisitsTo(host))
			if r.f.Pending() != 0 {
				t.Errorf("%d Results still pending", r.f.Pending())
			}
		})
	}
}

// R2.5, R11.3: a page whose body is cut short is a failure: it is asked
// again after the backoff, three times, then its Result says what came
// (the URL, the bytes read) and how many attempts; a success resets the
// count.
func TestPageWhoseBodyIsCutIsRetriedThenFails(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "cut.test", Pages: map[string]politetest.Page{
		"/cut": {Cut: true, Body: []byte(strings.Repeat("<p>half a page</p>", 50))},
	}})
	r.start(polite.Config{})
	cut, ok := r.url(host, "/cut"), r.url(host, "/ok")
	r.add(cut, ok)
	res := r.results(2)
	err := res[cut].Err
	if !errors.Is(err, polite.ErrIncompleteBody) || res[cut].Status != 200 || res[cut].Attempts != 1+polite.DefaultRetries ||
		!strings.Contains(err.Error(), cut) || !strings.Contains(err.Error(), "450 bytes of 900") {
		t.Errorf("cut page: status %d, %d attempts, %v; want 200, %d attempts and an error naming the URL and the shortfall",
			res[cut].Status, res[cut].Attempts, err, 1+polite.DefaultRetries)
	}
	if res[ok].Err != nil || res[ok].Attempts != 1 {
		t.Errorf("next page: %d attempts, %v", res[ok].Attempts, res[ok].Err)
	}
	vs := pageVisitsOf(r.farm, host)
	if len(vs) != 1+polite.DefaultRetries+1 {
		t.Fatalf("server saw %d page requests, want %d", len(vs), 1+polite.DefaultRetries+1)
	}
	checkBackoffGaps(t, vs[:1+polite.DefaultRetries])
}

// R11.3: Config.Retries may lower the retries, never raise them.
func TestRetriesMayOnlyBeLowered(t *testing.T) {
	for _, c := range []struct{ retries, attempts int }{{-1, 1}, {1, 2}, {0, 4}, {10, 4}} {
		r := newFarmRig(t)
		host := r.site(politetest.Site{Name: "busy.test", Pages: map[string]politetest.Page{"/a": {Status: http.StatusTooManyRequests}}})
		r.start(polite.Config{Retries: c.retries})
		u := r.url(host, "/a")
		r.add(u)
		res := r.results(1)[u]
		if !errors.Is(res.Err, polite.ErrRateLimited) || res.Attempts != c.attempts {
			t.Errorf("Retries %d: %d attempts, %v; want %d", c.retries, res.Attempts, res.Err, c.attempts)
		}
		if n := len(pageVisitsOf(r.farm, host)); n != c.attempts {
			t.Errorf("Retries %d: server saw %d requests, want %d", c.retries, n, c.attempts)
		}
	}
}

// R3.1, R1.1: a host whose certificate does not verify is stopped at once
// with the x509 cause, and holds nothing up for the good host sharing its
// address: no backoff, no retry, no cool-off kept for later runs.
func TestBadCertificateStopsOnlyItsHost(t *testing.T) {
	r := newFarmRig(t)
	addr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	r.site(politetest.Site{Name: "bad.test", Addr: addr, TLS: politetest.WrongNameCert})
	r.site(politetest.Site{Name: "good.test", Addr: addr, TLS: politetest.GoodCert})
	store := polite.NewMemoryStore()
	r.start(polite.Config{RootCAs: r.farm.CertPool(), Store: store})
	bad := []string{r.httpsURL("bad.test", "/1"), r.httpsURL("bad.test", "/2"), r.httpsURL("bad.test", "/3")}
	good := []string{r.httpsURL("good.test", "/1"), r.httpsURL("good.test", "/2")}
	r.add(bad...)
	r.add(good...)
	res := r.results(len(bad) + len(good))
	for _, u := range bad {
		var cv *tls.CertificateVerificationError
		if err := res[u].Err; !errors.Is(err, polite.ErrHostStopped) || !errors.Is(err, polite.ErrCertificate) ||
			!errors.As(err, &cv) || errors.Is(err, polite.ErrRefused) {
			t.Errorf("%s: %v; want the host stopped for its certificate, the x509 cause kept", u, err)
		}
	}
	for _, u := range good {
		if res[u].Err != nil {
			t.Errorf("%s: %v", u, res[u].Err)
		}
	}
	hellos := 0
	for _, h := range r.farm.Audit().Hellos() {
		if h.ServerName == "bad.test" {
			hellos++
		}
	}
	if hellos != 1 {
		t.Errorf("bad.test saw %d handshakes, want 1: a bad certificate is not retried", hellos)
	}
	// good.test waited one floor at most behind bad.test's failed
	// handshake: its address was not backed off.
	if vs := r.farm.Audit().VisitsTo("good.test"); len(vs) != 3 || vs[0].Start.Sub(clock.Epoch) > polite.MinRest {
		t.Errorf("good.test: %d visits, the first at %v; want 3, within %v of the start", len(vs), vs[0].Start.Sub(clock.Epoch), polite.MinRest)
	}
	if _, kept, _ := store.LoadHost("bad.test"); kept {
		t.Error("a certificate failure left a cool-off for later runs (R3.3 is for refusals)")
	}
	st, _ := r.f.Stats(t.Context())
	if st.Refusals["certificate"] != 1 {
		t.Errorf("Stats.Refusals = %v, want one certificate stop", st.Refusals)
	}
}
