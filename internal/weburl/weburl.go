// Package weburl reads URLs as browsers read them: by the WHATWG URL
// Standard, whose parser every browser implements and whose serialisation
// (an <a> element's href) is the URL a browser requests (R8.4).
//
// A link's path is percent-encoded UTF-8 whatever the page's encoding, but
// its query is encoded in the page's encoding first: on a windows-1251 page
// "/путь?q=слово" is "/%D0%BF%D1%83%D1%82%D1%8C?q=%F1%EB%EE%E2%EE", and a
// character the encoding lacks becomes an escaped character reference
// ("☃" is "%26%239731%3B"). The host is written in IDNA A-labels. What
// Resolve returns is therefore always ASCII.
//
// Parsing is github.com/nlnwa/whatwg-url's; the query's encoding, which
// that parser does only for single-byte encodings, is done here (see
// appendQuery) with golang.org/x/text's encoders.
package weburl

import (
	"errors"
	"strings"

	whatwg "github.com/nlnwa/whatwg-url/url"
)

// parser parses as the URL Standard does today. whatwg-url v0.6.2 predates
// U+005E (^) joining the path percent-encode set (2025); the option puts
// it there.
var parser = whatwg.NewParser(whatwg.WithPathPercentEncodeSet(whatwg.PathPercentEncodeSet.Set('^')))

// A Resolver resolves the links of one document: it holds the document's
// base URL, parsed once, and its encoding. The base is the document's URL
// until SetBase replaces it with the document's <base href>.
//
// Resolve may be called from several goroutines at once; SetBase may not be
// called concurrently with any other method.
type Resolver struct {
	base *whatwg.Url // nil: no base, only absolute URLs resolve
	cs   *charset    // nil: UTF-8
}

// MaxRefLength is the longest ref, base or URL the package parses; a
// longer one is refused. No crawler requests a URL this long (the fetcher
// takes at most 2,048 bytes).
const MaxRefLength = 4096

// whatwg-url builds the user info a character at a time and serialises the
// path a segment at a time, each in time that grows with the square of its
// length: some 3,000 '@' or 2,000 "a/" in a ref of MaxRefLength take
// milliseconds, and a hostile page holds thousands of links. A ref with
// user info longer than maxUserinfo, or more than maxSegments path
// segments, is refused; no real link has either.
const (
	maxUserinfo = 256
	maxSegments = 256
)

// errTooLong is parse's error for a ref past MaxRefLength, maxUserinfo or
// maxSegments.
var errTooLong = errors.New("weburl: URL too long")

// ErrUnknownEncoding is returned by NewResolver for an encoding label the
// WHATWG Encoding Standard does not know.
var ErrUnknownEncoding = errors.New("weburl: unknown encoding")

// NewResolver returns a Resolver for a document at base (an absolute URL,
// or "" for a document without one) whose encoding has the WHATWG label
// encoding: "windows-1251", "shift_jis", "gbk", … in any case, or "" for
// UTF-8. UTF-16 and replacement documents resolve their links as UTF-8
// ones, as the Encoding Standard's output encoding says.
func NewResolver(base, encoding string) (*Resolver, error) {
	cs, ok := lookupCharset(encoding)
	if !ok {
		return nil, ErrUnknownEncoding
	}
	r := &Resolver{cs: cs}
	if base != "" {
		u, err := r.parse(base)
		if err != nil {
			return nil, err
		}
		r.setBase(u)
	}
	return r, nil
}

// Resolve returns the absolute URL of ref, a link written in the document
// (an href, already decoded to text), as a browser serialises it, without
// its fragment. ok is false when ref does not parse, is too long (see
// MaxRefLength), or is not an http or https URL with a host: mailto:,
// javascript:, data:, a relative ref in a document without a base, and the
// like.
func (r *Resolver) Resolve(ref string) (resolved string, ok bool) {
	u, err := r.parse(ref)
	if err != nil || !isWeb(u) {
		return "", false
	}
	return u.Href(true), true
}

// SetBase makes href, resolved against the current base, the base of the
// links that follow, as the document's <base href> does. It reports false,
// and keeps the base, when href does not parse; a base of any scheme is
// taken, as browsers take it.
func (r *Resolver) SetBase(href string) bool {
	u, err := r.parse(href)
	if err != nil {
		return false
	}
	r.setBase(u)
	return true
}

// setBase makes u the base. Parsing against a base clones it, and the clone
// reads the base's search parameters, which whatwg-url makes on first use:
// made here, they are only read by concurrent calls of Resolve.
func (r *Resolver) setBase(u *whatwg.Url) {
	u.SearchParams()
	r.base = u
}

// Base returns the base links are resolved against, serialised; "" when
// there is none.
func (r *Resolver) Base() string {
	if r.base == nil {
		return ""
	}
	return r.base.Href(false)
}

// Resolve resolves one ref against base in a document of the given
// encoding; see Resolver.Resolve. A document with many links does better
// with one Resolver, which parses its base once.
func Resolve(base, ref, encoding string) (resolved string, ok bool) {
	r, err := NewResolver(base, encoding)
	if err != nil {
		return "", false
	}
	return r.Resolve(ref)
}

// Parse returns an absolute http or https URL given outside any document
// (on a command line, in a configuration, by a caller) as the URL parser
// reads it without a base and in UTF-8: the host in A-labels, the path and
// query percent-encoded, the fragment dropped. ok is false for what Resolve
// refuses.
func Parse(raw string) (parsed string, ok bool) {
	var r Resolver
	return r.Resolve(raw)
}

// isWeb reports an http or https URL with a host.
func isWeb(u *whatwg.Url) bool {
	s := u.Scheme()
	return (s == "http" || s == "https") && u.Hostname() != ""
}

// href parses ref against the base and serialises it whole, fragment
// included and of any scheme: the parsing path of Resolve, for tests
// against the URL Standard's own.
func (r *Resolver) href(ref string) (string, error) {
	u, err := r.parse(ref)
	if err != nil {
		return "", err
	}
	return u.Href(false), nil
}

// parse parses ref against the base, its query encoded in the document's
// encoding. whatwg-url parses in UTF-8; when the document's encoding is
// another and ref's query has a byte that may encode otherwise (non-ASCII,
// or a control, which ISO-2022-JP refuses), the query is encoded here and
// the ref parsed again. That gives what the standard's parser gives, for
// the parser's first steps (trim C0 controls and spaces, remove tabs and
// newlines) are taken here too, after which the query is what follows the
// first '?' before any '#': every state before the query state ends its
// component at '?'. And the encoded query is ASCII, its bytes in the
// special-query percent-encode set already escaped, which the query state
// keeps as it is.
func (r *Resolver) parse(ref string) (*whatwg.Url, error) {
	if len(ref) > MaxRefLength {
		return nil, errTooLong
	}
	s := clean(ref)
	if longUserinfo(s) || manySegments(s) {
		return nil, errTooLong
	}
	u, err := r.parseUTF8(s)
	if err != nil || r.cs == nil || !encodesQuery(u.Scheme()) {
		return u, err
	}
	start, end, found := findQuery(s)
	if !found || !mayEncode(s[start:end]) {
		return u, nil
	}
	b := make([]byte, 0, len(s)+2*(end-start))
	b = append(b, s[:start]...)
	b = appendQuery(b, s[start:end], r.cs)
	b = append(b, s[end:]...)
	return r.parseUTF8(string(b))
}

// longUserinfo reports a cleaned ref with user info longer than
// maxUserinfo. It looks where an authority may be: after an optional scheme
// and the slashes (or backslashes) that follow, up to the next '/', '\\',
// '?' or '#'; the user info is what comes before its last '@'. In a ref
// without an authority that is its first path segment, and a first segment
// with an '@' that far in is no link either.
func longUserinfo(s string) bool {
	if len(s) <= maxUserinfo || strings.IndexByte(s, '@') < 0 {
		return false
	}
	if i := strings.IndexByte(s, ':'); i > 0 && isScheme(s[:i]) {
		s = s[i+1:]
	}
	s = strings.TrimLeft(s, "/\\")
	if end := strings.IndexAny(s, "/\\?#"); end >= 0 {
		s = s[:end]
	}
	return strings.LastIndexByte(s, '@') > maxUserinfo
}

// manySegments reports a cleaned ref with more than maxSegments '/' or '\\'
// before its query or fragment (a bound on its path segments, and on those
// of a path resolved against a base's shorter one).
func manySegments(s string) bool {
	if len(s) <= maxSegments {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '?', '#':
			return false
		case '/', '\\':
			if n++; n > maxSegments {
				return true
			}
		}
	}
	return false
}

// isScheme reports a URL scheme: an ASCII letter, then letters, digits,
// '+', '-' and '.'.
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		switch {
		case 'a' <= c && c <= 'z':
		case i > 0 && ('0' <= s[i] && s[i] <= '9' || s[i] == '+' || s[i] == '-' || s[i] == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// parseUTF8 parses ref against the base as the standard does with UTF-8.
func (r *Resolver) parseUTF8(ref string) (*whatwg.Url, error) {
	if r.base == nil {
		return parser.Parse(ref)
	}
	return r.base.Parse(ref)
}

// encodesQuery reports the schemes whose query the URL parser encodes in
// the document's encoding: the special ones but ws and wss.
func encodesQuery(scheme string) bool {
	switch scheme {
	case "http", "https", "ftp", "file":
		return true
	}
	return false
}

// clean does the URL parser's first steps: leading and trailing C0 controls
// and spaces trimmed, ASCII tabs and newlines removed.
func clean(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	}
	return s
}

// findQuery returns where the query of the cleaned ref s begins (after its
// '?') and ends (at '#' or the end).
func findQuery(s string) (start, end int, found bool) {
	q := strings.IndexAny(s, "?#")
	if q < 0 || s[q] == '#' {
		return 0, 0, false
	}
	end = len(s)
	if h := strings.IndexByte(s[q:], '#'); h >= 0 {
		end = q + h
	}
	return q + 1, end, true
}

// mayEncode reports a query that a legacy encoding may encode otherwise
// than UTF-8 does: one with a non-ASCII character or a control.
func mayEncode(q string) bool {
	for i := 0; i < len(q); i++ {
		if q[i] >= 0x80 || q[i] < ' ' || q[i] == 0x7F {
			return true
		}
	}
	return false
}
