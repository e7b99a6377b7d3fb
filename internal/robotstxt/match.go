package robotstxt

import "strings"

// rule is an Allow or Disallow record made ready for matching.
type rule struct {
	allow   bool
	line    int
	written string // the pattern as written, for Decision
	pattern string // the pattern in canonical form (see canonical)
	// index is Google's reading of an Allow pattern that names index.htm or
	// index.html: the same directory, exactly ("/a/index.html" → "/a/$").
	// It only ever allows more, never less. "" when it does not apply.
	index string
	plain bool // pattern has no '*' or '$': a prefix, the common case
}

// newRule makes an Allow or Disallow record ready for matching.
func newRule(rec Record) rule {
	r := rule{
		allow:   rec.Key == KeyAllow,
		line:    rec.Line,
		written: rec.Value,
		pattern: canonical(rec.Value, false),
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
func (r *rule) match(path string) int {
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
func (r *rule) maxLen() int { return max(len(r.pattern), len(r.index)) }

// patternMatches reports whether pattern matches path from its first octet:
// '*' stands for any run of octets, and '$' at the very end of the pattern
// for the end of the path (RFC 9309 section 2.2.3). The pattern is
// canonical (see canonical), so a '$' anywhere else has been encoded.
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

// RequestPath returns the part of a URL that rules are matched against,
// path and query, in canonical form; and the path alone, also canonical. url
// is an absolute URL ("https://host/a?b"), a protocol-relative one
// ("//host/a") or a path ("/a?b"). The fragment is dropped; a URL with no
// path has the path "/".
func RequestPath(url string) (path, pathOnly string) {
	if i := strings.IndexByte(url, '#'); i >= 0 {
		url = url[:i]
	}
	if !strings.HasPrefix(url, "/") || strings.HasPrefix(url, "//") {
		rest := url
		if i := strings.Index(rest, "://"); i >= 0 && !strings.ContainsAny(rest[:i], "/?") {
			rest = rest[i+3:]
		} else {
			rest = strings.TrimPrefix(rest, "//")
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
	path = canonical(url, true)
	pathOnly = path
	if i := strings.IndexByte(path, '?'); i >= 0 {
		pathOnly = path[:i]
	}
	return path, pathOnly
}
