package robotstxt

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	temoto "github.com/temoto/robotstxt"
)

// The oracle's classifier: which temoto fault explains a disagreement.

// oracleStage takes one temoto fault out of the picture: it rewrites the
// file (and the path temoto is asked about) so that temoto no longer trips
// on it, without changing our answer (checked). The stages apply in order,
// each on the last one's output.
type oracleStage struct {
	fault int
	text  func(text, agent string) string // nil: the text is kept
	path  func(path string) string        // nil: the path is kept
}

// oracleChain is one file, for one agent, as each stage leaves it. Stages
// are rewritten when first needed: most disagreements end early.
type oracleChain struct {
	agent string
	texts []string
	ours  []*File
	tm    []temotoOracle
}

func newOracleChain(text, agent string) *oracleChain {
	return &oracleChain{agent: agent, texts: []string{text}}
}

// stage makes stage i ready, and those before it.
func (c *oracleChain) stage(i int) {
	for len(c.ours) <= i {
		text := c.texts[len(c.texts)-1]
		if st := oracleStages[len(c.ours)]; st.text != nil {
			text = st.text(text, c.agent)
		}
		c.texts = append(c.texts, text)
		c.ours = append(c.ours, Parse([]byte(text)))
		c.tm = append(c.tm, newTemotoOracle(text))
	}
}

// classify finds the fault that explains one disagreement: the first stage
// after which temoto agrees with us. The faults of matching itself (6, 7,
// 8, 9) cannot all be written away (a tie, fault 7, may be one between two
// groups, or one that fault 6 or 8 makes); what is left after the last stage must
// be reproduced by a model of temoto's matching with those faults switched
// on (one, else several), while the same model with all of them off must
// give our answer. Fault 0 is our bug, with the reason.
func (c *oracleChain) classify(path string, ours bool) (fault int, combo, why string) {
	if _, only := RequestPath(oracleURL(path)); only == "/robots.txt" {
		return 11, "", ""
	}
	for i, st := range oracleStages {
		c.stage(i)
		if st.path != nil {
			path = st.path(path)
		}
		if got := c.ours[i].Allowed(c.agent, oracleURL(path)); got != ours {
			return 0, "", fmt.Sprintf("the rewrite for fault %d changed our answer (path %q):\n%s", st.fault, path, c.texts[i+1])
		}
		if c.tm[i].allowed(c.agent, path) == ours {
			return st.fault, "", ""
		}
	}
	last := len(oracleStages) - 1
	theirs := c.tm[last].allowed(c.agent, path)
	r := c.ours[last]
	var rules []rule
	for _, gi := range r.groupsFor(c.agent) {
		rules = append(rules, r.groups[gi].rules...)
	}
	if m := temotoModel(rules, path, nil); m != ours {
		return 0, "", fmt.Sprintf("the model of matching with no fault says %v (path %q):\n%s", m, path, c.texts[last+1])
	}
	// Fault 7 is tried last: a tie that temoto breaks by order explains the
	// answer only when no distorted length does (temoto never ties then).
	sets := [][]int{{6}, {8}, {9}, {7}, {6, 8}, {6, 9}, {8, 9}, {6, 7}, {8, 7}, {9, 7}, {6, 8, 9}, {6, 8, 7}, {6, 9, 7}, {8, 9, 7}, {6, 8, 9, 7}}
	for _, set := range sets {
		if temotoModel(rules, path, set) != theirs {
			continue
		}
		if len(set) == 1 {
			return set[0], "", ""
		}
		return set[0], strings.Trim(strings.ReplaceAll(fmt.Sprint(set), " ", "+"), "[]"), ""
	}
	return 0, "", fmt.Sprintf("no fault explains it (path %q):\n%s", path, c.texts[last+1])
}

// modelled: the oracle writes it out as a rule of its own (fault 12).
func temotoModel(rules []rule, path string, faults []int) bool {
	on := func(f int) bool { return slices.Contains(faults, f) }
	best, allow := 0, true
	for _, rule := range rules {
		p := rule.pattern
		if on(6) {
			p = strings.TrimRight(p, "*")
		}
		if p == "" {
			continue
		}
		n := len(p)
		var ok bool
		if strings.ContainsAny(p, "*$") {
			re := regexp.QuoteMeta(p)
			re = strings.ReplaceAll(re, `\*`, `.*`)
			re = strings.ReplaceAll(re, `\$`, `$`)
			if on(8) {
				n = len(re)
			}
			if !on(9) {
				re = "^" + re
			}
			ok = regexp.MustCompile(re).MatchString(path)
		} else {
			ok = strings.HasPrefix(path, p)
		}
		if !ok {
			continue
		}
		if n > best || n == best && !on(7) && rule.allow && !allow {
			best, allow = n, rule.allow
		}
	}
	return allow
}

// Every conformance case that names a temoto fault is one temoto gets wrong
// (or cannot answer): the cases show the faults, not just our behaviour.
func TestTemotoFaultCases(t *testing.T) {
	seen := map[string]int{}
	for _, c := range conformance {
		if !strings.HasPrefix(c.source, "temoto fault") {
			continue
		}
		seen[c.source]++
		d, err := temoto.FromString(c.robots)
		if err == nil && d.TestAgent(c.url, c.agent) == c.want {
			t.Errorf("%s (%s): temoto answers rightly, so the case shows no fault", c.source, c.rule)
		}
	}
	for k := 1; k <= 12; k++ {
		if seen[fmt.Sprintf("temoto fault %d", k)] == 0 {
			t.Errorf("no conformance case for temoto fault %d (%s)", k, oracleFaults[k])
		}
	}
}

// The classifier names the right fault for the conformance cases built to
// show each one, and the model of matching with no fault agrees with our
// matcher on every conformance case: the oracle's verdicts can be trusted.
func TestOracleClassifier(t *testing.T) {
	for _, c := range conformance {
		path := oraclePathOf(c.url)
		want := 0
		if _, err := fmt.Sscanf(c.source, "temoto fault %d", &want); err != nil {
			want = 0
		}
		if want != 0 {
			ours := Parse([]byte(c.robots)).Allowed(c.agent, oracleURL(path))
			if got, _, why := newOracleChain(c.robots, c.agent).classify(path, ours); got != want {
				t.Errorf("%s (%s): classified as fault %d %s", c.source, c.rule, got, why)
			}
		}
		r := Parse([]byte(c.robots))
		var rules []rule
		for _, gi := range r.groupsFor(c.agent) {
			rules = append(rules, r.groups[gi].rules...)
		}
		p, only := RequestPath(c.url)
		if only == "/robots.txt" || slices.ContainsFunc(rules, func(r rule) bool { return r.index != "" }) {
			continue // neither is the model's business
		}
		if got := temotoModel(rules, p, nil); got != c.want {
			t.Errorf("%s (%s): the model of matching says %v", c.source, c.rule, got)
		}
	}
	// A wrong answer of ours is never blamed on temoto.
	for _, path := range []string{"/private/a.html", "/other/public/c.html", "/robots.txt/x"} {
		ours := Parse([]byte(seed002)).Allowed("PoliteCrawler", oracleURL(path))
		if f, _, _ := newOracleChain(seed002, "PoliteCrawler").classify(path, !ours); f != 0 {
			t.Errorf("%s: a flipped answer was classified as temoto fault %d", path, f)
		}
	}
}

// oraclePathOf is the path and query of a conformance case's URL, as
// written.
func oraclePathOf(url string) string {
	if i := strings.Index(url, "://"); i >= 0 {
		url = url[i+3:]
		if j := strings.IndexAny(url, "/?"); j >= 0 {
			url = url[j:]
		} else {
			url = ""
		}
	}
	if url == "" || url[0] != '/' {
		url = "/" + url
	}
	return url
}
