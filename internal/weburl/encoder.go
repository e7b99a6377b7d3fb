package weburl

import (
	"strconv"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/transform"
	"golang.org/x/text/width"
)

// A charset is a document's output encoding, as the URL parser uses it: to
// encode the query of a special URL (http, https, ftp, file) before
// percent-encoding it. A nil *charset is UTF-8.
//
// The bytes come from golang.org/x/text's encoders. Where the WHATWG
// Encoding Standard's encoder takes a step those encoders do not (a code
// point it maps first, a pointer it refuses or picks elsewhere), the step
// is taken here, as code, before or after the x/text encoder; each is named
// where it is taken. Compared over every scalar value with encoders built
// from the standard's index files (2026-05), the result is the standard's
// for every encoding but gb18030 and GBK, where x/text's tables predate
// today's index: 2,086 code points differ (2,085 in GBK), all but 19 of
// them private-use ones (U+E000-U+F8FF) to which the index now gives
// two-byte forms; the 19 are U+1E3F, U+9FB4-U+9FBB and the vertical forms
// U+FE10-U+FE19. They come out as x/text writes them (four bytes in
// gb18030) or, in GBK, as character references.
type charset struct {
	kind kind
	cm   *charmap.Charmap  // kind singleByte
	enc  encoding.Encoding // the other legacy kinds
}

type kind uint8

const (
	singleByte kind = iota
	gb18030Kind
	gbkKind
	big5Kind
	eucJPKind
	iso2022JPKind
	shiftJISKind
	eucKRKind
)

// lookupCharset returns the output encoding for a WHATWG encoding label
// ("windows-1251", "sjis", "latin1", …, in any case): UTF-8 for "", for
// UTF-8 itself and, as the Encoding Standard's "get an output encoding"
// says, for UTF-16BE, UTF-16LE and replacement, whose encoders the URL
// parser never uses. ok is false for a label the standard does not know.
func lookupCharset(label string) (cs *charset, ok bool) {
	if label == "" {
		return nil, true
	}
	e, err := htmlindex.Get(label)
	if err != nil {
		return nil, false
	}
	name, err := htmlindex.Name(e)
	if err != nil {
		return nil, false
	}
	switch name {
	case "utf-8", "utf-16be", "utf-16le", "replacement":
		return nil, true
	case "gb18030":
		return &charset{kind: gb18030Kind, enc: e}, true
	case "gbk":
		return &charset{kind: gbkKind, enc: e}, true
	case "big5":
		return &charset{kind: big5Kind, enc: e}, true
	case "euc-jp":
		return &charset{kind: eucJPKind, enc: e}, true
	case "iso-2022-jp":
		return &charset{kind: iso2022JPKind, enc: e}, true
	case "shift_jis":
		return &charset{kind: shiftJISKind, enc: e}, true
	case "euc-kr":
		return &charset{kind: eucKRKind, enc: e}, true
	case "iso-8859-8-i":
		// The same index as ISO-8859-8; only its direction differs.
		return &charset{kind: singleByte, cm: charmap.ISO8859_8}, true
	}
	if cm, isCharmap := e.(*charmap.Charmap); isCharmap {
		return &charset{kind: singleByte, cm: cm}, true
	}
	return nil, false
}

// appendQuery appends q, the query of a special URL as written (a UTF-8
// string; an invalid byte counts as U+FFFD), as the URL Standard's
// "percent-encode after encoding" writes it with cs (not nil: UTF-8 needs
// none of this) and the special-query percent-encode set: each byte of the
// encoded query percent-encoded when it is in that set, and each code point
// cs cannot encode written as "%26%23", its decimal value and "%3B" (an
// HTML character reference, escaped). The result is ASCII; parsed again as
// UTF-8, it stays as it is.
func appendQuery(dst []byte, q string, cs *charset) []byte {
	if cs.kind == iso2022JPKind {
		return appendISO2022JP(dst, q)
	}
	var t transform.Transformer
	if cs.enc != nil {
		t = cs.enc.NewEncoder()
	}
	var buf [8]byte
	for _, r := range q {
		b, ok := cs.encodeRune(buf[:0], r, t)
		if !ok {
			dst = appendCharRef(dst, r)
			continue
		}
		for _, c := range b {
			dst = appendQueryByte(dst, c)
		}
	}
	return dst
}

// encodeRune appends r encoded by one of the stateless encoders; ok is false
// when the encoding has no bytes for it. t is cs's x/text encoder.
func (cs *charset) encodeRune(dst []byte, r rune, t transform.Transformer) ([]byte, bool) {
	if r < utf8.RuneSelf {
		return append(dst, byte(r)), true
	}
	switch cs.kind {
	case singleByte:
		if b, ok := cs.cm.EncodeRune(r); ok {
			return append(dst, b), true
		}
		// The standard's single-byte indexes give the bytes 0x80-0x9F they
		// use for nothing else to the C1 control of the same value; x/text's
		// charmaps leave those bytes out (they decode them as U+FFFD).
		if r <= 0x9F && cs.cm.DecodeByte(byte(r)) == utf8.RuneError {
			return append(dst, byte(r)), true
		}
		return dst, false
	case gb18030Kind, gbkKind:
		// gb18030 encoder: U+E5E5 is an error (index gb18030 gives its old
		// bytes, 0xA3 0xA0, to U+3000); x/text still encodes it.
		if r == 0xE5E5 {
			return dst, false
		}
	case big5Kind:
		if fix, found := big5Fixes()[r]; found {
			return append(dst, fix[0], fix[1]), true
		}
		// The index Big5 pointer leaves out the Hong Kong extensions (leading
		// bytes below 0xA1), which x/text encodes.
		b, ok := transformRune(dst, r, t)
		if ok && b[len(dst)] < 0xA1 {
			return dst, false
		}
		return b, ok
	case eucJPKind:
		switch {
		case r == 0xA5: // EUC-JP encoder: ¥ is 0x5C,
			return append(dst, 0x5C), true
		case r == 0x203E: // ‾ is 0x7E,
			return append(dst, 0x7E), true
		case r == 0x2212: // and − is encoded as U+FF0D.
			r = 0xFF0D
		}
		// The standard's EUC-JP encoder writes JIS X 0208 only; x/text also
		// writes JIS X 0212 (three bytes, 0x8F first), which it refuses.
		b, ok := transformRune(dst, r, t)
		if ok && b[len(dst)] == 0x8F {
			return dst, false
		}
		return b, ok
	case shiftJISKind:
		switch {
		case r == 0x80: // Shift_JIS encoder: U+0080 is 0x80,
			return append(dst, 0x80), true
		case r == 0xA5: // ¥ is 0x5C,
			return append(dst, 0x5C), true
		case r == 0x203E: // ‾ is 0x7E,
			return append(dst, 0x7E), true
		case r == 0x2212: // and − is encoded as U+FF0D.
			r = 0xFF0D
		}
		b, ok := transformRune(dst, r, t)
		if ok && len(b)-len(dst) == 2 && (b[len(dst)] == 0xED || b[len(dst)] == 0xEE) {
			// The index Shift_JIS pointer skips pointers 8272-8835 (leading
			// bytes 0xED and 0xEE: NEC's copies of IBM extensions) for the
			// IBM ones later in the index; x/text takes the first.
			if ibm, found := shiftJISIBM()[r]; found {
				return append(dst, ibm[0], ibm[1]), true
			}
			return dst, false
		}
		return b, ok
	}
	return transformRune(dst, r, t)
}

// transformRune appends r encoded by t, an x/text encoder of a stateless
// encoding.
func transformRune(dst []byte, r rune, t transform.Transformer) ([]byte, bool) {
	var src, out [8]byte
	n := utf8.EncodeRune(src[:], r)
	t.Reset()
	nDst, _, err := t.Transform(out[:], src[:n], true)
	if err != nil || nDst == 0 {
		return dst, false
	}
	return append(dst, out[:nDst]...), true
}

// shiftJISIBM maps the code points of the IBM extensions of Shift_JIS
// (leading bytes 0xFA-0xFC) to their bytes, read once from x/text's decoder.
var shiftJISIBM = sync.OnceValue(func() map[rune][2]byte {
	m := make(map[rune][2]byte, 400)
	dec := japanese.ShiftJIS.NewDecoder()
	var out [8]byte
	for lead := 0xFA; lead <= 0xFC; lead++ {
		for trail := 0x40; trail <= 0xFC; trail++ {
			if trail == 0x7F {
				continue
			}
			src := [2]byte{byte(lead), byte(trail)}
			dec.Reset()
			n, _, err := dec.Transform(out[:], src[:], true)
			if err != nil {
				continue
			}
			r, size := utf8.DecodeRune(out[:n])
			if r == utf8.RuneError || size != n {
				continue
			}
			if _, dup := m[r]; !dup {
				m[r] = src
			}
		}
	}
	return m
})

// big5Fixes maps the code points for which x/text's Big5 encoder picks
// other bytes than the index Big5 pointer does to the standard's bytes. The
// index has code points at several pointers; the standard takes the first
// outside the Hong Kong extensions (the last for six of them), where x/text
// takes another, for 27 code points such as U+6E2F (港). They are found once
// from x/text's decoder, which reads every pointer as the index does.
var big5Fixes = sync.OnceValue(func() map[rune][2]byte {
	const first = (0xA1 - 0x81) * 157 // the first pointer past the extensions
	const end = (0xFE - 0x81 + 1) * 157
	bytesOf := func(p int) [2]byte {
		trail := p % 157
		off := 0x40
		if trail >= 0x3F {
			off = 0x62
		}
		return [2]byte{byte(p/157 + 0x81), byte(trail + off)}
	}
	pointer := make(map[rune]int, end-first)
	dec := traditionalchinese.Big5.NewDecoder()
	var out [8]byte
	for p := first; p < end; p++ {
		src := bytesOf(p)
		dec.Reset()
		n, _, err := dec.Transform(out[:], src[:], true)
		r, size := utf8.DecodeRune(out[:n])
		if err != nil || r == utf8.RuneError || size != n {
			continue
		}
		switch r {
		case 0x2550, 0x255E, 0x2561, 0x256A, 0x5341, 0x5345: // the last pointer
			pointer[r] = p
		default:
			if _, seen := pointer[r]; !seen {
				pointer[r] = p
			}
		}
	}
	fixes := make(map[rune][2]byte)
	enc := traditionalchinese.Big5.NewEncoder()
	for r, p := range pointer {
		want := bytesOf(p)
		if got, ok := transformRune(nil, r, enc); !ok || string(got) != string(want[:]) {
			fixes[r] = want
		}
	}
	return fixes
})

// The ISO-2022-JP encoder's states.
const (
	jpASCII   = iota
	jpRoman   // JIS X 0201 Roman: ASCII with ¥ for '\\' and ‾ for '~'
	jpJIS0208 // two bytes a character
)

// appendISO2022JP is appendQuery for ISO-2022-JP: the Encoding Standard's
// encoder, whose state (ASCII, Roman or JIS X 0208, switched by escape
// sequences) lasts over the whole query, errors included, and is set back
// to ASCII at its end. x/text's ISO-2022-JP encoder differs from it
// (control characters that switch states, ¥ and ‾ in the Roman set,
// half-width katakana), so only its EUC-JP encoder is used here, for the
// JIS X 0208 pointer, whose bytes in ISO-2022-JP are EUC-JP's less 0x80.
func appendISO2022JP(dst []byte, q string) []byte {
	state := jpASCII
	escape := func(to int, seq string) {
		dst = appendQueryBytes(dst, seq)
		state = to
	}
	t := japanese.EUCJP.NewEncoder()
	var buf [8]byte
	for _, r := range q {
		// Each pass either writes r or switches the state and looks at r
		// again, as the standard's encoder "restores" it to the queue.
		for {
			if state != jpJIS0208 && (r == 0x0E || r == 0x0F || r == 0x1B) {
				// They would switch the decoder's state: an error, reported
				// as U+FFFD rather than as themselves.
				dst = appendCharRef(dst, utf8.RuneError)
				break
			}
			if r < utf8.RuneSelf && (state == jpASCII || state == jpRoman && r != 0x5C && r != 0x7E) {
				dst = appendQueryByte(dst, byte(r))
				break
			}
			if state == jpRoman && (r == 0xA5 || r == 0x203E) {
				c := byte(0x7E) // ‾
				if r == 0xA5 {
					c = 0x5C // ¥
				}
				dst = appendQueryByte(dst, c)
				break
			}
			if r < utf8.RuneSelf {
				escape(jpASCII, "\x1b(B")
				continue
			}
			if r == 0xA5 || r == 0x203E {
				escape(jpRoman, "\x1b(J")
				continue
			}
			if r == 0x2212 {
				r = 0xFF0D
			} else if 0xFF61 <= r && r <= 0xFF9F {
				r = fullWidthKatakana(r)
			}
			b, ok := transformRune(buf[:0], r, t)
			if !ok || len(b) != 2 || b[0] < 0xA1 || b[1] < 0xA1 {
				if state == jpJIS0208 {
					escape(jpASCII, "\x1b(B")
					continue
				}
				dst = appendCharRef(dst, r)
				break
			}
			if state != jpJIS0208 {
				escape(jpJIS0208, "\x1b$B")
				continue
			}
			dst = appendQueryByte(dst, b[0]-0x80)
			dst = appendQueryByte(dst, b[1]-0x80)
			break
		}
	}
	if state != jpASCII {
		escape(jpASCII, "\x1b(B")
	}
	return dst
}

// fullWidthKatakana maps a half-width katakana (U+FF61-U+FF9F) to the code
// point index ISO-2022-JP katakana gives it: its full-width form, except
// that the sound marks become the spacing ones.
func fullWidthKatakana(r rune) rune {
	switch r {
	case 0xFF9E:
		return 0x309B
	case 0xFF9F:
		return 0x309C
	}
	w, _ := utf8.DecodeRuneInString(width.Widen.String(string(r)))
	return w
}

// appendCharRef appends the escaped HTML character reference "&#N;" the URL
// Standard writes for a code point the encoding has no bytes for.
func appendCharRef(dst []byte, r rune) []byte {
	dst = append(dst, "%26%23"...)
	dst = strconv.AppendInt(dst, int64(r), 10)
	return append(dst, "%3B"...)
}

func appendQueryBytes(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = appendQueryByte(dst, s[i])
	}
	return dst
}

// appendQueryByte appends c, percent-encoded when it is in the URL
// Standard's special-query percent-encode set: C0 controls, space, both
// quotation marks, '#', '<', '>' and every byte above 0x7E.
func appendQueryByte(dst []byte, c byte) []byte {
	switch {
	case c <= ' ', c > '~', c == '"', c == '#', c == '\'', c == '<', c == '>':
		const hex = "0123456789ABCDEF"
		return append(dst, '%', hex[c>>4], hex[c&15])
	}
	return append(dst, c)
}
