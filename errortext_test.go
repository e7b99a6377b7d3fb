package polite_test

import (
	"errors"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// checkErrorText fails unless err reads as one sentence of the package's:
// "polite: " once, at its start, however many of its errors it wraps, and
// errors.Is still finds each of kinds in it.
func checkErrorText(t *testing.T, what string, err error, kinds ...error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	text := err.Error()
	if !strings.HasPrefix(text, "polite: ") || strings.Count(text, "polite:") != 1 {
		t.Errorf("%s: %q; want \"polite: \" once, at the start", what, text)
	}
	for _, k := range kinds {
		if !errors.Is(err, k) {
			t.Errorf("%s: %q is not %v", what, text, k)
		}
	}
}

// R3.2, R5.2, R11.1: when servers misbehave, the errors that stop a host
// wrap the failure that stopped it, and the Result of each URL held back
// wraps that again; the text names the package once.
func TestErrorTextNamesThePackageOnce(t *testing.T) {
	t.Run("robots.txt cut five times", func(t *testing.T) {
		r := newFarmRig(t)
		host := r.site(politetest.Site{Name: "cut.test", Pages: map[string]politetest.Page{
			politetest.RobotsPath: {Cut: true, Body: []byte("User-agent: *\nDisallow: /private\n")}}})
		r.start(polite.Config{})
		u := r.url(host, "/a")
		r.add(u)
		checkErrorText(t, u, r.results(1)[u].Err, polite.ErrHostStopped, polite.ErrFailures, polite.ErrIncompleteBody)
	})
	t.Run("pages cut until the host stops", func(t *testing.T) {
		r := newFarmRig(t)
		cut := politetest.Page{Cut: true, Body: []byte(strings.Repeat("<p>half a page</p>", 50))}
		host := r.site(politetest.Site{Name: "cut.test", Pages: map[string]politetest.Page{"/1": cut, "/2": cut, "/3": cut}})
		r.start(polite.Config{})
		urls := []string{r.url(host, "/1"), r.url(host, "/2"), r.url(host, "/3")}
		r.add(urls...)
		res := r.results(len(urls))
		stopped := 0
		for _, u := range urls {
			checkErrorText(t, u, res[u].Err, polite.ErrIncompleteBody)
			if errors.Is(res[u].Err, polite.ErrHostStopped) {
				stopped++
				checkErrorText(t, u, res[u].Err, polite.ErrFailures)
			}
		}
		if stopped == 0 {
			t.Errorf("no URL's Result says the host stopped after %d failures", polite.FailuresToStop)
		}
	})
	t.Run("certificate for another name", func(t *testing.T) {
		r := newFarmRig(t)
		r.site(politetest.Site{Name: "bad.test", TLS: politetest.WrongNameCert})
		r.start(polite.Config{RootCAs: r.farm.CertPool()})
		urls := []string{r.httpsURL("bad.test", "/1"), r.httpsURL("bad.test", "/2")}
		r.add(urls...)
		res := r.results(len(urls))
		for _, u := range urls {
			checkErrorText(t, u, res[u].Err, polite.ErrHostStopped, polite.ErrCertificate)
		}
	})
	t.Run("lookups that time out", func(t *testing.T) {
		r := newFarmRig(t)
		res := &stuckResolver{farm: r.farm.Resolver(), stuck: "stuck.test"}
		r.start(polite.Config{Resolver: res}, lookupTimeout(20*time.Millisecond))
		urls := []string{"http://stuck.test/1", "http://stuck.test/2"}
		r.add(urls...)
		got := r.results(len(urls))
		for _, u := range urls {
			checkErrorText(t, u, got[u].Err, polite.ErrHostStopped, polite.ErrFailures, polite.ErrUnresolved)
		}
	})
	t.Run("cooling off after a 403 in an earlier run", func(t *testing.T) {
		r := newFarmRig(t)
		host := r.site(politetest.Site{Name: "moody.test", Pages: map[string]politetest.Page{"/no": {Status: http.StatusForbidden}}})
		store := polite.NewMemoryStore()
		r.start(polite.Config{Store: store})
		no := r.url(host, "/no")
		r.add(no)
		checkErrorText(t, "run 1, "+no, r.results(1)[no].Err, polite.ErrRefused)
		r.f.Close()
		r.clk.Advance(time.Hour)
		r.start(polite.Config{Store: store})
		u := r.url(host, "/later")
		r.add(u)
		checkErrorText(t, "run 2, "+u, r.results(1)[u].Err, polite.ErrHostStopped, polite.ErrCoolingOff)
	})
	t.Run("request dropped on a kept connection", func(t *testing.T) {
		ap, _ := dropAfterRequestServer(t, "127.30.0.9:0", false)
		r := newFarmRig(t)
		r.start(polite.Config{Retries: -1, Resolver: politetest.NewResolver(map[string]netip.Addr{"drop.test": ap.Addr()})})
		u := "http://drop.test:" + strconv.Itoa(int(ap.Port())) + "/page"
		r.add(u)
		checkErrorText(t, u, r.results(1)[u].Err)
	})
	t.Run("closed after a failed try", func(t *testing.T) {
		checkErrorText(t, "the page", closedAfterA503(t), polite.ErrClosed, polite.ErrServerFailure)
	})
}
