package politetest

// HTTPS for the farm's sites. A site whose TLS field is set is served over
// TLS as well as plain HTTP: on its address, on a second port (TLSPort),
// as a real server would serve ports 80 and 443 of one address. The TLS
// listener of an address is made when its first TLS site is added, so a
// farm of plain sites costs what it did. After ShareOneListener, one
// shared TLS listener serves every address, as the plain one does.
//
// The certificate a handshake gets is picked by the address dialled and
// the name the client sent (SNI): each site on an address has its own
// choice of Cert, so a good host and a bad one can share an address. The
// server offers HTTP/2 and HTTP/1.1 by ALPN. Certificates are made at run
// time from a CA of the farm's own (ECDSA P-256); nothing is checked in.
// Their validity is on the wall clock, whatever the farm's clock: a TLS
// client checks expiry against time.Now.

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// Cert is the certificate a site presents to a TLS client (Site.TLS).
type Cert int

const (
	// NoTLS, the zero value: the site is served over plain HTTP only, and
	// a TLS handshake for its name fails.
	NoTLS Cert = iota
	// GoodCert is a leaf for the site's name, signed by the farm's CA
	// (CertPool), valid now.
	GoodCert
	// WrongNameCert is a leaf signed by the farm's CA, valid now, for
	// another name ("not-" and the site's name): a name mismatch.
	WrongNameCert
	// SelfSignedCert is a leaf for the site's name, valid now, signed by
	// its own key: a certificate of an authority nobody trusts.
	SelfSignedCert
	// ExpiredCert is a leaf for the site's name, signed by the farm's CA,
	// that expired an hour ago.
	ExpiredCert
)

var certNames = [...]string{"NoTLS", "GoodCert", "WrongNameCert", "SelfSignedCert", "ExpiredCert"}

// String returns the constant's name.
func (c Cert) String() string {
	if c >= 0 && int(c) < len(certNames) {
		return certNames[c]
	}
	return "Cert(" + strconv.Itoa(int(c)) + ")"
}

// Hello is a TLS handshake as the farm saw it: the ClientHello, and the
// certificate the farm presented for it. A handshake whose certificate the
// client rejects ends here, before any request: it has a Hello and no
// Visit.
type Hello struct {
	Addr       netip.Addr // the farm address dialled
	ServerName string     // the SNI name, lower-case; empty when the client sent none
	ALPN       []string   // the protocols the client offered
	// Cert is the certificate presented; NoTLS when there was none (no
	// site of that name on Addr, or one without TLS) and the handshake
	// failed on the farm's side.
	Cert Cert
	Time time.Time // farm clock
}

// CertPool returns a new pool holding the farm's CA, the one that signs
// GoodCert, WrongNameCert and ExpiredCert leaves: what a client must trust
// to talk to the farm's good sites. The CA is made on first use.
func (f *Farm) CertPool() *x509.CertPool {
	return f.pki.get().pool.Clone()
}

// TLSPort returns the TLS listening port of addr, or 0 if no TLS site has
// been added on addr.
func (f *Farm) TLSPort(addr netip.Addr) int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if ep := f.addrs[addr.Unmap()]; ep != nil {
		return ep.tlsPort
	}
	return 0
}

// HTTPSURL returns "https://<name>:<port><path>", where port is the TLS
// port of the address name resolves to. The port is left out when that
// address has no TLS listener or is not the farm's.
func (f *Farm) HTTPSURL(name, path string) string { return f.siteURL("https", f.TLSPort, name, path) }

// serveTLSLocked gives ep, the endpoint of addr, a TLS port, if it has
// none: a listener of its own, or the shared TLS listener when ep is
// served through the shared plain one. f.mu is held for writing.
func (f *Farm) serveTLSLocked(addr netip.Addr, ep *endpoint) error {
	if ep.tlsPort != 0 {
		return nil
	}
	if ep.ln == nil { // after ShareOneListener
		if f.sharedTLS == nil {
			ln, err := net.Listen("tcp4", "0.0.0.0:0")
			if err != nil {
				return fmt.Errorf("politetest: listen for TLS on all addresses: %w", err)
			}
			f.sharedTLS = &endpoint{ln: ln, port: ln.Addr().(*net.TCPAddr).Port}
			f.serveLocked(tls.NewListener(farmOnly{ln, f}, f.tlsConfig()))
		}
		ep.tlsPort = f.sharedTLS.port
		return nil
	}
	ln, err := net.Listen("tcp", netip.AddrPortFrom(addr, 0).String())
	if err != nil {
		return fmt.Errorf("politetest: listen for TLS on %v: %w", addr, err)
	}
	ep.tlsLn, ep.tlsPort = ln, ln.Addr().(*net.TCPAddr).Port
	f.serveLocked(tls.NewListener(ln, f.tlsConfig()))
	return nil
}

// serveLocked runs the farm's server on ln until Close. f.mu is held, with
// closed false, so Close's Wait cannot race the Add.
func (f *Farm) serveLocked(ln net.Listener) {
	f.serving.Add(1)
	go func() {
		defer f.serving.Done()
		// Serve returns http.ErrServerClosed or a listener error on Close.
		_ = f.srv.Serve(ln)
	}()
}

// tlsConfig is the server side of every TLS listener: HTTP/2 first by
// ALPN (http.Server serves an "h2" *tls.Conn itself, since the Server has
// no TLSConfig of its own), and the leaf picked per handshake.
func (f *Farm) tlsConfig() *tls.Config {
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		NextProtos:     []string{"h2", "http/1.1"},
		GetCertificate: f.certificate,
	}
}

// certificate picks the leaf for a handshake by the address dialled and
// the SNI name, and records the handshake in the audit.
func (f *Farm) certificate(hi *tls.ClientHelloInfo) (*tls.Certificate, error) {
	var addr netip.Addr
	if ap, err := netip.ParseAddrPort(hi.Conn.LocalAddr().String()); err == nil {
		addr = ap.Addr().Unmap()
	}
	name := canonHost(hi.ServerName)
	kind := NoTLS
	f.mu.RLock()
	if ep := f.addrs[addr]; ep != nil {
		if s := ep.sites[name]; s != nil {
			kind = s.TLS
		}
	}
	f.mu.RUnlock()
	f.audit.hello(Hello{Addr: addr, ServerName: name, ALPN: append([]string(nil), hi.SupportedProtos...), Cert: kind})
	if kind == NoTLS {
		return nil, fmt.Errorf("politetest: no TLS site %q on %v", name, addr)
	}
	return f.pki.leaf(name, kind)
}

// quietHandshakes is the farm server's error log: the standard logger's
// output without the lines of TLS handshakes a client gave up on. A
// client that rejects a bad certificate is what a bad site is for, and the
// audit has each handshake (Hellos); anything else the server logs, such
// as a handler's panic, still shows.
type quietHandshakes struct{}

func (quietHandshakes) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("http: TLS handshake error")) {
		return len(p), nil
	}
	return log.Writer().Write(p)
}

// pki is the farm's CA and the leaves it has made, one per name and kind.
type pki struct {
	get func() *authority // made on first use

	mu     sync.Mutex
	leaves map[leafID]*tls.Certificate
}

type leafID struct {
	name string
	kind Cert
}

// authority is the farm's CA, and the one key every leaf uses: a leaf's
// key proves nothing here, and one key spares a key generation per leaf.
type authority struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	pool    *x509.CertPool
	leafKey *ecdsa.PrivateKey
}

func newPKI() *pki {
	return &pki{get: sync.OnceValue(newAuthority), leaves: make(map[leafID]*tls.Certificate)}
}

// certLife is how long the CA and the good leaves are valid, from an hour
// before they are made: far longer than any farm lives.
const certLife = 30 * 24 * time.Hour

func newAuthority() *authority {
	key := mustKey()
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "polite test farm CA", Organization: []string{"polite test farm"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certLife),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic("politetest: making the CA: " + err.Error()) // a fixed, valid template
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		panic("politetest: reading the CA: " + err.Error())
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &authority{cert: cert, key: key, pool: pool, leafKey: mustKey()}
}

// leaf returns the certificate of the given kind for name, made on first
// use and kept for the farm's life.
func (p *pki) leaf(name string, kind Cert) (*tls.Certificate, error) {
	id := leafID{name, kind}
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.leaves[id]; c != nil {
		return c, nil
	}
	ca := p.get()
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name},
		DNSNames:     []string{name},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certLife),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	parent, signer := ca.cert, ca.key
	switch kind {
	case GoodCert:
	case WrongNameCert:
		tmpl.Subject.CommonName = "not-" + name
		tmpl.DNSNames = []string{"not-" + name}
	case SelfSignedCert:
		parent, signer = tmpl, ca.leafKey
	case ExpiredCert:
		tmpl.NotBefore, tmpl.NotAfter = now.Add(-48*time.Hour), now.Add(-time.Hour)
	default:
		return nil, errors.New("politetest: unknown Cert " + kind.String())
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &ca.leafKey.PublicKey, signer)
	if err != nil {
		return nil, fmt.Errorf("politetest: making a %v for %q: %w", kind, name, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("politetest: reading a %v for %q: %w", kind, name, err)
	}
	c := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: ca.leafKey, Leaf: leaf}
	p.leaves[id] = c
	return c, nil
}

func mustKey() *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic("politetest: generating a key: " + err.Error()) // crypto/rand does not fail
	}
	return key
}

// serial is a random 128-bit certificate serial number.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		panic("politetest: a serial number: " + err.Error())
	}
	return n
}
