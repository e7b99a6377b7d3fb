package signals

import (
	"net/textproto"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/politecrawler/polite/internal/htmlpass"
	"github.com/politecrawler/polite/internal/robotstxt"
)

const testAgent = "PoliteCrawler"

// hdr builds a header from name, value pairs; a name may repeat. Its keys
// are canonical, as net/http keys a response's header.
func hdr(kv ...string) textproto.MIMEHeader {
	h := textproto.MIMEHeader{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// meta is a page whose head holds the given meta tags.
func meta(tags ...string) string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>t</title>")
	for i := 0; i+1 < len(tags); i += 2 {
		b.WriteString(`<meta name="` + tags[i] + `" content="` + tags[i+1] + `">`)
	}
	b.WriteString("</head><body><p>Some text.</p></body></html>")
	return b.String()
}

// signalsFor reads the signals of a page at pageURL ("" is
// https://example.com/page) for testAgent.
func signalsFor(t testing.TB, robots string, header textproto.MIMEHeader, html, pageURL string) Set {
	t.Helper()
	if pageURL == "" {
		pageURL = "https://example.com/page"
	}
	var rules *robotstxt.File
	if robots != "" {
		rules = robotstxt.Parse([]byte(robots))
	}
	u, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	return Read(rules, testAgent, pageURL, header, htmlpass.Parse([]byte(html), "", u).Meta)
}

func statements(sigs []Signal) []string {
	var out []string
	for _, s := range sigs {
		out = append(out, s.String())
	}
	return out
}

// Every row of the decision table (reference/content-signals.md), from each
// place the signal can be given.
func TestSignalsDecisionTable(t *testing.T) {
	const ua = "User-agent: *\nAllow: /\n"
	tests := []struct {
		name     string
		robots   string
		header   textproto.MIMEHeader
		html     string
		because  string   // the refusing signal; "" when AI input is allowed
		training []string // TrainingOptOut
	}{
		{name: "nothing said"},
		// Cloudflare Content-Signal.
		{name: "CS ai-input=no", robots: ua + "Content-Signal: ai-input=no",
			because: "ai-input=no (robots.txt line 3)"},
		{name: "CS ai-input=yes", robots: ua + "Content-Signal: ai-input=yes"},
		{name: "CS ai-train=no", robots: ua + "Content-Signal: ai-train=no",
			training: []string{"ai-train=no (robots.txt line 3)"}},
		{name: "CS search=no", robots: ua + "Content-Signal: search=no"},
		{name: "CS managed robots.txt", robots: ua + "Content-Signal: search=yes, ai-train=no",
			training: []string{"ai-train=no (robots.txt line 3)"}},
		{name: "CS the published example", robots: ua + "Content-Signal: search=yes, ai-input=no, ai-train=no",
			because: "ai-input=no (robots.txt line 3)", training: []string{"ai-train=no (robots.txt line 3)"}},
		{name: "CS use=immediate", robots: ua + "Content-Signal: use=immediate"},
		{name: "CS use=full", robots: ua + "Content-Signal: use=full"},
		{name: "CS use=reference", robots: ua + "Content-Signal: use=reference",
			because: "use=reference (robots.txt line 3)"},
		{name: "CS header", header: hdr("Content-Signal", "ai-input=no"),
			because: "ai-input=no (header Content-Signal)"},
		{name: "CS meta", html: meta("content-signal", "ai-input=no"),
			because: "ai-input=no (meta content-signal)"},
		// AIPREF Content-Usage.
		{name: "CU ai-use=n robots", robots: ua + "Content-Usage: ai-use=n",
			because: "ai-use=n (robots.txt line 3)"},
		{name: "CU ai-use=n header", header: hdr("Content-Usage", "ai-use=n"),
			because: "ai-use=n (header Content-Usage)"},
		{name: "CU ai-use=y", header: hdr("Content-Usage", "ai-use=y")},
		{name: "CU train-ai=n", header: hdr("Content-Usage", "train-ai=n"),
			training: []string{"train-ai=n (header Content-Usage)"}},
		{name: "CU train-genai genai ai", header: hdr("Content-Usage", "train-genai=n, genai=n, ai=n"),
			training: []string{"train-genai=n (header Content-Usage)", "genai=n (header Content-Usage)", "ai=n (header Content-Usage)"}},
		{name: "CU train-ai=n robots", robots: ua + "Content-Usage: train-ai=n",
			training: []string{"train-ai=n (robots.txt line 3)"}},
		{name: "CU ai-output=n", header: hdr("Content-Usage", "ai-output=n"),
			because: "ai-output=n (header Content-Usage)"},
		{name: "CU inference=n", header: hdr("Content-Usage", "inference=n"),
			because: "inference=n (header Content-Usage)"},
		{name: "CU bots=n", header: hdr("Content-Usage", "bots=n"), because: "bots=n (header Content-Usage)"},
		{name: "CU all=n", header: hdr("Content-Usage", "all=n"), because: "all=n (header Content-Usage)"},
		{name: "CU tdm=n", robots: ua + "Content-Usage: tdm=n", because: "tdm=n (robots.txt line 3)"},
		{name: "CU search=n", header: hdr("Content-Usage", "search=n")},
		{name: "CU everything allowed", header: hdr("Content-Usage", "train-ai=y, ai-use=y, search=y")},
		// Robots meta and X-Robots-Tag.
		{name: "nosnippet header", header: hdr("X-Robots-Tag", "nosnippet"),
			because: "nosnippet (header X-Robots-Tag)"},
		{name: "nosnippet meta", html: meta("robots", "nosnippet"), because: "nosnippet (meta robots)"},
		{name: "max-snippet:0 header", header: hdr("X-Robots-Tag", "max-snippet:0"),
			because: "max-snippet:0 (header X-Robots-Tag)"},
		{name: "max-snippet:0 meta", html: meta("robots", "max-snippet: 0"), because: "max-snippet:0 (meta robots)"},
		{name: "max-snippet:50", html: meta("robots", "max-snippet:50")},
		{name: "max-snippet:-1", header: hdr("X-Robots-Tag", "max-snippet:-1")},
		{name: "noarchive header", header: hdr("X-Robots-Tag", "noarchive"),
			because: "noarchive (header X-Robots-Tag)"},
		{name: "noarchive meta", html: meta("robots", "noarchive"), because: "noarchive (meta robots)"},
		{name: "nocache (Bing)", html: meta("robots", "nocache"), because: "nocache (meta robots)"},
		{name: "noindex", html: meta("robots", "noindex")},
		{name: "nofollow", header: hdr("X-Robots-Tag", "nofollow")},
		{name: "none", html: meta("robots", "none")},
		{name: "noai", html: meta("robots", "noai"), training: []string{"noai (meta robots)"}},
		{name: "noimageai", header: hdr("X-Robots-Tag", "noimageai"),
			training: []string{"noimageai (header X-Robots-Tag)"}},
		{name: "own meta name", html: meta("politecrawler", "nosnippet"), because: "nosnippet (meta politecrawler)"},
		// TDMRep.
		{name: "tdm-reservation 1 header", header: hdr("tdm-reservation", "1"),
			because: "tdm-reservation: 1 (header tdm-reservation)"},
		{name: "tdm-reservation 1 meta", html: meta("tdm-reservation", "1"),
			because: "tdm-reservation: 1 (meta tdm-reservation)"},
		{name: "tdm-reservation 0", header: hdr("tdm-reservation", "0")},
		{name: "tdm-reservation garbage", header: hdr("tdm-reservation", "yes")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := signalsFor(t, tt.robots, tt.header, tt.html, "")
			allowed, because := s.AIInput()
			switch {
			case tt.because == "" && (!allowed || because != nil):
				t.Errorf("AIInput() = %v, %v; want allowed (signals %v)", allowed, because, statements(s.All))
			case tt.because != "" && (allowed || because == nil || because.String() != tt.because):
				t.Errorf("AIInput() = %v, %v; want refused by %s (signals %v)", allowed, because, tt.because, statements(s.All))
			}
			if got := statements(s.TrainingOptOut()); !reflect.DeepEqual(got, tt.training) {
				t.Errorf("TrainingOptOut() = %q, want %q", got, tt.training)
			}
		})
	}
}

func TestSignalsNoFollowNoIndex(t *testing.T) {
	tests := []struct {
		name              string
		header            textproto.MIMEHeader
		html              string
		noFollow, noIndex bool
	}{
		{"nothing", nil, "", false, false},
		{"meta nofollow", nil, meta("robots", "nofollow"), true, false},
		{"meta noindex", nil, meta("robots", "noindex"), false, true},
		{"meta none", nil, meta("robots", "NONE"), true, true},
		{"header", hdr("X-Robots-Tag", "noindex, nofollow"), "", true, true},
		{"header for another bot", hdr("X-Robots-Tag", "googlebot: noindex, nofollow"), "", false, false},
		{"meta for another bot", nil, meta("googlebot", "noindex"), false, false},
		{"own meta", nil, meta("PoliteCrawler", "nofollow"), true, false},
		{"index, follow", nil, meta("robots", "index, follow, all"), false, false},
	}
	for _, tt := range tests {
		s := signalsFor(t, "", tt.header, tt.html, "")
		if s.NoFollow() != tt.noFollow || s.NoIndex() != tt.noIndex {
			t.Errorf("%s: NoFollow %v NoIndex %v, want %v %v", tt.name, s.NoFollow(), s.NoIndex(), tt.noFollow, tt.noIndex)
		}
	}
}

// Statements combine per category: any no → no, else any yes → yes, else
// unknown; robots.txt and the header are both statements, neither
// overrides the other.
func TestSignalsCombine(t *testing.T) {
	tests := []struct {
		name     string
		robots   string
		header   textproto.MIMEHeader
		category string
		want     Preference
		because  string
	}{
		{"unknown", "", nil, "ai-use", Unknown, ""},
		{"header y", "", hdr("Content-Usage", "ai-use=y"), "ai-use", Yes, "ai-use=y (header Content-Usage)"},
		{"robots n, header y", "User-agent: *\nContent-Usage: ai-use=n", hdr("Content-Usage", "ai-use=y"),
			"ai-use", No, "ai-use=n (robots.txt line 2)"},
		{"robots y, header n", "User-agent: *\nContent-Usage: train-ai=y", hdr("Content-Usage", "train-ai=n"),
			"train-ai", No, "train-ai=n (header Content-Usage)"},
		{"both y", "User-agent: *\nContent-Usage: search=y", hdr("Content-Usage", "search=y"),
			"search", Yes, "search=y (robots.txt line 2)"},
		{"Content-Signal no", "User-agent: *\nContent-Signal: search=no", hdr("Content-Signal", "search=yes"),
			"search", No, "search=no (robots.txt line 2)"},
		{"categories are separate", "", hdr("Content-Usage", "train-ai=n, ai-use=y"),
			"ai-use", Yes, "ai-use=y (header Content-Usage)"},
		{"case of the name", "", hdr("Content-Usage", "ai-use=n"), "AI-Use", No, "ai-use=n (header Content-Usage)"},
	}
	for _, tt := range tests {
		s := signalsFor(t, tt.robots, tt.header, "", "")
		got, because := s.Category(tt.category)
		b := ""
		if because != nil {
			b = because.String()
		}
		if got != tt.want || b != tt.because {
			t.Errorf("%s: Category(%q) = %v, %q; want %v, %q", tt.name, tt.category, got, b, tt.want, tt.because)
		}
	}
	// A grant never outweighs a refusal, whichever comes first.
	s := signalsFor(t, "User-agent: *\nContent-Signal: ai-input=yes", hdr("Content-Usage", "ai-use=n"), "", "")
	if ok, because := s.AIInput(); ok || because.Name != "ai-use" {
		t.Errorf("ai-input=yes with ai-use=n: AIInput() = %v, %v; want refused by ai-use=n", ok, because)
	}
	// The first refusal in the order of All is the one named.
	s = signalsFor(t, "User-agent: *\nContent-Signal: ai-input=no", hdr("X-Robots-Tag", "nosnippet"), meta("robots", "noarchive"), "")
	if _, because := s.AIInput(); because == nil || because.Source != "robots.txt line 2" {
		t.Errorf("several refusals: because = %v, want the robots.txt one", because)
	}
	if len(s.All) != 3 {
		t.Errorf("All = %v, want three signals", statements(s.All))
	}
}

// Without robots.txt (an API host, an unrestricted run, a 404), the header
// and the page still speak.
func TestSignalsNilRobots(t *testing.T) {
	s := Read(nil, testAgent, "https://api.example.com/v1/x", hdr("Content-Usage", "ai-use=n"), nil)
	if ok, because := s.AIInput(); ok || because.Source != "header Content-Usage" {
		t.Errorf("AIInput() = %v, %v; want refused by the header", ok, because)
	}
	var zero Set
	if ok, because := zero.AIInput(); !ok || because != nil || zero.TrainingOptOut() != nil || zero.NoFollow() || zero.NoIndex() {
		t.Error("the zero Set is not 'nothing said'")
	}
	if s := Read(nil, "", "", nil, nil); len(s.All) != 0 {
		t.Errorf("no agent, no URL, nothing: %v", s.All)
	}
}

// The pages in testdata/pages, end to end through the HTML pass.
func TestSignalsSeedPages(t *testing.T) {
	tests := []struct {
		file     string
		because  string
		training []string
		noFollow bool
	}{
		{"article.html", "", nil, false},
		{"nosnippet.html", "max-snippet:0 (meta robots)", []string{"noai (meta robots)"}, false},
		{"own-meta.html", "noarchive (meta politecrawler)", nil, false},
		{"tdm-reserved.html", "tdm-reservation: 1 (meta tdm-reservation)", nil, false},
		{"nofollow.html", "", nil, true},
		{"training-optout.html", "", []string{"noai (meta robots)", "noimageai (meta robots)"}, false},
	}
	for _, tt := range tests {
		body, err := os.ReadFile("../../testdata/pages/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		s := signalsFor(t, "", nil, string(body), "https://example.com/"+tt.file)
		ok, because := s.AIInput()
		if b := ""; because != nil {
			b = because.String()
			if b != tt.because {
				t.Errorf("%s: refused by %s, want %q", tt.file, b, tt.because)
			}
		} else if !ok || tt.because != "" {
			t.Errorf("%s: AIInput() = %v, want refused by %s", tt.file, ok, tt.because)
		}
		if got := statements(s.TrainingOptOut()); !reflect.DeepEqual(got, tt.training) {
			t.Errorf("%s: TrainingOptOut() = %q, want %q", tt.file, got, tt.training)
		}
		if s.NoFollow() != tt.noFollow {
			t.Errorf("%s: NoFollow() = %v, want %v", tt.file, s.NoFollow(), tt.noFollow)
		}
	}
}
