package polite_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/netguard"
	"github.com/politecrawler/polite/politetest"
)

// R4.1, R8.1, R8.2: what the server sees is an honest, minimal GET: the
// exact default User-Agent, no From without a contact, an Accept asking for
// HTML, and never a Cookie or Authorization, even after a Set-Cookie.
func TestRequestsAreHonestAndMinimal(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "cookie.test", Default: func(string) politetest.Page {
		return politetest.Page{Header: http.Header{"Set-Cookie": {"session=abc; Path=/"}}}
	}})
	r.start(polite.Config{AllowPrivateNetworks: true})
	r.add(r.pages(h, 3)...)
	r.results(3)
	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Method != http.MethodGet {
			t.Errorf("%s: method %s", v.Path, v.Method)
		}
		if ua := v.Header.Get("User-Agent"); ua != "PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)" {
			t.Errorf("%s: User-Agent %q", v.Path, ua)
		}
		for _, k := range []string{"From", "Cookie", "Authorization", "Referer"} {
			if got := v.Header.Get(k); got != "" {
				t.Errorf("%s: %s: %q sent", v.Path, k, got)
			}
		}
		if a := v.Header.Get("Accept"); a != "text/html,application/xhtml+xml;q=0.9" && v.Path != politetest.RobotsPath {
			t.Errorf("%s: Accept %q", v.Path, a)
		}
	}
}

// R4.2: a contact goes in the User-Agent and in From; a custom name is
// the product token sent.
func TestContactIsSent(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "contact.test"})
	r.start(polite.Config{AllowPrivateNetworks: true, Name: "acme-indexer", Version: "2.0", InfoURL: "https://acme.example/bot", Contact: "bot@acme.example"})
	r.add(r.farm.URL(h, "/"))
	r.results(1)
	v := r.farm.Audit().VisitsTo(h)[0]
	if ua := v.Header.Get("User-Agent"); ua != "acme-indexer/2.0 (+https://acme.example/bot; bot@acme.example)" {
		t.Errorf("User-Agent %q", ua)
	}
	if from := v.Header.Get("From"); from != "bot@acme.example" {
		t.Errorf("From %q", from)
	}
}

// flipResolver answers the first lookup of a name with one address and
// every later one with another, counting lookups: a DNS answer that
// changes between the check and the connection.
type flipResolver struct {
	first, later netip.Addr
	mu           sync.Mutex
	lookups      map[string]int
}

func (f *flipResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups[host]++
	if f.lookups[host] == 1 {
		return []netip.Addr{f.first}, nil
	}
	return []netip.Addr{f.later}, nil
}

// R1.1: a host is resolved once, and every request to it is dialled to
// that address (pinned), whatever the resolver says later.
func TestAddressIsPinned(t *testing.T) {
	r := newFarmRig(t)
	good, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	other, err := r.farm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	h := r.site(politetest.Site{Name: "pinned.test", Addr: good})
	res := &flipResolver{first: good, later: other, lookups: map[string]int{}}
	r.start(polite.Config{AllowPrivateNetworks: true, Resolver: res})
	r.add(r.pages(h, 3)...)
	for u, got := range r.results(3) {
		if got.Err != nil || got.Addr != good {
			t.Errorf("%s: %v via %v", u, got.Err, got.Addr)
		}
	}
	if res.lookups[h] != 1 {
		t.Errorf("%d lookups of %s, want 1", res.lookups[h], h)
	}
	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Addr != good {
			t.Errorf("%s was dialled at %v, not the pinned %v", v.Path, v.Addr, good)
		}
	}
}

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

// R8.1: images, video, fonts and PDFs are not downloaded unless opted in:
// the farm sees each response cut short. An opted-in type is read in full,
// and Accept asks for it.
func TestOnlyPagesAreRead(t *testing.T) {
	typed := func(ct string) politetest.Page {
		return politetest.Page{Size: mediaSize, Header: http.Header{"Content-Type": {ct}}}
	}
	t.Run("html only", func(t *testing.T) { htmlOnly(t, typed) })
	t.Run("opted in", func(t *testing.T) { optedIn(t, typed) })
}

const mediaSize = 16 << 20 // larger than loopback socket buffers: a cut shows

func htmlOnly(t *testing.T, typed func(string) politetest.Page) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "media.test", Pages: map[string]politetest.Page{
		"/photo.jpg":  typed("image/jpeg"),
		"/clip.mp4":   typed("video/mp4"),
		"/font.woff2": typed("font/woff2"),
		"/paper.pdf":  typed("application/pdf"),
		"/sniffed":    {Body: append([]byte("%PDF-1.7\n"), make([]byte, mediaSize)...)}, // no Content-Type: sniffed
		"/page.html":  typed("text/html; charset=utf-8"),
	}})
	r.start(polite.Config{AllowPrivateNetworks: true, MaxBodyBytes: 2 * mediaSize})
	paths := []string{"/photo.jpg", "/clip.mp4", "/font.woff2", "/paper.pdf", "/sniffed", "/page.html"}
	var urls []string
	for _, p := range paths {
		urls = append(urls, r.farm.URL(h, p))
	}
	r.add(urls...)
	res := r.results(len(urls))
	for _, p := range paths[:5] {
		got := res[r.farm.URL(h, p)]
		var te *polite.ContentTypeError
		if !errors.As(got.Err, &te) || !isA[*polite.ContentTypeError](got.Err) || len(got.Body) != 0 {
			t.Errorf("%s: %v, %d bytes", p, got.Err, len(got.Body))
		}
	}
	if page := res[r.farm.URL(h, "/page.html")]; page.Err != nil || len(page.Body) != mediaSize {
		t.Errorf("page.html: %v, %d bytes", page.Err, len(page.Body))
	}
	for _, v := range pageVisits(r.farm.Audit().VisitsTo(h)) {
		full := v.Path == "/page.html"
		if v.Cut == full || (full && v.Written != mediaSize) {
			t.Errorf("%s: farm wrote %d bytes, cut %v", v.Path, v.Written, v.Cut)
		}
	}

}

// Opted in: PDFs are read whole, images by a wildcard; others still not.
func optedIn(t *testing.T, typed func(string) politetest.Page) {
	r2 := newFarmRig(t)
	h2 := r2.site(politetest.Site{Name: "docs.test", Pages: map[string]politetest.Page{
		"/paper.pdf": typed("application/pdf"),
		"/photo.jpg": typed("image/jpeg"),
		"/clip.mp4":  typed("video/mp4"),
	}})
	r2.start(polite.Config{AllowPrivateNetworks: true, MaxBodyBytes: 2 * mediaSize, Types: []string{"application/pdf", "image/*"}})
	pdf, jpg, mp4 := r2.farm.URL(h2, "/paper.pdf"), r2.farm.URL(h2, "/photo.jpg"), r2.farm.URL(h2, "/clip.mp4")
	r2.add(pdf, jpg, mp4)
	res := r2.results(3)
	if res[pdf].Err != nil || len(res[pdf].Body) != mediaSize || res[jpg].Err != nil || len(res[jpg].Body) != mediaSize {
		t.Errorf("opted in: pdf %v %d bytes, jpg %v %d bytes", res[pdf].Err, len(res[pdf].Body), res[jpg].Err, len(res[jpg].Body))
	}
	if !isA[*polite.ContentTypeError](res[mp4].Err) {
		t.Errorf("video without opt-in: %v", res[mp4].Err)
	}
	for _, v := range pageVisits(r2.farm.Audit().VisitsTo(h2)) {
		if want := "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,image/*;q=0.8"; v.Header.Get("Accept") != want {
			t.Errorf("Accept %q, want %q", v.Header.Get("Accept"), want)
		}
	}
	if _, err := polite.New(polite.Config{Types: []string{"pdf"}}); !errors.Is(err, polite.ErrConfig) {
		t.Errorf("a malformed type: %v", err)
	}
}

// R10.2: response headers beyond 64 KiB are not read: the request fails,
// named, as a failure of the host, and the host's next page is fetched.
func TestHugeResponseHeaders(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "fat.test", Pages: map[string]politetest.Page{
		"/fat": {Header: http.Header{"X-Padding": {strings.Repeat("x", 100<<10)}}},
	}})
	r.start(polite.Config{Retries: -1})
	fat, next := r.url(host, "/fat"), r.url(host, "/next")
	r.add(fat, next)
	res := r.results(2)
	if err := res[fat].Err; err == nil || res[fat].Status != 0 || !strings.Contains(err.Error(), "exceeded") || !strings.Contains(err.Error(), fat) {
		t.Errorf("fat headers: status %d, %v; want no response and an error naming the URL and the cap", res[fat].Status, err)
	}
	if res[next].Err != nil {
		t.Errorf("the next page: %v", res[next].Err)
	}
}

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
