package htmlpass

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

func encode(t testing.TB, s string, enc interface{ String(string) (string, error) }) string {
	t.Helper()
	out, err := enc.String(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The HTML standard's sniffing order (R8.4): BOM, Content-Type, the
// <meta> prescan of 1024 bytes, then windows-1252, with WHATWG's labels.
func TestSniff(t *testing.T) {
	utf16le := encode(t, "<title>Ж</title>", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder())
	tests := []struct {
		name, body, contentType string
		want                    Charset
	}{
		{"utf-8 bom beats the header", "\xEF\xBB\xBF<p>é", "text/html; charset=windows-1251", Charset{"utf-8", SourceBOM}},
		{"utf-16le bom", "\xFF\xFE" + utf16le, "text/html; charset=utf-8", Charset{"utf-16le", SourceBOM}},
		{"utf-16be bom", "\xFE\xFF\x00<", "", Charset{"utf-16be", SourceBOM}},
		{"header", "<p>x", "text/html; charset=windows-1251", Charset{"windows-1251", SourceHeader}},
		{"header utf-8", `<meta charset="gbk">`, "text/html; charset=UTF-8", Charset{"utf-8", SourceHeader}},
		{"header utf-8 unspaced", "", "Text/HTML;charset=utf-8", Charset{"utf-8", SourceHeader}},
		{"header utf-8 quoted", "", `text/html; charset="utf-8"`, Charset{"utf-8", SourceHeader}},
		{"header utf-8 and more", "", "text/html; charset=utf-8; x=y", Charset{"utf-8", SourceHeader}},
		{"header beats meta", `<meta charset="shift_jis">`, "text/html; charset=koi8-r", Charset{"koi8-r", SourceHeader}},
		{"header label gb2312 is gbk", "", "text/html; charset=GB2312", Charset{"gbk", SourceHeader}},
		{"header label quoted", "", `text/html; charset="iso8859-2"`, Charset{"iso-8859-2", SourceHeader}},
		{"header label latin1 is windows-1252", "", "text/html;charset=latin1", Charset{"windows-1252", SourceHeader}},
		{"header utf-16 without bom", utf16le, "text/html; charset=utf-16le", Charset{"utf-16le", SourceHeader}},
		{"unknown header label falls through to meta", `<meta charset=x-sjis>`, "text/html; charset=klingon", Charset{"shift_jis", SourceMeta}},
		{"meta charset", `<html><head><meta charset="Shift_JIS">`, "text/html", Charset{"shift_jis", SourceMeta}},
		{"meta http-equiv", `<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-2">`, "", Charset{"iso-8859-2", SourceMeta}},
		{"meta content without http-equiv", `<meta content="text/html; charset=ISO-8859-2">`, "", Charset{"windows-1252", SourceDefault}},
		{"meta utf-16 is utf-8", `<meta charset="utf-16le">é`, "", Charset{"utf-8", SourceMeta}},
		{"meta unknown label", `<meta charset="nope"><meta charset="euc-jp">`, "", Charset{"euc-jp", SourceMeta}},
		{"meta windows-1252", `<meta charset="windows-1252">`, "", Charset{"windows-1252", SourceMeta}},
		{"meta past 1024 bytes in the head, as chromium reads it", `<head><!--` + strings.Repeat(" ", 1024) + `--><meta charset="gbk">`, "", Charset{"gbk", SourceMeta}},
		{"meta past 1024 bytes in the body", `<body>` + strings.Repeat(" ", 1024) + `<meta charset="gbk">`, "", Charset{"windows-1252", SourceDefault}},
		{"meta past 1024 bytes after a tag of the body", `<head>` + strings.Repeat(" ", 1024) + `<div><meta charset="gbk">`, "", Charset{"windows-1252", SourceDefault}},
		{"meta past 1024 bytes, utf-16 is utf-8", strings.Repeat(" ", 1024) + `<meta charset="utf-16be">`, "", Charset{"utf-8", SourceMeta}},
		{"meta in a comment", `<!-- <meta charset="gbk"> -->`, "", Charset{"windows-1252", SourceDefault}},
		{"valid utf-8 undeclared is windows-1252, as browsers read it", "<p>привет", "", Charset{"windows-1252", SourceDefault}},
		{"header that mime refuses: the first charset", "", "text/html; charset=iso-8859-15; charset=utf-8", Charset{"iso-8859-15", SourceHeader}},
		{"header with a stray ';'", "", "text/html;;charset=iso-8859-15", Charset{"iso-8859-15", SourceHeader}},
		{"header with a space before ';'", "", "text/html; charset=windows-1251 ;foo", Charset{"windows-1251", SourceHeader}},
		{"header without charset", `<meta charset="gbk">`, "text/html; q=1", Charset{"gbk", SourceMeta}},
		{"meta x-user-defined is windows-1252", `<meta charset="x-user-defined">`, "", Charset{"windows-1252", SourceMeta}},
		{"ascii undeclared", "<p>hello", "text/html", Charset{"windows-1252", SourceDefault}},
		{"bytes undeclared", "<p>caf\xe9", "", Charset{"windows-1252", SourceDefault}},
		{"empty", "", "", Charset{"windows-1252", SourceDefault}},
	}
	for _, tt := range tests {
		_, got, _ := Sniff([]byte(tt.body), tt.contentType)
		if got != tt.want {
			t.Errorf("%s: Sniff = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// Pages as sent, read as a browser reads them (R8.4); every one gives
// valid UTF-8.
func TestDecode(t *testing.T) {
	sjis := encode(t, `<meta charset="shift_jis"><title>日本語</title><p>こんにちは`, japanese.ShiftJIS.NewEncoder())
	gbk := encode(t, `<title>中文</title>`, simplifiedchinese.GBK.NewEncoder())
	le := unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder()
	tests := []struct {
		name, body, contentType, title, text string
	}{
		{"windows-1251 header", encode(t, "<title>Привет</title><p>мир", charmap.Windows1251.NewEncoder()), "text/html; charset=windows-1251", "Привет", "мир"},
		{"shift_jis meta", sjis, "text/html", "日本語", "こんにちは"},
		{"gb2312 label", gbk, "text/html; charset=gb2312", "中文", ""},
		{"utf-8 bom under a contradicting header", "\xEF\xBB\xBF<title>Ünïcödé</title>", "text/html; charset=windows-1251", "Ünïcödé", ""},
		{"utf-16le bom", "\xFF\xFE" + encode(t, "<title>Ж</title><p>ж", le), "", "Ж", "ж"},
		{"utf-16le header without bom", encode(t, "<title>Ж</title>", le), "text/html; charset=utf-16le", "Ж", ""},
		{"header lies: utf-8, bytes are windows-1251", "<title>\xcf\xf0\xe8</title>", "text/html; charset=utf-8", "\uFFFD\uFFFD\uFFFD", ""},
		{"odd utf-16 length", "\xFF\xFE<\x00p\x00>\x00x", "", "", "\uFFFD"},
		{"a meta in the body is too late", "<title>\xcf</title><p>" + strings.Repeat(" ", 1100) + `<meta charset="windows-1251">`, "", "Ï", ""},
		{"a meta in a long head is not", "<title>\xcf</title>" + strings.Repeat(" ", 1100) + `<meta charset="windows-1251">`, "", "П", ""},
		{"replacement encoding", "<title>x</title>", "text/html; charset=iso-2022-kr", "", "\uFFFD"},
		{"a title keeps U+00A0, as document.title does", "<title> a&nbsp;b \t c\u3000d </title>", "text/html; charset=utf-8", "a\u00a0b c\u3000d", ""},
		// As the Encoding Standard's indexes say, where x/text's tables differ.
		{"windows-1252's unmapped bytes are C1 controls", "<title>\x80\x81\x8d</title>", "text/html; charset=windows-1252", "\u20ac\u0081\u008d", ""},
		{"iso-8859-2's 0x80-0x9F are C1 controls", "<title>\x85\xa3</title>", "text/html; charset=iso-8859-2", "\u0085\u0141", ""},
		{"gbk reads gb18030's four bytes", "<title>\x95\x32\x82\x36</title>", "text/html; charset=gbk", "\U00020000", ""},
	}
	for _, tt := range tests {
		p := Parse([]byte(tt.body), tt.contentType, nil)
		if p.Title != tt.title || p.Text != tt.text {
			t.Errorf("%s: Title %q, Text %q; want %q, %q", tt.name, p.Title, p.Text, tt.title, tt.text)
		}
		text, _ := Decode([]byte(tt.body), tt.contentType)
		if !utf8.Valid(text) || !utf8.ValidString(p.Title) || !utf8.ValidString(p.Text) {
			t.Errorf("%s: invalid UTF-8 out", tt.name)
		}
		if bytes.HasPrefix(text, []byte("\uFEFF")) {
			t.Errorf("%s: the byte order mark was kept", tt.name)
		}
	}
}

// A valid UTF-8 body is read in place, and so is an ASCII one in any
// ASCII-compatible encoding: decoding them costs no copy.
func TestDecodeUTF8InPlace(t *testing.T) {
	body := []byte("<p>déjà vu")
	text, _ := Decode(body, "text/html; charset=utf-8")
	if &text[0] != &body[0] {
		t.Error("Decode copied a valid UTF-8 body")
	}
	// An ASCII page reads the same in every ASCII-compatible encoding.
	for _, ct := range []string{"", "text/html; charset=windows-1251", "text/html; charset=shift_jis"} {
		body := []byte("<p>plain ASCII")
		if text, _ := Decode(body, ct); &text[0] != &body[0] {
			t.Errorf("Decode copied an ASCII body sent as %q", ct)
		}
	}
}

func TestMetaContentCharset(t *testing.T) {
	tests := map[string]string{
		"text/html; charset=koi8-r":  "koi8-r",
		"text/html;charset = 'gbk'":  "gbk",
		`charset="big5`:              "",
		"charsetx; charset=euc-jp":   "euc-jp",
		"text/html; CHARSET=Big5 ;x": "big5",
		"charset=":                   "",
		"no":                         "",
	}
	for in, want := range tests {
		if got := metaContentCharset([]byte(in)); got != want {
			t.Errorf("metaContentCharset(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzSniff holds declared, which says where an encoding came from, to
// x/net's prescan, which decides it: a label declared is the encoding
// DetermineEncoding finds; none declared leaves its fallback. High bytes
// are made 0xFF first, which no label has and no UTF-8 is, so that
// fallback is windows-1252.
func FuzzSniff(f *testing.F) {
	fuzzPage, _ := url.Parse("https://example.com/dir/page.html")
	for _, s := range []string{
		`<meta charset="gbk">`, `<meta http-equiv=content-type content="text/html; charset=euc-jp">`,
		`<meta content="charset=big5" http-equiv="Content-Type">`, `<meta charset=nope content="charset=gbk" http-equiv=content-type>`,
		`<meta charset="utf-16">`, `<!--<meta charset=gbk>-->`, `<script><meta charset=gbk></script>`,
		`<meta charset=gbk charset=big5>`, "<meta\fcharset=sjis>", `<META CHARSET=" latin2 ">`,
		"<meta charset=windows-1251><a href=\"/\xef?q=\xf1\">", "<meta charset=gbk><base href=\"\xd6\xd0/\"><a href=\"x?\xd6\xd0\">",
		"\xff\xfe<\x00a\x00 \x00h\x00r\x00e\x00f\x00=\x00/\x00\x16\x04>\x00",
	} {
		f.Add([]byte(s), "")
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		enc, cs, bom := Sniff(body, contentType)
		if enc == nil || cs.Name == "" || bom > len(body) {
			t.Fatalf("Sniff = %v, %+v, %d", enc, cs, bom)
		}
		text, _ := Decode(body, contentType)
		if !utf8.Valid(text) {
			t.Fatalf("Decode gave invalid UTF-8")
		}
		p := Parse(body, contentType, fuzzPage)
		if !utf8.ValidString(p.Title) || !utf8.ValidString(p.Text) {
			t.Fatalf("Parse gave invalid UTF-8")
		}
		for _, l := range append(p.Links, Link{URL: p.Refresh}) {
			for i := 0; i < len(l.URL); i++ {
				if c := l.URL[i]; c <= ' ' || c >= 0x7f {
					t.Fatalf("link %q: byte %#x is not printable ASCII", l.URL, c)
				}
			}
		}

		head := bytes.Clone(body[:min(len(body), prescanLen)])
		for i, c := range head {
			if c >= 0x80 {
				head[i] = 0xFF
			}
		}
		_, name, _ := charset.DetermineEncoding(head, "")
		want := "windows-1252"
		if label := declared(head); label != "" {
			_, want = charset.Lookup(label)
			if strings.HasPrefix(want, "utf-16") {
				want = "utf-8"
			}
		}
		if name != want {
			t.Fatalf("x/net's prescan finds %s; declared says %s", name, want)
		}
	})
}
