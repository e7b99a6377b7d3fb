package polite

import "strings"

// robotsRule is an Allow or Disallow record made ready for matching.
type robotsRule struct {
	allow   bool
	line    int
	written string // the pattern as written, for Decision
	pattern string // the pattern in canonical form (robotsCanonical)
	// index is Google's reading of an Allow pattern that names index.htm or
	// index.html: the same directory, exactly ("/a/index.html" → "/a/$").
	// It only ever allows more, never less. "" when it does not apply.
	index string
	plain bool // pattern has no '*' or '$': a prefix, the common case
}

func newRobotsRule(rec robotsRecord) robotsRule {
	r := robotsRule{
		allow:   rec.key == keyAllow,
		line:    rec.line,
		written: rec.value,
		pattern: robotsCanonical(rec.value, false),
	}
	r.plain = !strings.ContainsAny(r.pattern, "*$")
	if r.allow {
		if slash := strings.LastIndexByte(r.pattern, '/'); slash >= 0 &&
			strings.HasPrefix(r.pattern[slash:], "/index.htm") {
			r.index = r.pattern[:slash+1] + "$"
		}
	}
	return r
}

// match returns the length of the rule's pattern when it matches path (a
// canonical path and query), and -1 when it does not. The length ranks
// matches: the longest wins (RFC 9309 section 2.2.2). An empty pattern
// matches nothing.
func (r *robotsRule) match(path string) int {
	if r.plain {
		if r.pattern != "" && strings.HasPrefix(path, r.pattern) {
			return len(r.pattern)
		}
	} else if patternMatches(r.pattern, path) {
		return len(r.pattern)
	}
	if r.index != "" && patternMatches(r.index, path) {
		return len(r.index)
	}
	return -1
}

// maxLen is the longest match the rule can make.
func (r *robotsRule) maxLen() int { return max(len(r.pattern), len(r.index)) }

// patternMatches reports whether pattern matches path from its first octet:
// '*' stands for any run of octets, and '$' at the very end of the pattern
// for the end of the path (RFC 9309 section 2.2.3). The pattern is
// canonical (robotsCanonical), so a '$' anywhere else has been encoded.
//
// Both come from strangers, so the time must not explode on a pattern like
// "/*a*a*a*a*b". The pattern is split at its stars into literal pieces; the
// first must start the path, each middle piece is taken at its leftmost
// occurrence after the previous one (taking it any later could only leave
// less room for the rest), and the last must end the path when the pattern
// is anchored, or merely occur, when it is not. Every search starts where
// the previous one ended, so the work is linear in the path for each piece.
func patternMatches(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		if anchored {
			return path == pattern
		}
		return strings.HasPrefix(path, pattern)
	}
	if !strings.HasPrefix(path, pattern[:star]) {
		return false
	}
	pos := star
	pattern = pattern[star+1:]
	for {
		star = strings.IndexByte(pattern, '*')
		if star < 0 {
			if anchored {
				return len(path)-pos >= len(pattern) && strings.HasSuffix(path, pattern)
			}
			return strings.Contains(path[pos:], pattern)
		}
		piece := pattern[:star]
		pattern = pattern[star+1:]
		if piece == "" {
			continue
		}
		i := strings.Index(path[pos:], piece)
		if i < 0 {
			return false
		}
		pos += i + len(piece)
	}
}

// requestPath returns the part of a URL that rules are matched against,
// path and query, in canonical form; and the path alone, also canonical. url
// is an absolute URL ("https://host/a?b"), a protocol-relative one
// ("//host/a") or a path ("/a?b"). The fragment is dropped; a URL with no
// path has the path "/".
func requestPath(url string) (path, pathOnly string) {
	if i := strings.IndexByte(url, '#'); i >= 0 {
		url = url[:i]
	}
	if !strings.HasPrefix(url, "/") || strings.HasPrefix(url, "//") {
		rest := url
		if i := strings.Index(rest, "://"); i >= 0 && !strings.ContainsAny(rest[:i], "/?") {
			rest = rest[i+3:]
		} else if strings.HasPrefix(rest, "//") {
			rest = rest[2:]
		}
		// What comes before the path is the authority.
		if i := strings.IndexAny(rest, "/?"); i >= 0 {
			url = rest[i:]
		} else {
			url = ""
		}
	}
	if url == "" || url[0] == '?' {
		url = "/" + url
	}
	path = robotsCanonical(url, true)
	pathOnly = path
	if i := strings.IndexByte(path, '?'); i >= 0 {
		pathOnly = path[:i]
	}
	return path, pathOnly
}

// robotsCanonical puts a pattern, or with asPath a URL's path and query,
// in the form that RFC 9309 section 2.2.2 compares: a percent-encoded
// unreserved character (letter, digit, '-', '.', '_', '~') is decoded;
// every other percent-encoding keeps its encoding, hex digits in upper
// case; octets that may not appear in a URL as they are (non-ASCII,
// controls, space, `"<>\^{|}` and the backquote, and a '%' that starts no
// encoding) are percent-encoded. Reserved characters ('/', '?', '=', …)
// stay as written: they shape the path, and their encoded form means
// something else (RFC 3986 section 2.2). The exceptions are the two
// characters special in patterns (RFC 9309 section 2.2.3): in a URL, '*'
// and '$' are plain characters and are encoded, so that a pattern matches
// them verbatim with "%2A" and "%24"; in a pattern, '$' is encoded unless
// it is the last octet, where it anchors. Applied to rules and URLs alike,
// it makes "/caf%c3%a9", "/café" and "/caf%C3%A9" one path.
func robotsCanonical(s string, asPath bool) string {
	i := 0
	for ; i < len(s); i++ {
		if !pctClass[s[i]] {
			continue // the common case, kept to one load and test
		}
		if s[i] == '%' {
			if !isPctHex(s, i) || canonicalPct(s, i) {
				break
			}
			i += 2
			continue
		}
		if mustPctEncodeAt(s, i, asPath) {
			break
		}
	}
	if i == len(s) {
		return s // most paths and patterns are canonical already
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && isPctHex(s, i):
			v := pctValue(s[i+1])<<4 | pctValue(s[i+2])
			if isURIUnreserved(v) {
				b.WriteByte(v)
			} else {
				writePct(&b, v)
			}
			i += 2
		case c == '%' || pctClass[c] && mustPctEncodeAt(s, i, asPath):
			writePct(&b, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// pctClass marks the octets robotsCanonical must look at: '%', '*', '$' and
// those that cannot stand in a URL as they are (non-ASCII, controls, space,
// `"<>\^{|}` and the backquote). The rest, most of any path, pass as they
// are.
var pctClass = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c <= ' ' || c >= 0x7f || strings.IndexByte("%*$\"<>\\^`{|}", byte(c)) >= 0
	}
	return t
}()

// mustPctEncodeAt reports whether the octet s[i], one pctClass marks and not
// a '%', is percent-encoded: '*' and '$' only in a path, or for '$' in a
// pattern, anywhere but at the end; the others always.
func mustPctEncodeAt(s string, i int, asPath bool) bool {
	switch s[i] {
	case '*':
		return asPath
	case '$':
		return asPath || i < len(s)-1
	}
	return true
}

// isPctHex reports whether s[i] starts a percent-encoding: '%' and two hex
// digits.
func isPctHex(s string, i int) bool {
	return i+2 < len(s) && isPctDigit(s[i+1]) && isPctDigit(s[i+2])
}

// canonicalPct reports whether the percent-encoding at s[i] must change:
// lower-case hex digits, or an unreserved character that is decoded.
func canonicalPct(s string, i int) bool {
	return isPctLowerDigit(s[i+1]) || isPctLowerDigit(s[i+2]) ||
		isURIUnreserved(pctValue(s[i+1])<<4|pctValue(s[i+2]))
}

func writePct(b *strings.Builder, c byte) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('%')
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&15])
}

// isURIUnreserved reports RFC 3986's unreserved characters.
func isURIUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func isPctDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isPctLowerDigit(c byte) bool { return 'a' <= c && c <= 'f' }

func pctValue(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
