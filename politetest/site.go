package politetest

import (
	"errors"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

// Site is one virtual host: a name served on a farm address with scripted
// behaviour. The farm keeps its own copy when the site is added; the Pages
// map is copied too, but Page bodies and headers are shared and must not be
// changed afterwards.
type Site struct {
	// Name is the host name, matched case-insensitively, without a port.
	Name string
	// Addr is the farm address serving the site; zero means a fresh one.
	Addr netip.Addr
	// Latency is waited before answering any request of this site.
	Latency time.Duration
	// Pages holds scripted pages by URL path (r.URL.Path, no query).
	Pages map[string]Page
	// TLS, when not NoTLS, serves the site over HTTPS too, on its
	// address's TLS port (Farm.TLSPort, Farm.HTTPSURL), presenting this
	// certificate to a handshake that names the site.
	TLS Cert
	// Default gives the page for paths not in Pages. Nil means the zero
	// Page: a small 200 HTML page naming the host and path, with a few
	// links to other paths of the same site. It is called from concurrent
	// handlers, so it must be safe for concurrent use.
	Default func(path string) Page
}

// Page is the scripted answer to one path.
type Page struct {
	// Status is the response status; 0 means 200, or 302 when Redirect is set.
	Status int
	// Header holds extra response headers.
	Header http.Header
	// Body is the response body. Nil means a generated one: Size bytes if
	// Size > 0, else the small default page.
	Body []byte
	// Size is the length of the generated body when Body is nil.
	Size int
	// Latency is waited before the status line, after Site.Latency.
	Latency time.Duration
	// BodyDelay makes a slow body: the first half is written and flushed,
	// then BodyDelay is waited, then the rest is written.
	BodyDelay time.Duration
	// Hang writes the headers and half the body, flushes, then blocks until
	// the client goes away or the farm closes: a server that never finishes.
	Hang bool
	// Cut writes the headers, announcing the whole body's length unless
	// Chunked is set, then half the body, and drops the connection: a
	// body cut short.
	Cut bool
	// Drop answers whole, then closes the connection without a word (no
	// Connection: close): a server whose keep-alive ended while the client
	// rested. HTTP/1 only; over HTTP/2 the connection stays.
	Drop bool
	// Chunked sends the body without a Content-Length, in chunks.
	Chunked bool
	// Redirect is the Location header value.
	Redirect string
	// Entered, when set, receives the request's path as the handler
	// starts, so a test knows a request is in flight without waiting.
	Entered chan<- string
	// ETag, when set, is sent with the page, and a request whose
	// If-None-Match names it gets 304 Not Modified with no body.
	ETag string
	// Sequence, when set, scripts successive requests to the path: the
	// n-th request gets Sequence[n], the last one repeating. The Page's
	// own fields are then unused.
	Sequence []Page
	// Gate, when set, holds the answer until it is closed (or the client
	// goes away, or the farm closes): a request kept in flight for as long
	// as a test needs it.
	Gate <-chan struct{}
}

// AddSite registers s.Name on s.Addr, taking a fresh address from NewAddr
// when s.Addr is zero, and adds the name to the resolver. A name already
// registered, an empty name, a name with a port, and an address the farm
// does not listen on are errors. The returned Site is a copy with the
// canonical (lower-case) Name and the Addr filled in; changing it does not
// change the farm. A site with TLS set gives its address a TLS listener if
// it has none yet; a Cert that is not one of the constants is an error.
func (f *Farm) AddSite(s Site) (*Site, error) {
	name := canonHost(s.Name)
	if name == "" || strings.ContainsAny(name, ":/[] ") {
		return nil, fmt.Errorf("politetest: bad site name %q (want a host name without port)", s.Name)
	}
	if s.TLS < NoTLS || s.TLS > ExpiredCert {
		return nil, fmt.Errorf("politetest: site %q: unknown %v", s.Name, s.TLS)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, ErrClosed
	}
	if _, dup := f.sites[name]; dup {
		return nil, fmt.Errorf("politetest: site %q already added", name)
	}
	if !s.Addr.IsValid() {
		a, err := f.newAddrLocked()
		if err != nil {
			return nil, err
		}
		s.Addr = a
	}
	s.Addr = s.Addr.Unmap()
	ep := f.addrs[s.Addr]
	if ep == nil {
		return nil, errors.New("politetest: address " + s.Addr.String() + " is not a farm address (use NewAddr, or MapName for a resolver-only name)")
	}
	if s.TLS != NoTLS {
		if err := f.serveTLSLocked(s.Addr, ep); err != nil {
			return nil, err
		}
	}
	s.Name = name
	stored := s
	stored.Pages = maps.Clone(s.Pages)
	f.sites[name] = &stored
	ep.sites[name] = &stored
	f.res.set(name, s.Addr)
	return &s, nil
}

// page returns the scripted page for path. A site without a scripted
// /robots.txt has none: 404, whatever Default says of its pages, so that
// a Default of errors scripts the pages and not the robots.txt.
func (s *Site) page(path string) Page {
	if p, ok := s.Pages[path]; ok {
		return p
	}
	if path == RobotsPath {
		return Page{Status: http.StatusNotFound, Body: []byte("no robots.txt here\n"),
			Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}}
	}
	if s.Default != nil {
		return s.Default(path)
	}
	return Page{}
}

// RobotsPath is where a site's robots.txt is asked for.
const RobotsPath = "/robots.txt"

// Robots is a Page serving body as a robots.txt.
func Robots(body string) Page {
	return Page{Body: []byte(body), Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}}}
}

// htmlType is the Content-Type of generated bodies.
const htmlType = "text/html; charset=utf-8"

// defaultLinks are the paths a default page links to. The set is small and
// closed so a crawler following links finds a finite site.
var defaultLinks = []string{"/", "/page/1", "/page/2", "/page/3"}

// defaultPage is the small HTML page served when a Page has neither Body
// nor Size: it names the host and path and links to other paths of the site.
func defaultPage(host, path string) []byte {
	var b strings.Builder
	t := html.EscapeString(host + path)
	b.WriteString("<!doctype html>\n<html><head><title>" + t + "</title></head><body>\n<h1>" + t + "</h1>\n")
	for _, l := range defaultLinks {
		if l != path {
			b.WriteString(`<a href="` + l + `">` + l + "</a>\n")
		}
	}
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

// sizedBody is a generated body of exactly n bytes: the default page,
// padded with filler lines or cut short, so large bodies are still HTML-ish.
func sizedBody(host, path string, n int) []byte {
	b := make([]byte, 0, n)
	b = append(b, defaultPage(host, path)...)
	const filler = "<p>filler filler filler filler filler filler filler</p>\n"
	for len(b) < n {
		b = append(b, filler...)
	}
	return b[:n]
}
