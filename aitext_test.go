package polite

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/politecrawler/polite/internal/htmlpass"
)

func parsePage(t testing.TB, body, pageURL string) *htmlpass.Page {
	t.Helper()
	u, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	p := htmlpass.Parse([]byte(body), u)
	return &p
}

func TestAITextAllowed(t *testing.T) {
	body := "<html><head><title>T</title><script>x()</script></head><body><h1>Head</h1><p>One  two.</p></body></html>"
	page := parsePage(t, body, "https://example.com/")
	// A training opt-out alone does not hold the text back (R7.3).
	sig := signalsFor(t, "User-agent: *\nContent-Signal: ai-train=no", hdr("Content-Usage", "train-ai=n"), body, "")
	got, err := aiText([]byte(body), sig, *page)
	if err != nil || got != "Head\nOne two." {
		t.Errorf("aiText = %q, %v; want the text", got, err)
	}
	// A page never read is read from the body.
	if got, err := aiText([]byte(body), Signals{}, htmlpass.Page{}); err != nil || got != "Head\nOne two." {
		t.Errorf("aiText without a page = %q, %v; want the text", got, err)
	}
	if got, err := aiText(nil, Signals{}, htmlpass.Page{}); err != nil || got != "" {
		t.Errorf("aiText of nothing = %q, %v", got, err)
	}
}

func TestAITextRefused(t *testing.T) {
	body := "<p>Secret sauce.</p>"
	tests := []struct {
		robots, source, name string
	}{
		{"User-agent: *\nContent-Signal: ai-input=no\nAllow: /", "robots.txt line 2", "ai-input=no"},
		{"User-agent: *\nContent-Usage: ai-use=n", "robots.txt line 2", "ai-use=n"},
	}
	for _, tt := range tests {
		sig := signalsFor(t, tt.robots, nil, body, "")
		got, err := aiText([]byte(body), sig, *parsePage(t, body, "https://example.com/"))
		if got != "" {
			t.Errorf("%s: text %q given despite the refusal", tt.name, got)
		}
		if !errors.Is(err, ErrAIInputRefused) {
			t.Fatalf("%s: err = %v, want ErrAIInputRefused", tt.name, err)
		}
		var refused *AIInputRefusedError
		if !errors.As(err, &refused) || refused.Signal.Source != tt.source {
			t.Errorf("%s: err = %#v, want an *AIInputRefusedError from %s", tt.name, err, tt.source)
		}
		if msg := err.Error(); !strings.Contains(msg, tt.name) || !strings.Contains(msg, tt.source) {
			t.Errorf("%s: message %q names neither the signal nor its source", tt.name, msg)
		}
	}
	err := &AIInputRefusedError{Signal: Signal{Source: "header X-Robots-Tag", Name: "nosnippet"}}
	if want := "polite: AI input refused by the site: nosnippet (header X-Robots-Tag)"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if errors.Is(err, ErrDisallowed) {
		t.Error("a refusal of AI input is not a disallowed URL")
	}
}

// TextForAI and Links on a Result, as the fetcher fills it: the page is
// read when first asked for.
func TestAITextResult(t *testing.T) {
	body := `<meta name="robots" content="nofollow"><p>Text</p><a href="/a">a</a>`
	u, _ := url.Parse("https://example.com/x")
	r := &Result{URL: "https://example.com/x", Status: 200, Body: []byte(body), page: newLazyPage([]byte(body), u),
		Signals: signalsFor(t, "", nil, body, "https://example.com/x")}
	if got, err := r.TextForAI(); err != nil || got != "Text\na" {
		t.Errorf("TextForAI() = %q, %v", got, err)
	}
	if got := r.Links(); len(got) != 1 || got[0] != (Link{URL: "https://example.com/a", NoFollow: true}) {
		t.Errorf("Links() = %v", got)
	}

	r.Signals = signalsFor(t, "", hdr("X-Robots-Tag", "nosnippet"), body, "https://example.com/x")
	if got, err := r.TextForAI(); got != "" || !errors.Is(err, ErrAIInputRefused) {
		t.Errorf("refused: TextForAI() = %q, %v", got, err)
	}

	// An error result has no text; a body cut at the cap still has some.
	failed := &Result{Err: ErrDisallowed}
	if got, err := failed.TextForAI(); got != "" || !errors.Is(err, ErrDisallowed) {
		t.Errorf("error result: TextForAI() = %q, %v", got, err)
	}
	if failed.Links() != nil {
		t.Error("error result has links")
	}
	cut := &Result{Err: ErrBodyTooLarge, Body: []byte("<p>The start")}
	if got, err := cut.TextForAI(); err != nil || got != "The start" {
		t.Errorf("truncated: TextForAI() = %q, %v", got, err)
	}
}

// FuzzHTMLPass reads arbitrary bytes as a page: never a panic, and what
// comes out keeps its promises.
func FuzzHTMLPass(f *testing.F) {
	files, _ := filepath.Glob("testdata/pages/*.html")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b, "https://example.com/"+filepath.Base(file))
		}
	}
	f.Add([]byte("<svg><style><p>x</style></svg><template><template></template>y</template>z"), "")
	f.Add([]byte("<pre>\n a\n\n  b</pre><xmp><p></xmp><plaintext><a href=x>"), "http://h/")
	f.Add([]byte(`<META NAME=Robots CONTENT=noai><p>upper case only`), "")
	f.Add([]byte(`<script>"<meta name=robots content=none>"</script><!-- <meta name=x> --><meta`), "")
	f.Fuzz(func(t *testing.T, body []byte, pageURL string) {
		u, err := url.Parse(pageURL)
		if err != nil {
			u = nil
		}
		p := htmlpass.Parse(body, u)
		if !utf8.ValidString(p.Text) || len(p.Text) > htmlpass.MaxText || strings.TrimSpace(p.Text) != p.Text {
			t.Errorf("Text breaks its promises: %q", p.Text)
		}
		if n := htmlpass.TextLen(body); n != utf8.RuneCountInString(p.Text) {
			t.Errorf("TextLen %d, Text has %d characters", n, utf8.RuneCountInString(p.Text))
		}
		if len(p.Links) > htmlpass.MaxLinks {
			t.Errorf("%d links", len(p.Links))
		}
		seen := map[string]bool{}
		for _, l := range p.Links {
			lu, err := url.Parse(l.URL)
			if err != nil || lu.Scheme != "http" && lu.Scheme != "https" || lu.Host == "" || strings.Contains(l.URL, "#") || seen[l.URL] {
				t.Errorf("link %q", l.URL)
			}
			seen[l.URL] = true
		}
		if p.Refresh != "" && !strings.HasPrefix(p.Refresh, "http") {
			t.Errorf("refresh %q", p.Refresh)
		}
		if !htmlpass.MayHaveMeta(body) && (len(p.Meta) != 0 || p.Refresh != "") {
			t.Errorf("MayHaveMeta false, the pass found %v %q", p.Meta, p.Refresh)
		}
		s := readSignals(nil, testAgent, pageURL, nil, p)
		text, err := aiText(body, s, p)
		if ok, _ := s.AIInput(); ok != (err == nil) || ok && text != p.Text || !ok && text != "" {
			t.Errorf("aiText = %q, %v with AIInput %v", text, err, ok)
		}
		links := pageLinks(&p, s)
		for _, l := range links {
			if s.NoFollow() && !l.NoFollow {
				t.Errorf("page says nofollow, link %q does not", l.URL)
			}
		}
	})
}
