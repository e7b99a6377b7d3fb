package htmlpass

import (
	"bytes"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// simpleLink resolves an href written only in the characters most links
// are written in (letters, digits and "-._~/?=&+,;!$*()", no "//"),
// relative to a canonical base or absolute on a canonical host, with
// net/url, which for them writes what the URL parser writes
// (FuzzSimpleLink holds the two together). ok is false for any other
// href, which the parser resolves. The parser costs about 3 µs a link,
// net/url about 1: a page of 100 such links took 296 µs through the
// parser alone, 148 µs so, and 133 µs with net/url for every link before
// the parser came (BenchmarkPageWork/links/relative-links).
func (p *pass) simpleLink(href []byte) (string, bool) {
	if abs, ok := simpleAbsolute(href); ok {
		return abs, true
	}
	if !simpleHref(href) {
		return "", false
	}
	if p.netBase == nil {
		base := p.pageURL
		if p.links != nil {
			var err error
			if base, err = url.Parse(p.links.Base()); err != nil {
				return "", false
			}
		}
		if !canonical(base) || base.Fragment != "" || base.RawQuery != "" && !simpleHref([]byte(base.RawQuery)) ||
			base.RawPath != "" || !plainPath([]byte(base.Path)) {
			return "", false
		}
		p.netBase = base
	}
	ref, err := url.Parse(string(href))
	if err != nil {
		return "", false
	}
	return p.netBase.ResolveReference(ref).String(), true
}

// simpleAbsolute is simpleLink for an absolute http or https href of a
// canonical host ("https://other.example/a/b?c=d"), which needs no base.
func simpleAbsolute(href []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(href, []byte("https://"))
	if !ok {
		if rest, ok = bytes.CutPrefix(href, []byte("http://")); !ok {
			return "", false
		}
	}
	i := bytes.IndexByte(rest, '/')
	if i <= 0 || !simpleHref(rest[i:]) {
		return "", false
	}
	for _, c := range rest[:i] { // the host and port, which canonical checks further
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == ':') {
			return "", false
		}
	}
	u, err := url.Parse(string(href))
	if err != nil || !canonical(u) || u.RawPath != "" || u.Fragment != "" {
		return "", false
	}
	return u.ResolveReference(u).String(), true // its dot segments removed
}

// simpleHref reports an href simpleLink takes.
func simpleHref(href []byte) bool {
	// An empty segment ("//") is read apart by net/url's dot-segment
	// removal ("..//" is "/" there, "//" for the parser).
	if len(href) == 0 || bytes.Contains(href, []byte("//")) {
		return false
	}
	for _, c := range href {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/?=&+,;!$*()", c) >= 0) {
			return false
		}
	}
	return true
}

// canonical reports a page URL whose scheme and authority are already as
// the URL parser writes them: http or https, no user, a host of lower-case
// letters, digits, '-' and '.', and no default port. A fetched page's URL
// is (the fetcher normalises it so); its plain links then need no parser,
// which spares a page of them the parse of its base (BenchmarkPageWork).
func canonical(u *url.URL) bool {
	if u == nil || u.User != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return false
	}
	host, port := u.Host, ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host, port = host[:i], host[i+1:]
		if port == "" || port[0] == '0' || u.Scheme == "http" && port == "80" || u.Scheme == "https" && port == "443" {
			return false
		}
		if n, err := strconv.Atoi(port); err != nil || n > 65535 || port[0] == '+' || port[0] == '-' {
			return false
		}
	}
	// Punycode is checked by the parser, and a host whose last label
	// starts with a digit, or has no letter, may be read as an IPv4
	// address ("127.1").
	if host == "" || host[0] == '.' || strings.Contains(host, "..") || strings.Contains(host, "xn--") {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	last := strings.TrimSuffix(host, ".")
	last = last[strings.LastIndexByte(last, '.')+1:]
	if last == "" || '0' <= last[0] && last[0] <= '9' || strings.Trim(last, "0123456789-") == "" {
		a, err := netip.ParseAddr(host)
		return err == nil && a.Is4() // dotted decimal, as the parser writes it
	}
	return true
}
