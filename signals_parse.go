package polite

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// This file reads the syntax of content signals (R7.1); signals.go decides
// what they mean. reference/content-signals.md has the syntax.

// sfKind is the type of a Structured Field item (RFC 9651 section 3.3),
// or an inner list.
type sfKind uint8

const (
	sfInteger sfKind = iota + 1
	sfDecimal
	sfString
	sfToken
	sfBytes
	sfBoolean
	sfDate
	sfDisplayString
	sfInnerList
)

// sfMember is one member of a parsed Dictionary: its key, the type of its
// value and, for a Token, the token. Other values and all parameters are
// checked for syntax and then dropped: AIPREF reads Tokens only.
type sfMember struct {
	key   string
	kind  sfKind
	token string
}

// parseSFDictionary parses s as an RFC 9651 Dictionary (section 4.2.2),
// exactly: any deviation fails the whole field (ok false), as section 4.2
// requires, so a preference is never read out of a broken statement. A key
// given twice keeps its first position and its last value. An empty s is
// the empty Dictionary.
func parseSFDictionary(s string) (members []sfMember, ok bool) {
	p := sfParser{s: s}
	p.skipSP()
	var index map[string]int
	for !p.done() {
		key, ok := p.key()
		if !ok {
			return nil, false
		}
		m := sfMember{key: key, kind: sfBoolean} // a bare key is Boolean true
		if p.eat('=') {
			if m.kind, m.token, ok = p.itemOrInnerList(); !ok {
				return nil, false
			}
		} else if !p.params() {
			return nil, false
		}
		if i, dup := index[key]; dup {
			members[i] = m
		} else {
			if index == nil {
				index = map[string]int{}
			}
			index[key] = len(members)
			members = append(members, m)
		}
		p.skipOWS()
		if p.done() {
			break
		}
		if !p.eat(',') {
			return nil, false
		}
		p.skipOWS()
		if p.done() {
			return nil, false // a trailing comma
		}
	}
	return members, true
}

// sfParser walks a field value; i is the next byte.
type sfParser struct {
	s string
	i int
}

func (p *sfParser) done() bool { return p.i >= len(p.s) }

func (p *sfParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *sfParser) eat(c byte) bool {
	if !p.done() && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *sfParser) skipSP() {
	for p.eat(' ') {
	}
}

func (p *sfParser) skipOWS() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// key: (lcalpha / "*") *(lcalpha / DIGIT / "_" / "-" / "." / "*").
func (p *sfParser) key() (string, bool) {
	start := p.i
	if c := p.peek(); !(isLCAlpha(c) || c == '*') {
		return "", false
	}
	p.i++
	for !p.done() {
		c := p.s[p.i]
		if !(isLCAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*') {
			break
		}
		p.i++
	}
	return p.s[start:p.i], true
}

// itemOrInnerList parses a member value and its parameters.
func (p *sfParser) itemOrInnerList() (sfKind, string, bool) {
	if p.peek() == '(' {
		return sfInnerList, "", p.innerList()
	}
	kind, token, ok := p.bareItem()
	if !ok || !p.params() {
		return 0, "", false
	}
	return kind, token, true
}

// innerList: "(" *SP [ item *( 1*SP item ) *SP ] ")" parameters.
func (p *sfParser) innerList() bool {
	p.i++ // '('
	for !p.done() {
		p.skipSP()
		if p.eat(')') {
			return p.params()
		}
		if _, _, ok := p.bareItem(); !ok || !p.params() {
			return false
		}
		if c := p.peek(); c != ' ' && c != ')' {
			return false
		}
	}
	return false // no ')'
}

// params: *( ";" *SP key [ "=" bare-item ] ). Parameters are read for
// their syntax only.
func (p *sfParser) params() bool {
	for p.eat(';') {
		p.skipSP()
		if _, ok := p.key(); !ok {
			return false
		}
		if p.eat('=') {
			if _, _, ok := p.bareItem(); !ok {
				return false
			}
		}
	}
	return true
}

// bareItem parses one bare item (RFC 9651 section 4.2.3.1) and returns its
// kind, and the token when it is one.
func (p *sfParser) bareItem() (sfKind, string, bool) {
	switch c := p.peek(); {
	case c == '-' || isDigit(c):
		k, ok := p.number()
		return k, "", ok
	case c == '"':
		return sfString, "", p.str()
	case c == '*' || isAlpha(c):
		start := p.i
		p.i++
		for !p.done() && (isTChar(p.s[p.i]) || p.s[p.i] == ':' || p.s[p.i] == '/') {
			p.i++
		}
		return sfToken, p.s[start:p.i], true
	case c == ':':
		return sfBytes, "", p.byteSequence()
	case c == '?':
		p.i++
		if p.eat('0') || p.eat('1') {
			return sfBoolean, "", true
		}
		return 0, "", false
	case c == '@':
		p.i++
		k, ok := p.number()
		return sfDate, "", ok && k == sfInteger
	case c == '%':
		return sfDisplayString, "", p.displayString()
	}
	return 0, "", false
}

// number parses an Integer or Decimal (RFC 9651 section 4.2.4): at most 15
// digits for an Integer; at most 12 before the point and 1 to 3 after it
// for a Decimal.
func (p *sfParser) number() (sfKind, bool) {
	p.eat('-')
	if !isDigit(p.peek()) {
		return 0, false
	}
	kind, n, dot := sfInteger, 0, -1 // n counts digits
digits:
	for !p.done() {
		switch c := p.s[p.i]; {
		case isDigit(c):
			n++
		case c == '.' && kind == sfInteger:
			if n > 12 {
				return 0, false
			}
			kind, dot = sfDecimal, n
		default:
			break digits
		}
		p.i++
		if n > 15 { // 15 digits, or 16 characters with the point
			return 0, false
		}
	}
	if kind == sfDecimal {
		if frac := n - dot; frac < 1 || frac > 3 {
			return 0, false
		}
	}
	return kind, true
}

// str parses a String: printable ASCII between quotes, '\' escaping only
// '"' and '\'.
func (p *sfParser) str() bool {
	p.i++ // '"'
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if d := p.peek(); d != '"' && d != '\\' {
				return false
			}
			p.i++
		case c == '"':
			return true
		case c < 0x20 || c > 0x7e:
			return false
		}
	}
	return false
}

// byteSequence parses ":" base64 ":". Padding may be left out (section
// 4.2.7 asks parsers not to fail on that).
func (p *sfParser) byteSequence() bool {
	p.i++ // ':'
	end := strings.IndexByte(p.s[p.i:], ':')
	if end < 0 {
		return false
	}
	b64 := p.s[p.i : p.i+end]
	p.i += end + 1
	for i := 0; i < len(b64); i++ {
		if c := b64[i]; !(isAlpha(c) || isDigit(c) || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	_, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(b64, "="))
	return err == nil
}

// displayString parses %"…" (RFC 9651 section 4.2.10): printable ASCII and
// %xx escapes with lower-case hex, decoding to valid UTF-8.
func (p *sfParser) displayString() bool {
	p.i++ // '%'
	if !p.eat('"') {
		return false
	}
	var buf []byte
	for !p.done() {
		c := p.s[p.i]
		p.i++
		switch {
		case c < 0x20 || c > 0x7e:
			return false
		case c == '%':
			if p.i+2 > len(p.s) || !isLCHex(p.s[p.i]) || !isLCHex(p.s[p.i+1]) {
				return false
			}
			buf = append(buf, pctValue(p.s[p.i])<<4|pctValue(p.s[p.i+1]))
			p.i += 2
		case c == '"':
			return utf8.Valid(buf)
		default:
			buf = append(buf, c)
		}
	}
	return false
}

func isLCAlpha(c byte) bool { return 'a' <= c && c <= 'z' }
func isAlpha(c byte) bool   { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool   { return '0' <= c && c <= '9' }
func isLCHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' }

// isTChar is RFC 9110's tchar.
func isTChar(c byte) bool {
	return isAlpha(c) || isDigit(c) || c != 0 && strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// splitSignalPath splits a robots.txt Content-Usage or Content-Signal value
// into its path and its preferences: a value that starts with '/' has a
// path up to the first SP or HTAB; otherwise the path is "" and the whole
// value is the preference.
func splitSignalPath(v string) (path, prefs string) {
	if !strings.HasPrefix(v, "/") {
		return "", v
	}
	end := strings.IndexAny(v, " \t")
	if end < 0 {
		return v, ""
	}
	return v[:end], strings.TrimLeft(v[end:], " \t")
}

// contentSignalPairs reads a Cloudflare Content-Signal value,
// "search=yes, ai-input=no": comma-separated key=value pairs, spaces
// optional. Keys and values are returned in lower case, as written
// otherwise; a pair without '=' is skipped.
func contentSignalPairs(v string) [][2]string {
	var out [][2]string
	for part := range strings.SplitSeq(v, ",") {
		k, val, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		val = strings.ToLower(strings.TrimSpace(val))
		if k != "" && val != "" {
			out = append(out, [2]string{k, val})
		}
	}
	return out
}

// robotsDirective is one directive of a robots meta tag or X-Robots-Tag
// header: its name in lower case, and the value after ':' for those that
// take one ("max-snippet:0").
type robotsDirective struct{ name, value string }

// valuedDirectives are the robots directives written "name: value", so
// that "max-snippet: 0" is not read as the name of a crawler.
var valuedDirectives = map[string]bool{
	"max-snippet": true, "max-image-preview": true, "max-video-preview": true,
	"unavailable_after": true,
}

// robotsDirectives reads a comma-separated list of robots directives as
// Google documents them ("noindex, nofollow", "max-snippet:0"), names
// compared without case. With scoped (the X-Robots-Tag header), a part
// "name: directive" whose name is not a directive names the crawler the
// directives from there on speak to ("googlebot: nosnippet"): they apply
// to us only when the name is our product token. A header value without a
// name speaks to every crawler.
func robotsDirectives(v, token string, scoped bool) []robotsDirective {
	var out []robotsDirective
	ours := true
	for part := range strings.SplitSeq(v, ",") {
		part = strings.TrimSpace(part)
		name, value, hasColon := strings.Cut(part, ":")
		name = strings.ToLower(strings.TrimSpace(name))
		value = strings.TrimSpace(value)
		if hasColon && scoped && !valuedDirectives[name] && isProductToken(name) {
			ours = token != "" && strings.EqualFold(name, token)
			part = value
			name, value, hasColon = strings.Cut(part, ":")
			name = strings.ToLower(strings.TrimSpace(name))
			value = strings.TrimSpace(value)
		}
		if !ours || name == "" {
			continue
		}
		if !hasColon {
			value = ""
		}
		out = append(out, robotsDirective{name, value})
	}
	return out
}

// isProductToken reports a crawler name as robots.txt and X-Robots-Tag
// write it: letters, digits, '-' and '_'.
func isProductToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(isAlpha(c) || isDigit(c) || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
