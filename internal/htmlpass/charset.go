package htmlpass

import (
	"bytes"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

// Charset is the character encoding a page was read in, and where it was
// found (R8.4).
type Charset struct {
	// Name is the encoding's WHATWG name, lower case: "utf-8",
	// "windows-1251", "shift_jis", "gbk", "iso-8859-2", "utf-16le", …
	Name string
	// Source is where it came from: SourceBOM, SourceHeader, SourceMeta or
	// SourceDefault.
	Source string
}

// Where a page's encoding was found, in the order the HTML standard's
// sniffing looks.
const (
	SourceBOM     = "bom"     // a byte order mark
	SourceHeader  = "header"  // the Content-Type charset
	SourceMeta    = "meta"    // a <meta> in the first 1024 bytes, or later in the head
	SourceDefault = "default" // none declared: windows-1252
)

// prescanLen is how much of a body the <meta> prescan reads.
const prescanLen = 1024

// boms are the byte order marks the HTML standard honours, before anything
// a header says.
var boms = []struct {
	mark []byte
	name string
}{
	{[]byte{0xEF, 0xBB, 0xBF}, "utf-8"},
	{[]byte{0xFE, 0xFF}, "utf-16be"},
	{[]byte{0xFF, 0xFE}, "utf-16le"},
}

// Sniff finds the encoding of an HTML body sent with the Content-Type
// contentType ("" when there was none), as the HTML standard's encoding
// sniffing algorithm does: a byte order mark, then the header's charset,
// then the <meta> prescan of the first 1024 bytes (charset, or http-equiv
// Content-Type) and, as chromium does, of the rest of the head, then
// windows-1252. Labels are WHATWG's
// (gb2312 is GBK, x-sjis Shift_JIS, latin1 windows-1252, …); a label no
// encoding has counts as absent. bom is the length of the byte order mark
// that begins body, which the decoded text leaves out.
func Sniff(body []byte, contentType string) (enc encoding.Encoding, cs Charset, bom int) {
	for _, b := range boms {
		if bytes.HasPrefix(body, b.mark) {
			enc, name := charset.Lookup(b.name)
			return enc, Charset{name, SourceBOM}, len(b.mark)
		}
	}
	if isUTF8HTML(contentType) {
		return unicode.UTF8, Charset{"utf-8", SourceHeader}, 0
	}
	if enc, name := headerCharset(contentType); enc != nil {
		return enc, Charset{name, SourceHeader}, 0
	}
	head := body[:min(len(body), prescanLen)]
	// x/net's DetermineEncoding runs the standard's prescan, then tells
	// UTF-8 from windows-1252; declared tells whether a <meta> answered.
	// Browsers do not guess UTF-8 for a page from the web (chromium and
	// Firefox read it as windows-1252), and neither does Sniff.
	enc, name, _ := charset.DetermineEncoding(head, "")
	if name != "utf-8" && name != "windows-1252" || hasMeta(head) && declared(head) != "" {
		enc, name = fromMeta(enc, name)
		return enc, Charset{name, SourceMeta}, 0
	}
	if label := lateMeta(body); label != "" {
		enc, name := fromMeta(charset.Lookup(label))
		return enc, Charset{name, SourceMeta}, 0
	}
	enc, name = charset.Lookup("windows-1252")
	return enc, Charset{name, SourceDefault}, 0
}

// headerCharset reads the charset of a Content-Type as mime does, or, where
// mime refuses the header (a duplicate parameter, a stray ';', a bad
// quote), as chromium still does: the first "charset=" in it. nil when
// it names no encoding.
func headerCharset(contentType string) (encoding.Encoding, string) {
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		if label, ok := params["charset"]; ok {
			return charset.Lookup(label)
		}
		return nil, ""
	}
	if label := metaContentCharset([]byte(contentType)); label != "" {
		return charset.Lookup(label)
	}
	return nil, ""
}

// fromMeta is what a <meta> naming enc means, as the prescan says: UTF-16
// is UTF-8 (the bytes were read as ASCII to find it), and x-user-defined
// is windows-1252.
func fromMeta(enc encoding.Encoding, name string) (encoding.Encoding, string) {
	switch {
	case strings.HasPrefix(name, "utf-16"):
		return charset.Lookup("utf-8")
	case name == "x-user-defined":
		return charset.Lookup("windows-1252")
	}
	return enc, name
}

// isUTF8HTML reports the Content-Type most pages are sent with, spelled
// as most servers spell it: the answer mime.ParseMediaType would give,
// without the map it makes (a tenth of a small page's pass,
// BenchmarkPageWork/signals/farm-page).
func isUTF8HTML(contentType string) bool {
	mt, cs, ok := strings.Cut(contentType, ";")
	return ok && strings.EqualFold(mt, "text/html") &&
		(strings.EqualFold(cs, " charset=utf-8") || strings.EqualFold(cs, "charset=utf-8"))
}

// declared returns the label the <meta> prescan of head finds: of a
// <meta charset>, or of a <meta http-equiv="content-type"> whose content
// names one; the first that some encoding has, "" when none. It reads as
// x/net's prescan does (FuzzSniff holds the two together), to say where
// its answer came from; DetermineEncoding says what the answer is.
func declared(head []byte) string {
	z := html.NewTokenizer(bytes.NewReader(head))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			if name, more := z.TagName(); string(name) == "meta" && more {
				if label := metaLabel(z); label != "" {
					return label
				}
			}
		}
	}
}

// headElements are the elements that keep chromium's search for a <meta>
// charset going past the first 1024 bytes: those of a document's head.
var headElements = map[string]bool{
	"script": true, "noscript": true, "style": true, "link": true, "meta": true,
	"object": true, "title": true, "base": true,
}

// lateMeta returns the label of a <meta> charset past the first 1024
// bytes of body, while the head goes on: chromium looks there too, and
// reads the page in the encoding it names (the HTML standard's "change
// the encoding" while parsing). The head ends at the first tag of an
// element not in headElements, other than <html> and <head>; "" when no
// meta charset came before.
func lateMeta(body []byte) string {
	if len(body) <= prescanLen || !hasMeta(body[prescanLen-len("<meta")+1:]) { // a "<meta" may straddle byte 1024
		return ""
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	read, inHead := 0, true
	for {
		tt := z.Next()
		read += len(z.Raw())
		switch tt {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, more := z.TagName()
			if tt != html.EndTagToken && string(name) == "meta" && more {
				if label := metaLabel(z); label != "" {
					return label
				}
			}
			if !headElements[string(name)] && (tt == html.EndTagToken || string(name) != "html" && string(name) != "head") {
				inHead = false
			}
		}
		if !inHead && read >= prescanLen {
			return "" // past the head and the first 1024 bytes
		}
	}
}

// metaLabel reads the attributes of a <meta> tag for an encoding's label,
// as x/net's prescan does, in order: a charset needs no pragma, a
// content's charset needs http-equiv="content-type". "" when the tag
// names none that some encoding has.
func metaLabel(z *html.Tokenizer) string {
	var pragma bool
	var label string
	need := 0 // 0: no encoding named yet; 1: needs the pragma; 2: needs none
	seen := map[string]bool{}
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		switch string(k) {
		case "http-equiv":
			pragma = pragma || bytes.EqualFold(v, []byte("content-type"))
		case "content":
			if l := metaContentCharset(v); label == "" && known(l) {
				label, need = l, 1
			}
		case "charset":
			label, need = string(v), 2
			if !known(label) {
				label = ""
			}
		}
	}
	if label != "" && (need == 2 || need == 1 && pragma) {
		return label
	}
	return ""
}

// utf16 reports a body Sniff reads as UTF-16: by its BOM, or, without a
// BOM, by the header's charset. (A <meta> naming UTF-16 means UTF-8.) It
// costs no prescan.
func utf16(body []byte, contentType string) bool {
	if bytes.HasPrefix(body, boms[0].mark) {
		return false
	}
	if bytes.HasPrefix(body, boms[1].mark) || bytes.HasPrefix(body, boms[2].mark) {
		return true
	}
	if !strings.Contains(contentType, "16") {
		return false // the common case, without parsing the header
	}
	_, name := headerCharset(contentType)
	return strings.HasPrefix(name, "utf-16")
}

// known reports a label some encoding has.
func known(label string) bool {
	if label == "" {
		return false
	}
	enc, _ := charset.Lookup(label)
	return enc != nil
}

// metaContentCharset is the HTML standard's "extracting a character
// encoding from a meta element": the value after "charset", "=" and
// optional quotes, in a content attribute ("text/html; charset=koi8-r").
func metaContentCharset(v []byte) string {
	s := bytes.ToLower(v)
	for {
		i := bytes.Index(s, []byte("charset"))
		if i < 0 {
			return ""
		}
		s = bytes.TrimLeft(s[i+len("charset"):], "\t\n\f\r ")
		if len(s) == 0 || s[0] != '=' {
			continue // "charset" not followed by "=": look further
		}
		s = bytes.TrimLeft(s[1:], "\t\n\f\r ")
		if len(s) == 0 {
			return ""
		}
		if q := s[0]; q == '"' || q == '\'' {
			if j := bytes.IndexByte(s[1:], q); j >= 0 {
				return string(s[1 : 1+j])
			}
			return ""
		}
		end := bytes.IndexAny(s, "\t\n\f\r ;")
		if end < 0 {
			end = len(s)
		}
		return string(s[:end])
	}
}

// Decode returns body as text, valid UTF-8, read in the encoding Sniff
// finds for it, without its byte order mark: bytes the encoding does not
// map become U+FFFD, as in a browser. A valid UTF-8 body is returned as it
// is, not copied.
func Decode(body []byte, contentType string) ([]byte, Charset) {
	enc, cs, bom := Sniff(body, contentType)
	return decode(body[bom:], enc, cs), cs
}

// decode reads body in enc, the encoding cs names.
func decode(body []byte, enc encoding.Encoding, cs Charset) []byte {
	if cs.Name == "utf-8" {
		if utf8.Valid(body) {
			return body // most of the web: no copy
		}
		enc = unicode.UTF8 // its decoder writes U+FFFD as the Encoding standard says
	}
	if asciiCompatible(cs.Name) && isASCII(body) {
		return body // an ASCII page reads the same in all of them: no copy
	}
	if cs.Name == "gbk" {
		enc = simplifiedchinese.GB18030 // the Encoding Standard's GBK decoder is gb18030's
	}
	if cm, ok := singleByte(cs.Name); ok && hasUnmappedC1(body, cm) {
		return decodeSingleByte(body, cm)
	}
	text, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		// x/text's decoders replace what they cannot read; an error here
		// is a transform's, never the page's.
		return bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	return text
}

// asciiCompatible reports an encoding whose decoder reads every byte below
// 0x80 as that ASCII character: all of WHATWG's but UTF-16, ISO-2022-JP
// (whose ESC sequences are ASCII bytes) and replacement.
func asciiCompatible(name string) bool {
	switch name {
	case "utf-16le", "utf-16be", "iso-2022-jp", "replacement":
		return false
	}
	return true
}

// isASCII reports a body of ASCII bytes only.
func isASCII(body []byte) bool {
	for _, c := range body {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// singleByte returns the table of a single-byte encoding.
func singleByte(name string) (*charmap.Charmap, bool) {
	enc, err := htmlindex.Get(name)
	if err != nil {
		return nil, false
	}
	cm, ok := enc.(*charmap.Charmap)
	return cm, ok
}

// hasUnmappedC1 reports a byte of 0x80-0x9F in body that x/text's table
// for cm leaves unmapped; a body without one decodes by x/text as it is.
func hasUnmappedC1(body []byte, cm *charmap.Charmap) bool {
	for _, b := range body {
		if 0x80 <= b && b <= 0x9F && cm.DecodeByte(b) == utf8.RuneError {
			return true
		}
	}
	return false
}

// decodeSingleByte reads body in cm as the Encoding Standard's indexes
// do: a byte of 0x80-0x9F that x/text's table leaves unmapped is the C1
// control of the same number (windows-1252's 0x81 is U+0081, not U+FFFD).
func decodeSingleByte(body []byte, cm *charmap.Charmap) []byte {
	out := make([]byte, 0, len(body)+len(body)/8)
	for _, b := range body {
		r := cm.DecodeByte(b)
		if r == utf8.RuneError && 0x80 <= b && b <= 0x9F {
			r = rune(b)
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}
