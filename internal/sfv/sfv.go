// Package sfv parses RFC 9651 Structured Field Values as far as content
// signals need them: a Dictionary, checked exactly, whose Token values are
// kept (R7.1; reference/content-signals.md has the syntax).
package sfv

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// Kind is the type of a Structured Field item (RFC 9651 section 3.3),
// or an inner list.
type Kind uint8

// The kinds of RFC 9651; only Token carries a value out of the parser.
const (
	Integer       Kind = iota + 1 // -?1*15DIGIT
	Decimal                       // -?1*12DIGIT "." 1*3DIGIT
	String                        // "…", printable ASCII
	Token                         // the kind AIPREF preferences are written in
	Bytes                         // :base64:
	Boolean                       // ?0, ?1, or a bare key
	Date                          // @ and an Integer
	DisplayString                 // %"…", UTF-8 in lower-case %xx escapes
	InnerList                     // ( items )
)

// Member is one member of a parsed Dictionary: its key, the type of its
// value and, for a Token, the token. Other values and all parameters are
// checked for syntax and then dropped: AIPREF reads Tokens only.
type Member struct {
	Key   string
	Kind  Kind
	Token string
}

// ParseDictionary parses s as an RFC 9651 Dictionary (section 4.2.2),
// exactly: any deviation fails the whole field (ok false), as section 4.2
// requires, so a preference is never read out of a broken statement. A key
// given twice keeps its first position and its last value. An empty s is
// the empty Dictionary.
func ParseDictionary(s string) (members []Member, ok bool) {
	p := parser{s: s}
	p.skipSP()
	var index map[string]int
	for !p.done() {
		key, ok := p.key()
		if !ok {
			return nil, false
		}
		m := Member{Key: key, Kind: Boolean} // a bare key is Boolean true
		if p.eat('=') {
			if m.Kind, m.Token, ok = p.itemOrInnerList(); !ok {
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

// parser walks a field value; i is the next byte.
type parser struct {
	s string
	i int
}

func (p *parser) done() bool { return p.i >= len(p.s) }

func (p *parser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}

func (p *parser) eat(c byte) bool {
	if !p.done() && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) skipSP() {
	for p.eat(' ') {
	}
}

func (p *parser) skipOWS() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// key: (lcalpha / "*") *(lcalpha / DIGIT / "_" / "-" / "." / "*").
func (p *parser) key() (string, bool) {
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
func (p *parser) itemOrInnerList() (Kind, string, bool) {
	if p.peek() == '(' {
		return InnerList, "", p.innerList()
	}
	kind, token, ok := p.bareItem()
	if !ok || !p.params() {
		return 0, "", false
	}
	return kind, token, true
}

// innerList: "(" *SP [ item *( 1*SP item ) *SP ] ")" parameters.
func (p *parser) innerList() bool {
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
func (p *parser) params() bool {
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
func (p *parser) bareItem() (Kind, string, bool) {
	switch c := p.peek(); {
	case c == '-' || isDigit(c):
		k, ok := p.number()
		return k, "", ok
	case c == '"':
		return String, "", p.str()
	case c == '*' || isAlpha(c):
		start := p.i
		p.i++
		for !p.done() && (isTChar(p.s[p.i]) || p.s[p.i] == ':' || p.s[p.i] == '/') {
			p.i++
		}
		return Token, p.s[start:p.i], true
	case c == ':':
		return Bytes, "", p.byteSequence()
	case c == '?':
		p.i++
		if p.eat('0') || p.eat('1') {
			return Boolean, "", true
		}
		return 0, "", false
	case c == '@':
		p.i++
		k, ok := p.number()
		return Date, "", ok && k == Integer
	case c == '%':
		return DisplayString, "", p.displayString()
	}
	return 0, "", false
}

// number parses an Integer or Decimal (RFC 9651 section 4.2.4): at most 15
// digits for an Integer; at most 12 before the point and 1 to 3 after it
// for a Decimal.
func (p *parser) number() (Kind, bool) {
	p.eat('-')
	if !isDigit(p.peek()) {
		return 0, false
	}
	kind, n, dot := Integer, 0, -1 // n counts digits
digits:
	for !p.done() {
		switch c := p.s[p.i]; {
		case isDigit(c):
			n++
		case c == '.' && kind == Integer:
			if n > 12 {
				return 0, false
			}
			kind, dot = Decimal, n
		default:
			break digits
		}
		p.i++
		if n > 15 { // 15 digits, or 16 characters with the point
			return 0, false
		}
	}
	if kind == Decimal {
		if frac := n - dot; frac < 1 || frac > 3 {
			return 0, false
		}
	}
	return kind, true
}

// str parses a String: printable ASCII between quotes, '\' escaping only
// '"' and '\'.
func (p *parser) str() bool {
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
func (p *parser) byteSequence() bool {
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
func (p *parser) displayString() bool {
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
			buf = append(buf, hexValue(p.s[p.i])<<4|hexValue(p.s[p.i+1]))
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

// hexValue is the value of a lower-case hex digit, as isLCHex admits.
func hexValue(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c - 'a' + 10
}

// isTChar is RFC 9110's tchar.
func isTChar(c byte) bool {
	return isAlpha(c) || isDigit(c) || c != 0 && strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
