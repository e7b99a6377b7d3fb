package politetest

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tlsClient is client with TLS: it trusts roots (nil: the system's) and
// offers HTTP/2 when h2 is set, HTTP/1.1 only otherwise.
func tlsClient(t *testing.T, f *Farm, roots *x509.CertPool, h2 bool) *http.Client {
	t.Helper()
	c := client(t, f, 5*time.Second, netip.Addr{})
	tr := c.Transport.(*http.Transport)
	tr.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if h2 {
		tr.ForceAttemptHTTP2 = true
	} else {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{} // HTTP/1.1 only
	}
	return c
}

// A GoodCert site answers HTTPS on its address's TLS port with a leaf the
// farm's CA signed for its name, over HTTP/2 when the client offers it,
// and plain HTTP on its usual port still; the audit says which.
func TestTLSGoodCert(t *testing.T) {
	f := newFarm(t, nil)
	s := addSite(t, f, Site{Name: "Secure.test", TLS: GoodCert})
	plain := addSite(t, f, Site{Name: "plain.test"})
	if p := f.TLSPort(s.Addr); p == 0 || p == f.Port(s.Addr) {
		t.Fatalf("TLS port %d, plain port %d: want a TLS port of its own", p, f.Port(s.Addr))
	}
	if p := f.TLSPort(plain.Addr); p != 0 {
		t.Errorf("a plain site's address has TLS port %d, want none", p)
	}
	u := f.HTTPSURL("secure.test", "/x")
	if want := "https://secure.test:" + strconv.Itoa(f.TLSPort(s.Addr)) + "/x"; u != want {
		t.Errorf("HTTPSURL = %q, want %q", u, want)
	}

	resp, body := get(t, tlsClient(t, f, f.CertPool(), true), u)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "secure.test/x") {
		t.Errorf("status %d, body %q", resp.StatusCode, body)
	}
	if resp.ProtoMajor != 2 || resp.TLS == nil || resp.TLS.NegotiatedProtocol != "h2" {
		t.Errorf("client saw %s, ALPN %v: want HTTP/2 by h2", resp.Proto, resp.TLS)
	}
	if cn := resp.TLS.PeerCertificates[0].Subject.CommonName; cn != "secure.test" {
		t.Errorf("leaf for %q, want secure.test", cn)
	}
	resp, _ = get(t, tlsClient(t, f, f.CertPool(), false), u)
	if resp.ProtoMajor != 1 {
		t.Errorf("an HTTP/1.1-only client got %s", resp.Proto)
	}
	resp, _ = get(t, client(t, f, 5*time.Second, netip.Addr{}), f.URL("secure.test", "/plain"))
	if resp.StatusCode != 200 || resp.TLS != nil {
		t.Errorf("plain HTTP to a TLS site: status %d, TLS %v", resp.StatusCode, resp.TLS)
	}

	vs := f.Audit().VisitsTo("secure.test")
	if len(vs) != 3 {
		t.Fatalf("%d visits, want 3: %+v", len(vs), vs)
	}
	for i, want := range []struct {
		major int
		tls   bool
		sni   string
	}{{2, true, "secure.test"}, {1, true, "secure.test"}, {1, false, ""}} {
		v := vs[i]
		if v.ProtoMajor != want.major || v.TLS != want.tls || v.ServerName != want.sni || v.Addr != s.Addr {
			t.Errorf("visit %d %s: HTTP/%d, TLS %v, SNI %q on %v; want HTTP/%d, TLS %v, SNI %q on %v",
				i, v.Path, v.ProtoMajor, v.TLS, v.ServerName, v.Addr, want.major, want.tls, want.sni, s.Addr)
		}
	}
	hs := f.Audit().Hellos()
	if len(hs) != 2 {
		t.Fatalf("%d handshakes, want 2: %+v", len(hs), hs)
	}
	if h := hs[0]; h.Addr != s.Addr || h.ServerName != "secure.test" || h.Cert != GoodCert || !slices.Contains(h.ALPN, "h2") {
		t.Errorf("first handshake %+v", h)
	}
	if h := hs[1]; slices.Contains(h.ALPN, "h2") {
		t.Errorf("the HTTP/1.1 client's handshake offered %v", h.ALPN)
	}
	f.Audit().Reset()
	if hs := f.Audit().Hellos(); len(hs) != 0 {
		t.Errorf("Reset left %d handshakes", len(hs))
	}
}

// Each name on one address gets its own certificate: a good host shares
// an address with a wrong-name, a self-signed and an expired one. The
// client refuses each bad one with the error crypto/x509 gives that flaw;
// the farm sees the handshake, with the name and the certificate it
// presented, and no request.
func TestTLSBadCertsShareAnAddress(t *testing.T) {
	f := newFarm(t, nil)
	addr, err := f.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	addSite(t, f, Site{Name: "good.test", Addr: addr, TLS: GoodCert})
	type badCase struct {
		cert Cert
		is   func(error) bool // the flaw crypto/x509 names
	}
	bad := map[string]badCase{
		"wrong.test": {WrongNameCert, func(err error) bool { var e x509.HostnameError; return errors.As(err, &e) }},
		"self.test":  {SelfSignedCert, func(err error) bool { var e x509.UnknownAuthorityError; return errors.As(err, &e) }},
		"expired.test": {ExpiredCert, func(err error) bool {
			var e x509.CertificateInvalidError
			return errors.As(err, &e) && e.Reason == x509.Expired
		}},
	}
	for name, b := range bad {
		addSite(t, f, Site{Name: name, Addr: addr, TLS: b.cert})
	}
	c := tlsClient(t, f, f.CertPool(), true)
	for _, name := range []string{"good.test", "wrong.test", "self.test", "expired.test", "good.test"} {
		resp, err := c.Get(f.HTTPSURL(name, "/"))
		b, isBad := bad[name]
		if !isBad {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			resp.Body.Close()
			if resp.ProtoMajor != 2 {
				t.Errorf("%s: %s", name, resp.Proto)
			}
			continue
		}
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s (%v): fetched, want a verification error", name, b.cert)
			continue
		}
		var cve *tls.CertificateVerificationError
		if !errors.As(err, &cve) || !b.is(err) {
			t.Errorf("%s (%v): err = %v (%T), want a *tls.CertificateVerificationError of its flaw", name, b.cert, err, err)
		}
	}

	if n := len(f.Audit().Visits()); n != 2 {
		t.Errorf("%d visits, want the good host's 2: %+v", n, f.Audit().Visits())
	}
	want := map[string]Cert{"good.test": GoodCert, "wrong.test": WrongNameCert, "self.test": SelfSignedCert, "expired.test": ExpiredCert}
	seen := map[string]int{}
	for _, h := range f.Audit().Hellos() {
		seen[h.ServerName]++
		if h.Addr != addr || h.Cert != want[h.ServerName] {
			t.Errorf("handshake for %q on %v presented %v, want %v on %v", h.ServerName, h.Addr, h.Cert, want[h.ServerName], addr)
		}
	}
	for name := range want {
		if seen[name] == 0 {
			t.Errorf("no handshake for %s", name)
		}
	}
}

// A handshake for a name the address does not serve over TLS, or for no
// name, fails on the farm's side; the audit records it with no certificate.
func TestTLSNoSuchSite(t *testing.T) {
	f := newFarm(t, nil)
	s := addSite(t, f, Site{Name: "tls.test", TLS: GoodCert})
	addSite(t, f, Site{Name: "plain.test", Addr: s.Addr})
	port := strconv.Itoa(f.TLSPort(s.Addr))
	for _, name := range []string{"plain.test", "elsewhere.test", ""} {
		conn, err := net.Dial("tcp", net.JoinHostPort(s.Addr.String(), port))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		tc := tls.Client(conn, &tls.Config{ServerName: name, RootCAs: f.CertPool(), InsecureSkipVerify: name == ""})
		if err := tc.Handshake(); err == nil {
			t.Errorf("SNI %q: handshake succeeded", name)
		}
		tc.Close()
	}
	hs := f.Audit().Hellos()
	if len(hs) != 3 {
		t.Fatalf("%d handshakes, want 3: %+v", len(hs), hs)
	}
	for i, name := range []string{"plain.test", "elsewhere.test", ""} {
		if hs[i].ServerName != name || hs[i].Cert != NoTLS {
			t.Errorf("handshake %d: %+v, want SNI %q and no certificate", i, hs[i], name)
		}
	}
	if _, err := f.AddSite(Site{Name: "odd.test", TLS: ExpiredCert + 1}); err == nil {
		t.Error("a site with an unknown Cert was added")
	}
}

// After ShareOneListener, one TLS listener serves every address's TLS
// sites, each on its own address, and answers no other address.
func TestTLSShareOneListener(t *testing.T) {
	f := newFarm(t, nil)
	if err := f.ShareOneListener(); err != nil {
		t.Fatal(err)
	}
	a := addSite(t, f, Site{Name: "a.test", TLS: GoodCert})
	b := addSite(t, f, Site{Name: "b.test", TLS: GoodCert})
	if a.Addr == b.Addr || f.TLSPort(a.Addr) == 0 || f.TLSPort(a.Addr) != f.TLSPort(b.Addr) || f.TLSPort(a.Addr) == f.Port(a.Addr) {
		t.Fatalf("addresses %v, %v on TLS ports %d, %d (plain %d): want two addresses on one TLS port",
			a.Addr, b.Addr, f.TLSPort(a.Addr), f.TLSPort(b.Addr), f.Port(a.Addr))
	}
	c := tlsClient(t, f, f.CertPool(), true)
	for _, s := range []*Site{a, b} {
		resp, body := get(t, c, f.HTTPSURL(s.Name, "/x"))
		if resp.StatusCode != 200 || resp.ProtoMajor != 2 || !strings.Contains(string(body), s.Name+"/x") {
			t.Errorf("%s: %s %d, body %q", s.Name, resp.Proto, resp.StatusCode, body)
		}
	}
	for _, v := range f.Audit().Visits() {
		if want := map[string]netip.Addr{"a.test": a.Addr, "b.test": b.Addr}[v.Host]; v.Addr != want || !v.TLS {
			t.Errorf("visit to %s audited on %v (TLS %v), want %v over TLS", v.Host, v.Addr, v.TLS, want)
		}
	}
	conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(f.TLSPort(a.Addr))))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	tc := tls.Client(conn, &tls.Config{ServerName: "a.test", RootCAs: f.CertPool()})
	if err := tc.Handshake(); err == nil {
		t.Error("a TLS connection to 127.0.0.1 was answered")
	}
	if n := len(f.Audit().Hellos()); n != 2 {
		t.Errorf("%d handshakes after the stranger's, want 2", n)
	}
}
