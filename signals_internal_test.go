package polite

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/politecrawler/polite/internal/htmlpass"
	"github.com/politecrawler/polite/internal/signals"
)

// The reading of signals is internal/signals' and tested there; these are
// the tests of the public face over it, and the helpers the root's tests
// of pages (links_test.go) share.

const testAgent = "PoliteCrawler"

// signalsFor reads the signals of a page at pageURL ("" is
// https://example.com/page) for testAgent.
func signalsFor(t testing.TB, robots string, header http.Header, html, pageURL string) Signals {
	t.Helper()
	if pageURL == "" {
		pageURL = "https://example.com/page"
	}
	var rules *Robots
	if robots != "" {
		rules = ParseRobots([]byte(robots))
	}
	return readSignals(rules, testAgent, pageURL, header, *parsePage(t, html, pageURL))
}

func statements(sigs []Signal) []string {
	var out []string
	for _, s := range sigs {
		out = append(out, s.String())
	}
	return out
}

// parsePage is the HTML pass over body at pageURL.
func parsePage(t testing.TB, body, pageURL string) *htmlpass.Page {
	t.Helper()
	u, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	p := htmlpass.Parse([]byte(body), "", u)
	return &p
}

// The public Signals answer as internal/signals does on what it read:
// every method is a conversion of its answer, nothing decided twice.
func TestSignalsPublicFace(t *testing.T) {
	const ua = "User-agent: *\nAllow: /\n"
	tests := []struct {
		name, robots string
		header       http.Header
		html         string
	}{
		{"nothing said", "", nil, ""},
		{"everything at once", ua + "Content-Signal: search=yes, ai-input=no, ai-train=no\nContent-Usage: train-ai=n",
			http.Header{"Content-Usage": {"ai-use=y, search=n"}, "X-Robots-Tag": {"noindex, nofollow"}, "Tdm-Reservation": {"1"}, "Tdm-Policy": {"https://example.com/p.json"}},
			`<head><meta name="robots" content="none, max-snippet:0, noai"><meta name="politecrawler" content="noarchive"></head><p>Some text.</p>`},
		{"grants only", ua + "Content-Signal: ai-input=yes, search=yes", http.Header{"Content-Usage": {"ai-use=y, train-ai=y"}}, ""},
		{"training only", "", http.Header{"Content-Usage": {"train-ai=n, genai=n"}}, `<head><meta name="robots" content="noimageai"></head><p>Some text.</p>`},
		{"malformed", ua + "Content-Usage: Train-AI=n", http.Header{"Content-Usage": {"ai-use=n;"}}, `<head><meta name="robots" content="noindex"></head><p>Some text.</p>`},
	}
	for _, tt := range tests {
		pub := signalsFor(t, tt.robots, tt.header, tt.html, "")
		var rules *Robots
		if tt.robots != "" {
			rules = ParseRobots([]byte(tt.robots))
		}
		u, _ := url.Parse("https://example.com/page")
		in := signals.Read(rules.file(), testAgent, "https://example.com/page", tt.header, htmlpass.Parse([]byte(tt.html), "", u).Meta)

		if got, want := statements(pub.All), innerStatements(in.All); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: All %q, internal/signals read %q", tt.name, got, want)
		}
		if !reflect.DeepEqual(pub.Malformed, in.Malformed) {
			t.Errorf("%s: Malformed %q, internal/signals read %q", tt.name, pub.Malformed, in.Malformed)
		}
		ok, because := pub.AIInput()
		inOK, inBecause := in.AIInput()
		if ok != inOK || str(because) != innerStr(inBecause) {
			t.Errorf("%s: AIInput() = %v, %v; internal/signals says %v, %v", tt.name, ok, because, inOK, inBecause)
		}
		if got, want := statements(pub.TrainingOptOut()), innerStatements(in.TrainingOptOut()); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: TrainingOptOut() = %q, internal/signals says %q", tt.name, got, want)
		}
		if pub.NoFollow() != in.NoFollow() || pub.NoIndex() != in.NoIndex() {
			t.Errorf("%s: NoFollow %v NoIndex %v, internal/signals says %v %v", tt.name, pub.NoFollow(), pub.NoIndex(), in.NoFollow(), in.NoIndex())
		}
		for _, c := range []string{"ai-input", "ai-use", "AI-Use", "train-ai", "ai-train", "search", "genai", "none"} {
			p, because := pub.Category(c)
			inP, inBecause := in.Category(c)
			if p != Preference(inP) || str(because) != innerStr(inBecause) {
				t.Errorf("%s: Category(%q) = %v, %v; internal/signals says %v, %v", tt.name, c, p, because, inP, inBecause)
			}
		}
	}
}

func innerStatements(sigs []signals.Signal) []string {
	var out []string
	for _, s := range sigs {
		out = append(out, s.String())
	}
	return out
}

// str and innerStr print a deciding signal, "" for none.
func str(s *Signal) string {
	if s == nil {
		return ""
	}
	return s.String()
}

func innerStr(s *signals.Signal) string {
	if s == nil {
		return ""
	}
	return s.String()
}

// Signals built by hand, as a caller may: Category, AIInput and the rest
// read them as they read what the fetcher found.
func TestSignalsByHand(t *testing.T) {
	s := Signals{All: []Signal{
		{Source: "header Content-Usage", Name: "ai-use", Value: "y"},
		{Source: "robots.txt line 2", Name: "ai-use", Value: "n"},
		{Source: "header X-Robots-Tag", Name: "nofollow"},
		{Source: "meta robots", Name: "noai"},
	}}
	if p, because := s.Category("ai-use"); p != PreferenceNo || because == nil || *because != s.All[1] {
		t.Errorf("Category(ai-use) = %v, %v; want no, by robots.txt line 2", p, because)
	}
	if p, because := s.Category("search"); p != PreferenceUnknown || because != nil {
		t.Errorf("Category(search) = %v, %v; want unknown", p, because)
	}
	if ok, because := s.AIInput(); ok || because == nil || because.String() != "ai-use=n (robots.txt line 2)" {
		t.Errorf("AIInput() = %v, %v; want refused by ai-use=n", ok, because)
	}
	// The signal named is a copy: changing it changes nothing in All.
	if _, because := s.AIInput(); because != nil {
		because.Value = "y"
		if s.All[1].Value != "n" {
			t.Error("AIInput's signal writes through to All")
		}
	}
	if got := statements(s.TrainingOptOut()); !reflect.DeepEqual(got, []string{"noai (meta robots)"}) {
		t.Errorf("TrainingOptOut() = %q", got)
	}
	if !s.NoFollow() || s.NoIndex() {
		t.Errorf("NoFollow %v NoIndex %v, want true false", s.NoFollow(), s.NoIndex())
	}
	for _, tt := range []struct {
		sig  Signal
		want string
	}{
		{Signal{"robots.txt line 4", "ai-input", "no"}, "ai-input=no (robots.txt line 4)"},
		{Signal{"header X-Robots-Tag", "nosnippet", ""}, "nosnippet (header X-Robots-Tag)"},
		{Signal{"meta robots", "max-snippet", "0"}, "max-snippet:0 (meta robots)"},
		{Signal{"header tdm-reservation", "tdm-reservation", "1"}, "tdm-reservation: 1 (header tdm-reservation)"},
		{Signal{"header Content-Usage", "train-ai", "n"}, "train-ai=n (header Content-Usage)"},
	} {
		if got := tt.sig.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.sig, got, tt.want)
		}
	}
	var zero Signals
	if ok, because := zero.AIInput(); !ok || because != nil || zero.TrainingOptOut() != nil || zero.NoFollow() || zero.NoIndex() {
		t.Error("the zero Signals is not 'nothing said'")
	}
	if s := readSignals(nil, "", "", nil, htmlpass.Page{}); s.All != nil || s.Malformed != nil {
		t.Errorf("no agent, no URL, nothing: %v %v", s.All, s.Malformed)
	}
}

// Preference names its three answers, and converts from internal/signals'
// one for one.
func TestPreference(t *testing.T) {
	for i, p := range []Preference{PreferenceUnknown, PreferenceYes, PreferenceNo} {
		if got := p.String(); got != []string{"unknown", "yes", "no"}[i] {
			t.Errorf("Preference(%d).String() = %q", p, got)
		}
		if inner := []signals.Preference{signals.Unknown, signals.Yes, signals.No}[i]; Preference(inner) != p {
			t.Errorf("internal/signals' preference %d converts to %v, want %v", inner, Preference(inner), p)
		}
	}
}

// FuzzHTMLPass reads arbitrary bytes as a page: never a panic, and what
// comes out keeps its promises.
func FuzzHTMLPass(f *testing.F) {
	files, _ := filepath.Glob("testdata/pages/*.html")
	shells, _ := filepath.Glob("testdata/shells/*.html")
	for _, file := range append(files, shells...) {
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
		p := htmlpass.Parse(body, "", u)
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
		switch p.Shell.Mount {
		case "", "#root", "#app", "#__next", "#__nuxt", "#___gatsby", "<app-root>", "[ng-app]":
		default:
			t.Errorf("mount %q", p.Shell.Mount)
		}
		if !htmlpass.MayHaveMeta(body, "") && (len(p.Meta) != 0 || p.Refresh != "") {
			t.Errorf("MayHaveMeta false, the pass found %v %q", p.Meta, p.Refresh)
		}
		s := readSignals(nil, testAgent, pageURL, nil, p)
		text, err := aiText(body, "", s, p)
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
