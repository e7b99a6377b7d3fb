package signals

import (
	"strings"
	"testing"

	"github.com/politecrawler/polite/internal/robotstxt"
)

// FuzzSignals reads arbitrary robots.txt files and Content-Usage and
// X-Robots-Tag values: never a panic, and the verdicts agree with the
// signals reported. The Dictionary's own properties are internal/sfv's
// FuzzParseDictionary.
func FuzzSignals(f *testing.F) {
	f.Add("User-agent: *\nContent-Signal: search=yes, ai-input=no, ai-train=no\nAllow: /", "ai-use=n", "noindex", "/")
	f.Add("User-Agent: *\nContent-Usage: train-ai=n\nContent-Usage: /news/ ai-use=n", "train-ai=y, ai-use=n;x=1", "googlebot: nosnippet", "/news/a")
	f.Add("Content-Signal: ai-input=no\nUser-agent: PoliteCrawler\nContent-Usage: /*.pdf$ bots=n", "Train-AI=n", "politecrawler: max-snippet:0", "/a.pdf")
	f.Add("", `x=%"caf%c3%a9", y=:aGk=:, z=(a b);p=@12, w=-1.5`, "", "")
	f.Fuzz(func(t *testing.T, robots, contentUsage, xRobots, path string) {
		rules := robotstxt.Parse([]byte(robots))
		h := hdr("Content-Usage", contentUsage, "X-Robots-Tag", xRobots)
		s := Read(rules, testAgent, "https://example.com"+path, h, nil)
		refusing := 0
		for _, sig := range s.All {
			if sig.Source == "" || sig.Name == "" || sig.Name != strings.ToLower(sig.Name) {
				t.Errorf("signal %+v: no source, or a name not in lower case", sig)
			}
			if holdsBackAIInput(sig) {
				refusing++
			}
			if holdsBackAIInput(sig) && refusesTraining(sig) {
				t.Errorf("signal %v both refuses AI input and is training-only", sig)
			}
		}
		ok, because := s.AIInput()
		if ok != (refusing == 0) || ok != (because == nil) {
			t.Errorf("AIInput() = %v, %v with %d refusing signals in %v", ok, because, refusing, statements(s.All))
		}
	})
}
