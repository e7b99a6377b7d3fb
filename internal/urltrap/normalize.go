package urltrap

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Normalize returns the one spelling of an absolute http or https URL
// under which the fetcher knows it, so that the many ways a site writes a
// link collapse to one queue entry. It
//
//   - lower-cases the scheme and the host, decodes escaped UTF-8 in a
//     host name and writes an IDN host as IDNA A-labels ("xn--…"), drops a trailing dot from the host and the
//     default port (:80 for http, :443 for https), writes an IPv6
//     host in its RFC 5952 form, and a host that ends in a number as the
//     IPv4 address a browser reads in it ("2130706433", "0x7f.1" and
//     "127.0.0.01" are "127.0.0.1"; one it cannot read is refused): one
//     host, one spelling (Host gives it for a bare name);
//   - removes dot segments (RFC 3986 §5.2.4) and writes an empty path as
//     "/";
//   - drops the fragment, which never reaches the server;
//   - writes percent-escapes with upper-case hex, decodes those of
//     unreserved characters (ALPHA DIGIT - . _ ~), keeps reserved ones
//     encoded as written, and encodes bytes a URL may not hold raw
//     (space, non-ASCII, "<>\^`{|}[]" in path and query);
//   - strips session ids: path parameters (";jsessionid=…") and query
//     parameters whose name is, in any case, jsessionid, phpsessid, sid,
//     sessionid, session_id, sessid, cfid, cftoken, zenid, oscsid or
//     aspsessionid followed by anything, keeping the other query
//     parameters in their order; empty query parameters and an empty "?"
//     go too.
//
// Leading and trailing whitespace is trimmed, as browsers do with an
// href. Normalize refuses (with an error wrapping ErrNotHTTP, ErrNoHost,
// ErrUserinfo or ErrMalformed) other schemes, URLs without a host, URLs
// with user info, control characters, bad percent-escapes, bad hosts and
// bad ports: the fetcher could not or must not request them.
//
// The result is ASCII, what goes on the wire: a URL given as an IRI
// ("http://пример.example/путь?q=слово") has its host in A-labels and its
// path and query in percent-encoded UTF-8, and raw bytes that are not UTF-8
// are percent-encoded as they are. (A link's query, which its page may
// encode in a legacy encoding, is internal/weburl's to encode.)
//
// Normalize is idempotent: Normalize(Normalize(x)) == Normalize(x). An
// already normal URL is returned as the same string.
func Normalize(raw string) (string, error) {
	s := TrimSpace(raw)
	// The fragment is the browser's, never sent; whatever it holds, even
	// a malformed escape, cannot make the URL unfetchable.
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	colon := strings.IndexByte(s, ':')
	if colon <= 0 {
		return "", fmt.Errorf("%w: no scheme", ErrMalformed)
	}
	scheme := s[:colon]
	var https bool
	switch {
	case strings.EqualFold(scheme, "http"):
	case strings.EqualFold(scheme, "https"):
		https = true
	default:
		return "", fmt.Errorf("%w: scheme %q", ErrNotHTTP, clip(scheme))
	}
	rest, ok := strings.CutPrefix(s[colon+1:], "//")
	if !ok {
		return "", fmt.Errorf("%w: no // after scheme %s", ErrNoHost, scheme)
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	authority, rest := rest[:end], rest[end:]
	path, query, hasQuery := strings.Cut(rest, "?")

	// One buffer, sized for the common case in which nothing grows.
	b := make([]byte, 0, len(s)+1)
	if https {
		b = append(b, "https://"...)
	} else {
		b = append(b, "http://"...)
	}
	var err error
	if b, err = appendAuthority(b, authority, https); err != nil {
		return "", err
	}
	if b, err = appendPath(b, path); err != nil {
		return "", err
	}
	if hasQuery {
		if b, err = appendQuery(b, query); err != nil {
			return "", err
		}
	}
	if string(b) == raw {
		return raw, nil // no second copy for a URL that was already normal
	}
	return string(b), nil
}

// TrimSpace trims ASCII whitespace and other C0 controls from both ends,
// what the URL Standard does to an href before parsing it.
func TrimSpace(s string) string {
	for len(s) > 0 && s[0] <= ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] <= ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// clip keeps error messages short when a stranger's URL is huge.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// appendAuthority appends the normalised host[:port].
func appendAuthority(dst []byte, a string, https bool) ([]byte, error) {
	if a == "" {
		return nil, ErrNoHost
	}
	if strings.IndexByte(a, '@') >= 0 {
		return nil, ErrUserinfo
	}
	var port string
	if a[0] == '[' {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return nil, fmt.Errorf("%w: unclosed [ in host", ErrMalformed)
		}
		lit, after := a[1:end], a[end+1:]
		if after != "" {
			p, ok := strings.CutPrefix(after, ":")
			if !ok {
				return nil, fmt.Errorf("%w: %q after IPv6 host", ErrMalformed, clip(after))
			}
			port = p
		}
		// A zone names an interface of the machine that wrote the link;
		// it means nothing here, and the addresses that have one are
		// link-local, which the fetcher does not dial anyway (R10.1).
		if strings.IndexByte(lit, '%') >= 0 {
			return nil, fmt.Errorf("%w: IPv6 zone in host", ErrMalformed)
		}
		addr, err := netip.ParseAddr(lit)
		if err != nil || !addr.Is6() {
			return nil, fmt.Errorf("%w: bad IPv6 host %q", ErrMalformed, clip(lit))
		}
		dst = append(dst, '[')
		dst = addr.AppendTo(dst) // RFC 5952: lower case, zeros compressed
		dst = append(dst, ']')
	} else {
		host := a
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			host, port = a[:i], a[i+1:]
		}
		// "example.com." is the same host to DNS; one spelling keeps one
		// politeness budget and one robots.txt for it.
		host = strings.TrimSuffix(host, ".")
		var err error
		if dst, err = appendHost(dst, host); err != nil {
			return nil, err
		}
	}
	return appendPort(dst, port, https)
}

// Host returns the one spelling of a bare host name (a registered name
// or an IPv4 address, without port or brackets): the spelling Normalize
// writes in a URL, so a host named in a configuration and a host read off
// a normalised URL compare equal. It refuses what Normalize refuses in a
// host, with an error wrapping ErrNoHost or ErrMalformed.
func Host(name string) (string, error) {
	b, err := appendHost(nil, strings.TrimSuffix(name, "."))
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// appendHost appends a registered name or IPv4 address in its one
// spelling: lower case, and an IDN as IDNA A-labels ("bücher.example" is
// written "xn--bcher-kva.example"), the name DNS is asked for and the one
// net/http would send. Escaped UTF-8 in it is decoded first. The
// caller has dropped a trailing dot. A host that
// is not a valid IDN (UTS #46 with the idna.Lookup profile, as net/http
// converts one) is ErrMalformed.
func appendHost(dst []byte, host string) ([]byte, error) {
	if host == "" {
		return nil, ErrNoHost
	}
	if strings.IndexByte(host, '%') >= 0 {
		var err error
		if host, err = unescapeHost(host); err != nil {
			return nil, err
		}
	}
	for i := 0; i < len(host); i++ {
		if host[i] >= utf8.RuneSelf {
			a, err := toALabels(host)
			if err != nil {
				return nil, err
			}
			host = a
			break
		}
	}
	return appendASCIIHost(dst, host)
}

// unescapeHost decodes the percent-escapes of non-ASCII bytes in a
// registered name: net/url writes a Unicode host so
// ("b%C3%BCcher.example"), as when a redirect's Location is resolved
// against its base, and reads it back. An escaped ASCII byte is refused,
// as net/url refuses it.
func unescapeHost(host string) (string, error) {
	b := make([]byte, 0, len(host))
	for i := 0; i < len(host); i++ {
		c := host[i]
		if c == '%' {
			if i+2 >= len(host) || unhex(host[i+1]) < 0 || unhex(host[i+2]) < 0 {
				return "", fmt.Errorf("%w: bad escape %q in host", ErrMalformed, clip(host[i:min(i+3, len(host))]))
			}
			if c = byte(unhex(host[i+1])<<4 | unhex(host[i+2])); c < utf8.RuneSelf {
				return "", fmt.Errorf("%w: escaped ASCII %q in host", ErrMalformed, host[i:i+3])
			}
			i += 2
		}
		b = append(b, c)
	}
	return string(b), nil
}

// toALabels converts a host with non-ASCII letters to A-labels. The
// Lookup profile is the one for names being looked up (RFC 5891 §5), not
// registered, and the one net/http applies to a Unicode host: the name
// resolved and the name sent stay one. Its mapping (UTS #46) lower-cases,
// and turns the ideographic full stop and its kin into '.', so the result
// may end in a dot again: dropped, as the ASCII one was.
func toALabels(host string) (string, error) {
	if !utf8.ValidString(host) {
		return "", fmt.Errorf("%w: host is not UTF-8", ErrMalformed)
	}
	a, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("%w: IDN host %q: %v", ErrMalformed, clip(host), err)
	}
	return strings.TrimSuffix(a, "."), nil
}

// aceMark begins an A-label (RFC 5890 §2.3.2.1).
var aceMark = []byte("xn--")

// appendASCIIHost appends an ASCII registered name or IPv4 address,
// lower-cased. Letters, digits, '-', '_' and '.' are what DNS names hold
// ('_' does occur in the wild, so it is not held to the STD3 rules of
// IDNA). A label written as an A-label ("xn--…") must be one, so that
// only valid IDNs pass in either spelling. Checked the same way whether
// the host came in ASCII or was converted, the result is its own normal
// form: Normalize stays idempotent.
func appendASCIIHost(dst []byte, host string) ([]byte, error) {
	if host == "" {
		return nil, ErrNoHost // "。" maps to the dot just dropped
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
		case c == '.':
			if i == 0 || host[i-1] == '.' || i == len(host)-1 {
				return nil, fmt.Errorf("%w: empty label in host %q", ErrMalformed, clip(host))
			}
		default:
			return nil, fmt.Errorf("%w: byte %q in host", ErrMalformed, c)
		}
	}
	if endsInNumber(host) { // an address, as a browser reads it (ipv4.go)
		a, err := parseIPv4(host)
		if err != nil {
			return nil, err
		}
		return a.AppendTo(dst), nil
	}
	start := len(dst)
	for i := 0; i < len(host); i++ {
		dst = append(dst, lower(host[i]))
	}
	if h := dst[start:]; bytes.Contains(h, aceMark) {
		for label := range strings.SplitSeq(string(h), ".") {
			if strings.HasPrefix(label, "xn--") {
				if _, err := idna.Lookup.ToUnicode(label); err != nil {
					return nil, fmt.Errorf("%w: bad A-label %q in host: %v", ErrMalformed, clip(label), err)
				}
			}
		}
	}
	return dst, nil
}

// appendPort appends ":port" unless it is empty or the scheme's default.
func appendPort(dst []byte, port string, https bool) ([]byte, error) {
	if port == "" {
		return dst, nil // "host:" is "host" (RFC 3986 §6.2.3)
	}
	n := 0
	for i := 0; i < len(port); i++ {
		c := port[i]
		if c < '0' || c > '9' {
			return nil, fmt.Errorf("%w: port %q", ErrMalformed, clip(port))
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return nil, fmt.Errorf("%w: port %q", ErrMalformed, clip(port))
		}
	}
	switch {
	case n == 0:
		return nil, fmt.Errorf("%w: port 0", ErrMalformed)
	case n == 80 && !https, n == 443 && https:
		return dst, nil
	}
	// Written from the number, so "0080" and "80" are one port.
	var digits [5]byte
	i := len(digits)
	for ; n > 0; n /= 10 {
		i--
		digits[i] = byte('0' + n%10)
	}
	dst = append(dst, ':')
	return append(dst, digits[i:]...), nil
}

// appendPath appends the normalised path: each segment's escapes
// normalised, session parameters stripped, dot segments removed. The
// order matters for idempotence: "%2E%2E" and "..;jsessionid=1" are dot
// segments once decoded and stripped, so they are removed in the same
// pass rather than left for a second Normalize to find.
func appendPath(dst []byte, path string) ([]byte, error) {
	base := len(dst)
	if path == "" {
		return append(dst, '/'), nil
	}
	// path starts with '/': the authority ended at the first '/' or '?'.
	segs := path[1:]
	endsInDot := false
	for {
		seg, more, next := nextSegment(segs)
		mark := len(dst)
		dst = append(dst, '/')
		var err error
		if dst, err = appendEscaped(dst, seg, false); err != nil {
			return nil, err
		}
		dst = stripSessionParams(dst, mark+1)
		endsInDot = false
		switch string(dst[mark+1:]) {
		case ".":
			dst = dst[:mark]
			endsInDot = true
		case "..":
			dst = dst[:mark]
			// Pop the previous segment with its '/'; at the root there is
			// none, and ".." above the root stays at the root.
			for len(dst) > base && dst[len(dst)-1] != '/' {
				dst = dst[:len(dst)-1]
			}
			if len(dst) > base {
				dst = dst[:len(dst)-1]
			}
			endsInDot = true
		}
		if !more {
			break
		}
		segs = next
	}
	// "/a/b/.." is the directory "/a/", not the file "/a".
	if endsInDot || len(dst) == base {
		dst = append(dst, '/')
	}
	return dst, nil
}

// nextSegment splits s at its first '/'.
func nextSegment(s string) (seg string, more bool, rest string) {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i], true, s[i+1:]
	}
	return s, false, ""
}

// stripSessionParams removes, in place, the ";name=value" parameters of
// the segment dst[start:] whose name is a session name (";jsessionid=…"
// is how Tomcat and others carry a session when there are no cookies, and
// this fetcher sends none). The segment's own name before the first ';'
// is kept whatever it is: "/sid/" is a directory, not a session.
func stripSessionParams(dst []byte, start int) []byte {
	seg := dst[start:]
	semi := -1
	for i, c := range seg {
		if c == ';' {
			semi = i
			break
		}
	}
	if semi < 0 {
		return dst
	}
	w := semi // write cursor; never passes the read cursor
	for r := semi; r < len(seg); {
		end := r + 1
		for end < len(seg) && seg[end] != ';' {
			end++
		}
		param := seg[r+1 : end] // without its ';'
		if !isSessionName(paramName(param)) {
			w += copy(seg[w:], seg[r:end])
		}
		r = end
	}
	return dst[:start+w]
}

// appendQuery appends "?query" with escapes normalised, session and empty
// parameters dropped and the rest in their order; nothing at all when no
// parameter is left. Parameters are split at raw '&' only: an encoded
// "%26" stays encoded, so it never splits one.
func appendQuery(dst []byte, q string) ([]byte, error) {
	mark := len(dst)
	dst = append(dst, '?')
	kept := 0
	for {
		piece, rest, more := strings.Cut(q, "&")
		pm := len(dst)
		if kept > 0 {
			dst = append(dst, '&')
		}
		start := len(dst)
		var err error
		if dst, err = appendEscaped(dst, piece, true); err != nil {
			return nil, err
		}
		if p := dst[start:]; len(p) == 0 || isSessionName(paramName(p)) {
			dst = dst[:pm]
		} else {
			kept++
		}
		if !more {
			break
		}
		q = rest
	}
	if kept == 0 {
		dst = dst[:mark]
	}
	return dst, nil
}

// paramName is the part of a parameter before its '='.
func paramName(p []byte) []byte {
	for i, c := range p {
		if c == '=' {
			return p[:i]
		}
	}
	return p
}

// sessionNames are parameter names that carry a session id in the wild:
// Java servlets, PHP, generic CMSs, ColdFusion (cfid, cftoken), Zen Cart,
// osCommerce. "s" is left out: too many sites use it for a search query.
// "sid" stays, though a few sites use it for a story id: it is named in
// R9.1, and a session sid is the commoner and the costlier to miss.
var sessionNames = [...]string{
	"jsessionid", "phpsessid", "sid", "sessionid", "session_id",
	"sessid", "cfid", "cftoken", "zenid", "oscsid",
}

// isSessionName reports whether a parameter name (already normalised, so
// unreserved characters are decoded) names a session id, ignoring case.
// Classic ASP names its cookie ASPSESSIONID plus random letters, hence the
// prefix.
func isSessionName(name []byte) bool {
	for _, s := range sessionNames {
		if equalFold(name, s) {
			return true
		}
	}
	const asp = "aspsessionid"
	return len(name) >= len(asp) && equalFold(name[:len(asp)], asp)
}

// equalFold compares ASCII case-insensitively, without converting b to a
// string.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		if lower(b[i]) != s[i] {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

const upperHex = "0123456789ABCDEF"

// appendEscaped appends one path segment or query parameter with its
// escapes normalised (RFC 3986 §6.2.2.1-2): upper-case hex, unreserved
// characters decoded, reserved ones kept encoded as written (decoding
// "%2F" or "%26" would change what the server reads). Bytes a URL may
// not hold raw are encoded, as browsers do, so that the result is one a
// server and net/url accept. Control characters and bad escapes are
// refused, as net/url refuses them.
func appendEscaped(dst []byte, s string, query bool) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
				return nil, fmt.Errorf("%w: bad escape %q", ErrMalformed, clip(s[i:min(i+3, len(s))]))
			}
			v := byte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			if isUnreserved(v) {
				dst = append(dst, v)
			} else {
				dst = append(dst, '%', upperHex[v>>4], upperHex[v&15])
			}
			i += 2
		case c < ' ' || c == 0x7f:
			return nil, fmt.Errorf("%w: control character %q", ErrMalformed, c)
		case isUnreserved(c) || isSubDelim(c) || c == ':' || c == '@' || (query && (c == '/' || c == '?')):
			dst = append(dst, c)
		default:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		}
	}
	return dst, nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// isUnreserved: RFC 3986 §2.3.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// isSubDelim: RFC 3986 §2.2.
func isSubDelim(c byte) bool {
	switch c {
	case '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=':
		return true
	}
	return false
}
