package weburl

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The URL Standard's own tests, from web-platform-tests (testdata/README).

// wptCase is one case of urltestdata.json: input parsed against base (no
// base when nil) serialises as href, or fails.
type wptCase struct {
	Input    string  `json:"input"`
	Base     *string `json:"base"`
	Href     string  `json:"href"`
	Protocol string  `json:"protocol"`
	Hostname string  `json:"hostname"`
	Failure  bool    `json:"failure"`
}

func (c wptCase) key() string {
	if c.Base == nil {
		return c.Input
	}
	return c.Input + " <base " + *c.Base + ">"
}

// Why whatwg-url v0.6.2 parses these cases otherwise than the standard
// does today, keyed by wptCase.key.
const (
	// The standard since 2025-03 (opaque paths always roundtrip) writes a
	// space that ends an opaque path before '?' or '#' as %20. Only
	// non-special URLs (not http or https) have opaque paths.
	opaqueSpace = "opaque path: trailing space before ? or # not written %20"
	// The standard since 2026-06 takes an ASCII domain, lower-cased, when
	// Unicode ToASCII fails on it (invalid Punycode); v0.6.2 refuses it.
	// Resolve refuses such links, as urltrap.Normalize refuses their host:
	// no request is made that a browser would not make.
	asciiFallback = "ASCII domain whose Punycode ToASCII refuses: now taken lower-cased"
)

var knownWPTFailures = map[string]string{
	"non-special:opaque  ?hi":        opaqueSpace,
	"non-special:opaque  #hi":        opaqueSpace,
	"non-special:opaque \t\t  \t#hi": opaqueSpace,
	"non-special:opaque \t\t  #hi":   opaqueSpace,
	"non-special:opaque\t\t  \r #hi": opaqueSpace,
	"http://a.b.c.xn--pokxncvks":     asciiFallback,
	"http://10.0.0.xn--pokxncvks":    asciiFallback,
	"http://a.b.c.XN--pokxncvks":     asciiFallback,
	"http://a.b.c.Xn--pokxncvks":     asciiFallback,
	"http://10.0.0.XN--pokxncvks":    asciiFallback,
	"http://10.0.0.xN--pokxncvks":    asciiFallback,
	"file://xn--/p":                  asciiFallback,
	"https://xn--/":                  asciiFallback,
}

func readWPT(t testing.TB) []wptCase {
	t.Helper()
	data, err := os.ReadFile("testdata/urltestdata.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	var cases []wptCase
	for _, m := range raw {
		if len(m) > 0 && m[0] == '"' {
			continue // a comment
		}
		var c wptCase
		if err := json.Unmarshal(m, &c); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	return cases
}

// wptHref parses c as the URL constructor does (new URL(input, base)),
// through the parsing path Resolve takes, and serialises it whole.
func wptHref(c wptCase) (string, bool) {
	base := ""
	if c.Base != nil {
		base = *c.Base
	}
	r, err := NewResolver(base, "")
	if err != nil {
		return "", false
	}
	href, err := r.href(c.Input)
	return href, err == nil
}

// TestURLStandard runs every case of urltestdata.json, whatever its scheme,
// fragments included. A failure not in knownWPTFailures fails the test, and
// so does a listed one that now passes.
func TestURLStandard(t *testing.T) {
	cases := readWPT(t)
	if len(cases) < 800 {
		t.Fatalf("only %d cases read", len(cases))
	}
	pass, known := 0, 0
	for _, c := range cases {
		got, ok := wptHref(c)
		var problem string
		switch {
		case c.Failure && ok:
			problem = "want failure, got " + got
		case !c.Failure && !ok:
			problem = "want " + c.Href + ", got failure"
		case !c.Failure && got != c.Href:
			problem = "want " + c.Href + ", got " + got
		}
		reason, listed := knownWPTFailures[c.key()]
		switch {
		case problem == "" && listed:
			t.Errorf("%q passes now; take it off knownWPTFailures (%s)", c.key(), reason)
		case problem == "":
			pass++
		case listed:
			known++
		default:
			t.Errorf("%q: %s", c.key(), problem)
		}
	}
	t.Logf("urltestdata.json: %d of %d cases pass; %d known failures", pass, len(cases), known)
}

// TestResolveURLStandard runs the same cases through Resolve: it takes
// exactly the http and https URLs with a host, and writes them without the
// fragment.
func TestResolveURLStandard(t *testing.T) {
	for _, c := range readWPT(t) {
		if _, listed := knownWPTFailures[c.key()]; listed {
			continue
		}
		base := ""
		if c.Base != nil {
			base = *c.Base
		}
		got, ok := Resolve(base, c.Input, "")
		web := !c.Failure && (c.Protocol == "http:" || c.Protocol == "https:") && c.Hostname != ""
		want, _, _ := strings.Cut(c.Href, "#")
		switch {
		case ok != web:
			t.Errorf("Resolve(%q) ok = %v, want %v (%q)", c.key(), ok, web, c.Href)
		case ok && got != want:
			t.Errorf("Resolve(%q) = %q, want %q", c.key(), got, want)
		}
	}
}

// TestPercentEncoding runs percent-encoding.json as its web-platform-tests
// page does: the input is the query and the fragment of a link in a page of
// each encoding; the query comes out encoded in it, the fragment in UTF-8.
func TestPercentEncoding(t *testing.T) {
	data, err := os.ReadFile("testdata/percent-encoding.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	total, pass := 0, 0
	for _, m := range raw {
		if len(m) > 0 && m[0] == '"' {
			continue
		}
		var c struct {
			Input  string            `json:"input"`
			Output map[string]string `json:"output"`
		}
		if err := json.Unmarshal(m, &c); err != nil {
			t.Fatal(err)
		}
		const base = "https://doesnotmatter.invalid/"
		for enc, out := range c.Output {
			total++
			r, err := NewResolver("", enc)
			if err != nil {
				t.Errorf("%s: %v", enc, err)
				continue
			}
			got, err := r.href(base + "?" + c.Input + "#" + c.Input)
			if want := base + "?" + out + "#" + c.Output["utf-8"]; err != nil || got != want {
				t.Errorf("%q in %s: got %q (%v), want %q", c.Input, enc, got, err, want)
				continue
			}
			pass++
		}
	}
	t.Logf("percent-encoding.json: %d of %d pass", pass, total)
}
