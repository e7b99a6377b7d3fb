package polite_test

import (
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// httpsURL is the farm's https URL of a site's path.
func (r *farmRig) httpsURL(name, path string) string { return r.farm.HTTPSURL(name, path) }

// requestLog keeps every request the fetcher reports to Config.OnRequest:
// the robots.txt requests too, each with its own error.
type requestLog struct {
	mu   sync.Mutex
	reqs []polite.RequestEvent
}

func (l *requestLog) add(q polite.RequestEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, q)
}

func (l *requestLog) all() []polite.RequestEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

// R10.2, DESIGN seams: with Config.RootCAs holding the farm's CA, an
// HTTPS page is fetched. The server saw HTTP/2, negotiated by ALPN, over
// a handshake whose SNI was the host name, on the address the fetcher
// resolved and pinned; robots.txt came first the same way (R5.1).
func TestTLSRootCAsTrustsTheFarmCA(t *testing.T) {
	r := newFarmRig(t)
	s, err := r.farm.AddSite(politetest.Site{Name: "secure.test", TLS: politetest.GoodCert})
	if err != nil {
		t.Fatal(err)
	}
	r.start(polite.Config{RootCAs: r.farm.CertPool()})
	u := r.httpsURL("secure.test", "/page")
	r.add(u)
	res := r.results(1)[u]
	if res.Err != nil || res.Status != 200 || !bytes.Contains(res.Body, []byte("secure.test/page")) {
		t.Fatalf("Result: err %v, status %d, body %q", res.Err, res.Status, res.Body)
	}
	if res.Addr != s.Addr {
		t.Errorf("Result.Addr = %v, want the site's %v", res.Addr, s.Addr)
	}

	vs := r.farm.Audit().VisitsTo("secure.test")
	if got := visitPaths(vs); !slices.Equal(got, []string{"/robots.txt", "/page"}) {
		t.Fatalf("server saw %v, want robots.txt then the page", got)
	}
	for _, v := range vs {
		if v.ProtoMajor != 2 || !v.TLS || v.ServerName != "secure.test" || v.Addr != s.Addr {
			t.Errorf("%s: server saw HTTP/%d, TLS %v, SNI %q on %v; want HTTP/2 over TLS, SNI secure.test, on %v",
				v.Path, v.ProtoMajor, v.TLS, v.ServerName, v.Addr, s.Addr)
		}
	}
	hs := r.farm.Audit().Hellos()
	if len(hs) == 0 {
		t.Fatal("no TLS handshake seen")
	}
	for _, h := range hs {
		if h.ServerName != "secure.test" || h.Addr != s.Addr || h.Cert != politetest.GoodCert || !slices.Contains(h.ALPN, "h2") {
			t.Errorf("handshake %+v: want SNI secure.test on %v, offering h2, given the good certificate", h, s.Addr)
		}
	}
}

// R10.2: without RootCAs only the system's roots are trusted, and the
// farm's CA is not among them: every request to the site fails in the
// handshake with a *tls.CertificateVerificationError naming an unknown
// authority, the page has an error, and the server saw handshakes but no
// request. (How often the fetcher tries is not this test's business.)
func TestTLSWithoutRootCAsTheFarmIsNotTrusted(t *testing.T) {
	r := newFarmRig(t)
	s, err := r.farm.AddSite(politetest.Site{Name: "secure.test", TLS: politetest.GoodCert})
	if err != nil {
		t.Fatal(err)
	}
	var log requestLog
	r.start(polite.Config{OnRequest: log.add})
	u := r.httpsURL("secure.test", "/page")
	r.add(u)
	res := r.results(1)[u]
	if res.Err == nil || res.Status != 0 || len(res.Body) != 0 {
		t.Fatalf("Result: err %v, status %d, body %q; want an error and no response", res.Err, res.Status, res.Body)
	}
	checkVerificationFailures(t, log.all(), func(err error) bool {
		var e x509.UnknownAuthorityError
		return errors.As(err, &e)
	})
	if vs := r.farm.Audit().Visits(); len(vs) != 0 {
		t.Errorf("server saw requests through an untrusted handshake: %v", visitPaths(vs))
	}
	checkHellos(t, r.farm.Audit().Hellos(), s.Addr, map[string]politetest.Cert{"secure.test": politetest.GoodCert})
}

// R10.2: trusting the farm's CA does not make a bad certificate good.
// On one address, shared by a good host and bad ones, the good host's
// page is fetched, and each bad host's fails in the handshake with the
// flaw crypto/x509 names: a certificate for another name, one signed by
// nobody the fetcher trusts, one expired. The server saw the good host's
// requests, and only handshakes of the bad ones, each given its own
// certificate by its SNI name.
func TestTLSBadCertificatesFailEvenWithRootCAs(t *testing.T) {
	r := newFarmRig(t)
	addr, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	flaws := map[string]struct {
		cert politetest.Cert
		is   func(error) bool
	}{
		"wrong.test": {politetest.WrongNameCert, func(err error) bool { var e x509.HostnameError; return errors.As(err, &e) }},
		"self.test":  {politetest.SelfSignedCert, func(err error) bool { var e x509.UnknownAuthorityError; return errors.As(err, &e) }},
		"expired.test": {politetest.ExpiredCert, func(err error) bool {
			var e x509.CertificateInvalidError
			return errors.As(err, &e) && e.Reason == x509.Expired
		}},
	}
	certs := map[string]politetest.Cert{"good.test": politetest.GoodCert}
	r.site(politetest.Site{Name: "good.test", Addr: addr, TLS: politetest.GoodCert})
	for name, fl := range flaws {
		r.site(politetest.Site{Name: name, Addr: addr, TLS: fl.cert})
		certs[name] = fl.cert
	}
	var log requestLog
	r.start(polite.Config{RootCAs: r.farm.CertPool(), OnRequest: log.add})
	var urls []string
	for name := range certs {
		urls = append(urls, r.httpsURL(name, "/page"))
	}
	r.add(urls...)
	results := r.results(len(urls))

	for name := range certs {
		res := results[r.httpsURL(name, "/page")]
		_, bad := flaws[name]
		switch {
		case !bad && (res.Err != nil || res.Status != 200):
			t.Errorf("%s: err %v, status %d; want the page", name, res.Err, res.Status)
		case bad && (res.Err == nil || res.Status != 0):
			t.Errorf("%s: err %v, status %d; want an error and no response", name, res.Err, res.Status)
		}
	}
	byHost := map[string][]polite.RequestEvent{}
	for _, q := range log.all() {
		host := strings.SplitN(strings.TrimPrefix(q.URL, "https://"), ":", 2)[0]
		byHost[host] = append(byHost[host], q)
	}
	for name, fl := range flaws {
		t.Run(name, func(t *testing.T) { checkVerificationFailures(t, byHost[name], fl.is) })
	}
	for _, q := range byHost["good.test"] {
		if q.Err != nil {
			t.Errorf("good.test: %s: %v", q.URL, q.Err)
		}
	}

	for _, v := range r.farm.Audit().Visits() {
		if v.Host != "good.test" || v.ProtoMajor != 2 || v.ServerName != "good.test" {
			t.Errorf("server saw %s%s over HTTP/%d, SNI %q; want only good.test's, over HTTP/2", v.Host, v.Path, v.ProtoMajor, v.ServerName)
		}
	}
	if got := visitPaths(r.farm.Audit().VisitsTo("good.test")); !slices.Equal(got, []string{"/robots.txt", "/page"}) {
		t.Errorf("good.test: server saw %v, want robots.txt then the page", got)
	}
	checkHellos(t, r.farm.Audit().Hellos(), addr, certs)
}

// A fetch that fails in the handshake names the verification failure in
// its Result's error chain, not only in its message: here the host is
// unrestricted (R5.6), so the page is the first and only request, and
// its Result carries that request's error.
func TestTLSVerificationErrorInTheResult(t *testing.T) {
	r := newFarmRig(t)
	r.site(politetest.Site{Name: "expired.test", TLS: politetest.ExpiredCert})
	r.start(polite.Config{RootCAs: r.farm.CertPool(),
		Unrestricted: polite.Unrestricted{Hosts: []string{"expired.test"}, Reason: "a test of the error chain"}})
	u := r.httpsURL("expired.test", "/page")
	r.add(u)
	res := r.results(1)[u]
	var cve *tls.CertificateVerificationError
	var inv x509.CertificateInvalidError
	if !errors.As(res.Err, &cve) || !errors.As(res.Err, &inv) || inv.Reason != x509.Expired {
		t.Errorf("Result.Err = %v (%T); want a *tls.CertificateVerificationError of an expired certificate", res.Err, res.Err)
	}
	if vs := r.farm.Audit().Visits(); len(vs) != 0 {
		t.Errorf("server saw requests through a rejected handshake: %v", visitPaths(vs))
	}
}

// checkVerificationFailures checks that there were requests, and that each
// failed with a *tls.CertificateVerificationError of the flaw is names.
func checkVerificationFailures(t *testing.T, reqs []polite.RequestEvent, is func(error) bool) {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("no request reported")
	}
	for _, q := range reqs {
		var cve *tls.CertificateVerificationError
		if !errors.As(q.Err, &cve) || !is(q.Err) || q.Status != 0 {
			t.Errorf("%s: status %d, err %v; want a *tls.CertificateVerificationError of its flaw", q.URL, q.Status, q.Err)
		}
	}
}

// checkHellos checks that every handshake came to addr and was given the
// certificate of its SNI name, and that each name had one.
func checkHellos(t *testing.T, hs []politetest.Hello, addr netip.Addr, certs map[string]politetest.Cert) {
	t.Helper()
	seen := map[string]bool{}
	for _, h := range hs {
		seen[h.ServerName] = true
		if want, ok := certs[h.ServerName]; !ok || h.Addr != addr || h.Cert != want {
			t.Errorf("handshake for %q on %v was given %v; want %v on %v", h.ServerName, h.Addr, h.Cert, want, addr)
		}
	}
	for name := range certs {
		if !seen[name] {
			t.Errorf("no handshake for %s", name)
		}
	}
}

func visitPaths(vs []politetest.Visit) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Path
	}
	return out
}

// gzipped is b compressed with gzip.
func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// R10.2, R8.1: the body cap is on the decoded bytes. The fetcher sends no
// Accept-Encoding of its own; net/http asks for gzip and decodes it, so a
// page of 1 MiB of zeros in about a kilobyte of gzip is cut at
// MaxBodyBytes of decoded body, and a normal gzip page reads as its text.
// Over plain HTTP/1.1 and over HTTPS, where HTTP/2 decodes by its own path.
func TestGzipBodyCapIsOnDecodedBytes(t *testing.T) {
	const maxBody = 64 << 10
	text := []byte("<!doctype html><title>zipped</title><p>" + strings.Repeat("a page sent with gzip. ", 200) + "</p>\n")
	bomb := make([]byte, 1<<20)
	for _, https := range []bool{false, true} {
		name := map[bool]string{false: "http", true: "https"}[https]
		t.Run(name, func(t *testing.T) {
			r := newFarmRig(t)
			gz := func(b []byte) politetest.Page {
				return politetest.Page{Body: gzipped(t, b), Header: http.Header{
					"Content-Type": {"text/html; charset=utf-8"}, "Content-Encoding": {"gzip"}}}
			}
			tlsCert := map[bool]politetest.Cert{false: politetest.NoTLS, true: politetest.GoodCert}[https]
			r.site(politetest.Site{Name: "zip.test", TLS: tlsCert, Pages: map[string]politetest.Page{"/bomb": gz(bomb), "/text": gz(text)}})
			cfg := polite.Config{MaxBodyBytes: maxBody}
			url := r.url
			if https {
				cfg.RootCAs, url = r.farm.CertPool(), r.httpsURL
			}
			r.start(cfg)
			r.add(url("zip.test", "/bomb"), url("zip.test", "/text"))
			results := r.results(2)

			res := results[url("zip.test", "/bomb")]
			if !errors.Is(res.Err, polite.ErrBodyTooLarge) || !res.Truncated || len(res.Body) != maxBody {
				t.Errorf("bomb: err %v, truncated %v, %d bytes; want ErrBodyTooLarge, truncated at %d decoded bytes",
					res.Err, res.Truncated, len(res.Body), maxBody)
			}
			if !bytes.Equal(res.Body, bomb[:len(res.Body)]) {
				t.Error("bomb: the body is not the decoded zeros")
			}
			res = results[url("zip.test", "/text")]
			if res.Err != nil || res.Truncated || !bytes.Equal(res.Body, text) {
				t.Errorf("text: err %v, truncated %v, body %.60q; want the decoded text", res.Err, res.Truncated, res.Body)
			}
			if ce := res.Header.Get("Content-Encoding"); ce != "" {
				t.Errorf("text: Content-Encoding %q left in the Result: not decoded by net/http", ce)
			}

			for _, v := range r.farm.Audit().VisitsTo("zip.test") {
				if ae := v.Header.Get("Accept-Encoding"); ae != "gzip" {
					t.Errorf("%s: server saw Accept-Encoding %q, want net/http's gzip", v.Path, ae)
				}
				if want := map[bool]int{false: 1, true: 2}[https]; v.ProtoMajor != want {
					t.Errorf("%s: server saw HTTP/%d, want HTTP/%d", v.Path, v.ProtoMajor, want)
				}
			}
		})
	}
}
