package challenge

import (
	"bytes"
	"fmt"
	"net/textproto"
	"strconv"
	"strings"
	"testing"

	"github.com/politecrawler/polite/internal/htmlpass"
)

// The decisive headers are read by map index: a key in another form than
// the canonical one net/http keys a response's header by would never be
// found, and the header it names would go unread.
func TestDecisiveHeadersAreCanonical(t *testing.T) {
	for _, h := range decisiveHeaders {
		if c := textproto.CanonicalMIMEHeaderKey(h.name); c != h.name {
			t.Errorf("key %q is read by map index, but responses carry it as %q", h.name, c)
		}
	}
}

// signature is a body marker or a CAPTCHA widget, with the evidence it
// gives on a 503.
type signature struct {
	text, evidence string
	shell, widget  bool
}

func signatures() []signature {
	var out []signature
	for _, m := range challengeMarkers {
		out = append(out, signature{m.text, fmt.Sprintf("status 503, body %q", m.text), m.shell, false})
	}
	for _, w := range captchaWidgets {
		out = append(out, signature{w, fmt.Sprintf("status 503, CAPTCHA %q", w), true, true})
	}
	return out
}

// Each marker and widget is found wherever it sits, after a false start
// too, and not in its own prefix; on a 200, only those a shell carries
// count, and a widget only on a page titled as a check.
func TestDetectFindsEachMarkerAnywhere(t *testing.T) {
	for _, s := range signatures() {
		m := []byte(s.text)
		for _, body := range [][]byte{
			m,
			append([]byte("<html><body>"), m...),
			append(append([]byte("x"), m...), "</body>"...),
			append(append([]byte{}, m[:len(m)-1]...), m...), // a false start just before it
		} {
			if c, ok := Detect(503, nil, body); !ok || c.Evidence != s.evidence {
				t.Errorf("marker %q in %q on a 503: %+v, %v; want %s", m, body, c, ok, s.evidence)
			}
			if _, ok := Detect(200, nil, body); ok != (s.shell && !s.widget) {
				t.Errorf("marker %q (shell %v) in %q on a 200: found %v", m, s.shell, body, ok)
			}
		}
		if c, ok := Detect(503, nil, m[:len(m)-1]); ok {
			t.Errorf("marker %q found in its own prefix: %+v", m, c)
		}
		if s.widget {
			page := append([]byte("<title>Security check</title>"), m...)
			if _, ok := Detect(200, nil, page); !ok {
				t.Errorf("widget %q on a tiny 200 titled as a check not found", m)
			}
		}
	}
}

// On a 200 the markers of a block page are not looked for: a shell's
// marker decides, though a block page's comes first in the table.
func TestDetectShellMarkersOn200(t *testing.T) {
	body := []byte("Sorry, you have been blocked. Checking your browser <div class=g-recaptcha>")
	if c, ok := Detect(200, nil, body); !ok || c.Evidence != `status 200, tiny page, body "Checking your browser"` {
		t.Errorf("on a 200: %+v, %v; want the shell marker", c, ok)
	}
	if c, ok := Detect(503, nil, body); !ok || c.Vendor != "Cloudflare" || c.Evidence != `status 503, body "Sorry, you have been blocked"` {
		t.Errorf("on a 503: %+v, %v; want Cloudflare's block marker", c, ok)
	}
}

// The text measure challenge detection uses (the HTML pass's): scripts,
// styles, comments and markup do not count; white space runs count once.
func TestChallengeTextMeasure(t *testing.T) {
	cases := map[string]int{
		"":                                      0,
		"<p>hello  world</p>":                   11,
		"<script>var a = '<p>x</p>';</script>x": 1,
		"<STYLE>p{}</style><!-- c -->ab":        2,
		"<script>never closed":                  0,
	}
	for in, want := range cases {
		if got := htmlpass.TextLen([]byte(in)); got != want {
			t.Errorf("TextLen(%q) = %d, want %d", in, got, want)
		}
	}
}

// FuzzDetect: a challenge is found exactly when a search per marker finds
// one on a page small enough, on a 503 or (shell) a 200, and its evidence
// quotes a marker the body holds.
func FuzzDetect(f *testing.F) {
	for _, s := range signatures() {
		f.Add(append([]byte("<p>"), s.text...), false)
	}
	f.Add([]byte("__cf_chl__cf_chl_window._cf_chl_opt"), true)
	f.Add([]byte("h-captchahcaptcha.com/1/api.jsh-"), false)
	f.Add([]byte("ab"), true)
	f.Fuzz(func(t *testing.T, body []byte, shell bool) {
		status, limit := 503, refusalTextMax
		if shell {
			status, limit = 200, shellTextMax
		}
		c, ok := Detect(status, nil, body)
		small := htmlpass.TextLen(body) < limit
		want, quoted := false, !ok
		for _, s := range signatures() {
			if !bytes.Contains(body, []byte(s.text)) {
				continue
			}
			if small && (!shell || s.shell && (!s.widget || titledAsCheck(body))) {
				want = true
			}
			quoted = quoted || strings.Contains(c.Evidence, strconv.Quote(s.text))
		}
		if ok != want {
			t.Fatalf("status %d: Detect found %v (%+v), a search per marker %v", status, ok, c, want)
		}
		if !quoted {
			t.Fatalf("evidence %q quotes no marker of the body", c.Evidence)
		}
	})
}

// BenchmarkDetect is the cost on an ordinary page, which has no marker: a
// 200 looks for a shell's markers, a 503 for all, through the body's
// first 64 KiB at most.
func BenchmarkDetect(b *testing.B) {
	line := []byte("<p>Some ordinary text with <a href=\"/cgi/page\">links</a> and words.</p>\n")
	pages := []struct {
		name string
		body []byte
	}{
		{"small", bytes.Repeat(line, 4)},
		{"64KiB", bytes.Repeat(line, 64<<10/len(line)+1)[:64<<10]},
	}
	for _, page := range pages {
		for _, status := range []int{200, 503} {
			b.Run(fmt.Sprintf("%s/%d", page.name, status), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(page.body)))
				for b.Loop() {
					Detect(status, nil, page.body)
				}
			})
		}
	}
}
