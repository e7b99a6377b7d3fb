package weburl

import (
	"strings"
	"testing"
)

// fuzzEncodings are the document encodings the fuzz target picks from: one
// of each kind of encoder, and those that mean UTF-8.
var fuzzEncodings = []string{
	"", "windows-1251", "windows-1252", "iso-8859-2", "koi8-r", "x-user-defined",
	"shift_jis", "euc-jp", "iso-2022-jp", "gbk", "gb18030", "big5", "euc-kr",
	"utf-16le", "replacement",
}

// FuzzResolve: whatever the href, the base and the encoding, Resolve does
// not panic, and what it returns is an ASCII http or https URL without a
// fragment that parses again to itself, in UTF-8 and in the page's
// encoding, and that Display shows in a form Parse reads back as it.
func FuzzResolve(f *testing.F) {
	f.Add("http://example.com/dir/page", "/путь?q=слово#x", uint8(1))
	f.Add("https://example.com/", "?q=☃&r=日本", uint8(8))
	f.Add("http://a/b/c", "//пример.example:80/../x y?\t#", uint8(0))
	f.Fuzz(func(t *testing.T, base, href string, e uint8) {
		enc := fuzzEncodings[int(e)%len(fuzzEncodings)]
		r, err := NewResolver(base, enc)
		if err != nil {
			r, _ = NewResolver("", enc)
		}
		out, ok := r.Resolve(href)
		if !ok {
			return
		}
		for i := 0; i < len(out); i++ {
			if out[i] >= 0x80 || out[i] < ' ' || out[i] == 0x7F {
				t.Fatalf("Resolve(%q, %q, %s) = %q: byte %#x", base, href, enc, out, out[i])
			}
		}
		if !strings.HasPrefix(out, "http://") && !strings.HasPrefix(out, "https://") {
			t.Fatalf("Resolve(%q, %q, %s) = %q: not http(s)", base, href, enc, out)
		}
		if strings.Contains(out, "#") {
			t.Fatalf("Resolve(%q, %q, %s) = %q: a fragment", base, href, enc, out)
		}
		if len(out) > MaxRefLength {
			return // escaping can triple a ref's length: past the bound, it is not parsed again
		}
		if again, ok := Parse(out); !ok || again != out {
			t.Fatalf("Resolve(%q, %q, %s) = %q, which parses as %q, %v", base, href, enc, out, again, ok)
		}
		if again, ok := r.Resolve(out); !ok || again != out {
			t.Fatalf("Resolve(%q, %q, %s) = %q, which resolves as %q, %v", base, href, enc, out, again, ok)
		}
		if back, ok := Parse(Display(out)); !ok || back != out {
			t.Fatalf("Display(%q) = %q, which parses as %q, %v", out, Display(out), back, ok)
		}
	})
}
