package robotstxt

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// seedFiles are our own robots.txt samples in testdata/robots.
func seedFiles(tb testing.TB) map[string][]byte {
	tb.Helper()
	names, err := filepath.Glob("testdata/robots/*.txt")
	if err != nil || len(names) == 0 {
		tb.Fatalf("no testdata/robots/*.txt: %v", err)
	}
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(n)] = b
	}
	return out
}

// The samples in testdata/robots say what their comments and names promise.
func TestSeedFiles(t *testing.T) {
	files := seedFiles(t)
	seed := Parse(files["seed002.txt"])
	for _, c := range conformance {
		if strings.HasPrefix(c.source, "seed 002") && c.robots == seed002 {
			if got := seed.Allowed(c.agent, c.url); got != c.want {
				t.Errorf("seed002.txt: %s %s: %v", c.agent, c.url, got)
			}
		}
	}
	rfc := Parse(files["rfc9309-simple.txt"])
	if rfc.Allowed("x", "/a.gif") || !rfc.Allowed("quxbot", "/example/") {
		t.Error("rfc9309-simple.txt misread")
	}
	sig := Parse(files["signals.txt"])
	if d := sig.Decide("PoliteCrawler", "/docs/index.html"); !d.Allowed || d.Line != 13 {
		t.Errorf("signals.txt: %+v", d)
	}
	if !sig.Allowed("PoliteCrawler", "/docs/") || sig.Allowed("PoliteCrawler", "/docs/a") || sig.CrawlDelay("PoliteCrawler") != 2*time.Second {
		t.Error("signals.txt: PoliteCrawler's group misread")
	}
	if sig.CrawlDelay("other") != 500*time.Millisecond || sig.Allowed("other", "/private/x") || !sig.Allowed("other", "/private/press/x") {
		t.Error("signals.txt: the * group misread")
	}
	q := Parse(files["quirks.txt"])
	for _, tt := range []struct {
		agent, url string
		want       bool
	}{
		{"Typo", "/a", false}, {"typo", "/b", false}, {"Spaced", "/c~", false}, {"Spaced", "/d", false},
		{"Spaced", "/caf%C3%A9", true}, {"Spaced", "/ツ", false}, {"other", "/x", false}, {"other", "/", true},
	} {
		if got := q.Allowed(tt.agent, tt.url); got != tt.want {
			t.Errorf("quirks.txt: %s %s: allowed = %v", tt.agent, tt.url, got)
		}
	}
	if q.CrawlDelay("Typo") != 0 || !reflect.DeepEqual(q.Sitemaps(), []string{"/s.xml"}) {
		t.Error("quirks.txt: Crawl-delay or Sitemap misread")
	}
	p := Parse(files["pathological.txt"])
	if !p.Allowed("x", "/"+strings.Repeat("a", 3000)) || p.Allowed("x", "/"+strings.Repeat("a", 10)+"b") {
		t.Error("pathological.txt misread")
	}
}

// FuzzParse: no input makes the parser or the matcher panic, and the
// answers hang together (R5.1). Seeds: testdata/robots, the conformance
// table, and about 200 files of the shared corpus when it is there (its
// files are third-party content and are not copied into the repository).
func FuzzParse(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b, "PoliteCrawler", "/private/x?y=1")
	}
	for i, c := range conformance {
		if i%4 == 0 {
			f.Add([]byte(c.robots), c.agent, c.url)
		}
	}
	if entries, err := os.ReadDir(corpusDir); err == nil {
		for i, e := range entries {
			if i%20 != 0 || e.IsDir() {
				continue
			}
			if b, err := os.ReadFile(filepath.Join(corpusDir, e.Name())); err == nil && len(b) <= 32<<10 {
				f.Add(b, "Googlebot", "https://example.com/search?q=1")
			}
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, agent, url string) {
		r := Parse(body)
		d := r.Decide(agent, url)
		if r.Allowed(agent, url) != d.Allowed {
			t.Fatal("Allowed and Decide disagree")
		}
		switch d.Rule {
		case "":
			if !d.Allowed || d.Line != 0 || d.Pattern != "" {
				t.Fatalf("no rule, yet %+v", d)
			}
		case KeyAllow, KeyDisallow:
			if d.Allowed != (d.Rule == KeyAllow) || d.Line <= 0 || d.Group == nil {
				t.Fatalf("inconsistent decision %+v", d)
			}
			found := false
			for _, rec := range r.records {
				found = found || rec.Line == d.Line && rec.Key == d.Rule && rec.Value == d.Pattern
			}
			if !found {
				t.Fatalf("decision names no record: %+v", d)
			}
		default:
			t.Fatalf("rule %q", d.Rule)
		}
		if !r.Allowed(agent, "/robots.txt") {
			t.Fatal("/robots.txt disallowed")
		}
		if cd := r.CrawlDelay(agent); cd < 0 {
			t.Fatalf("negative Crawl-delay %v", cd)
		}
		for _, s := range r.Sitemaps() {
			if s == "" {
				t.Fatal("empty sitemap")
			}
		}
		last := 0
		for _, rec := range r.Group(agent) {
			if rec.Line <= last || rec.Key != strings.ToLower(rec.Key) || rec.Key == KeySitemap {
				t.Fatalf("group records out of order or unnormalised: %+v", rec)
			}
			last = rec.Line
		}
		// Canonical form is canonical, and the matcher agrees with a regular
		// expression (linear in Go) on every rule of the group that applied.
		path, _ := RequestPath(url)
		if again := canonical(path, true); again != path {
			t.Fatalf("path of %q not canonical: %q → %q", url, path, again)
		}
		checked := 0
		for _, gi := range r.groupsFor(agent) {
			for _, rule := range r.groups[gi].rules {
				if checked++; checked > 50 {
					break
				}
				if c := canonical(rule.pattern, false); c != rule.pattern {
					t.Fatalf("pattern %q not canonical: %q", rule.pattern, c)
				}
				if rule.pattern == "" {
					continue
				}
				re := regexp.QuoteMeta(rule.pattern)
				re = strings.ReplaceAll(re, `\*`, `.*`)
				if strings.HasSuffix(re, `\$`) {
					re = strings.TrimSuffix(re, `\$`) + `$`
				}
				want := regexp.MustCompile(`^(?s:` + re + `)`).MatchString(path)
				if got := patternMatches(rule.pattern, path); got != want {
					t.Fatalf("patternMatches(%q, %q) = %v, regexp says %v", rule.pattern, path, got, want)
				}
			}
		}
	})
}
