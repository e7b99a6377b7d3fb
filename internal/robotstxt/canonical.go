package robotstxt

import "strings"

// canonical puts a pattern, or with asPath a URL's path and query,
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
func canonical(s string, asPath bool) string {
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

// pctClass marks the octets canonical must look at: '%', '*', '$' and
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
