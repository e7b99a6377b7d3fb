package weburl

import "testing"

func TestDisplay(t *testing.T) {
	for in, want := range map[string]string{
		// The host in U-labels, UTF-8 in path, query and fragment decoded.
		"http://xn--e1afmkfd.example/%D0%BF%D1%83%D1%82%D1%8C?q=%D1%81%D0%BB%D0%BE%D0%B2%D0%BE": "http://пример.example/путь?q=слово",
		"https://u:p@xn--bcher-kva.example:8080/caf%c3%a9#%E2%9C%93":                            "https://u:p@bücher.example:8080/café#✓",
		// A query in a legacy encoding is no UTF-8: kept.
		"http://example.com/%D0%BF?q=%F1%EB%EE%E2%EE": "http://example.com/п?q=%F1%EB%EE%E2%EE",
		// Escaped ASCII changes meaning when decoded: kept, in its case.
		"http://a/%2F%3F%23%25%41%2f?%26=%3D": "http://a/%2F%3F%23%25%41%2f?%26=%3D",
		// Spaces, controls, format characters, U+FFFD: kept.
		"http://a/%20%0A%C2%A0%E3%80%80%E2%80%8F%E2%80%AE%EF%BF%BD%C2%85": "http://a/%20%0A%C2%A0%E3%80%80%E2%80%8F%E2%80%AE%EF%BF%BD%C2%85",
		// Lookalikes of URL syntax: fullwidth solidus, question and number marks.
		"http://a/x%EF%BC%8Fy%EF%BC%9F%EF%BC%83": "http://a/x%EF%BC%8Fy%EF%BC%9F%EF%BC%83",
		// Not UTF-8: a lone lead byte, a bad trail, an overlong form, a
		// surrogate; a run of escapes with any of them is kept whole, for
		// its bytes are in another encoding, and a part of it that reads as
		// UTF-8 by chance is no character of the URL's.
		"http://a/%C3x%C3%28%C0%AF%ED%A0%80%C3%A9":       "http://a/%C3x%C3%28%C0%AF%ED%A0%80%C3%A9",
		"http://a/x?q=%A7%E1%A7%E0%A7%DA%A7%E3&r=%C3%A9": "http://a/x?q=%A7%E1%A7%E0%A7%DA%A7%E3&r=é",
		// Characters drawn as a slash: kept.
		"http://a/a%E2%88%95b%E2%81%84c": "http://a/a%E2%88%95b%E2%81%84c",
		// '%' that begins no escape.
		"http://a/100%?x=%zz%": "http://a/100%?x=%zz%",
		// Hosts: not an IDN, an IPv6 address, no host.
		"http://xn--zz.example/":         "http://xn--zz.example/",
		"http://[2001:db8::1]:81/%C3%A9": "http://[2001:db8::1]:81/é",
		"mailto:%C3%A9@example.com":      "mailto:é@example.com",
		"http://example.com":             "http://example.com",
		"":                               "",
	} {
		if got := Display(in); got != want {
			t.Errorf("Display(%q) = %q, want %q", in, got, want)
		}
	}
}

// What Display shows, parsed again, is the URL it was given.
func TestDisplayParsesBack(t *testing.T) {
	for _, c := range []struct{ ref, enc string }{
		{"http://пример.example/путь?q=слово#x", ""},
		{"/путь?q=слово", "windows-1251"},
		{"?q=日本", "shift_jis"},
		{"/a b/%2F/../c?d=%26e&f=＃#g", ""},
		{"//bücher.example:8080/é?é", ""},
	} {
		u, ok := Resolve(page, c.ref, c.enc)
		if !ok {
			t.Fatalf("Resolve(%q) refused", c.ref)
		}
		if back, ok := Parse(Display(u)); !ok || back != u {
			t.Errorf("Parse(Display(%q)) = %q (shown %q)", u, back, Display(u))
		}
	}
}
