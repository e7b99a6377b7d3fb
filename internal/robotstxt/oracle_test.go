package robotstxt

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	temoto "github.com/temoto/robotstxt"
)

// The differential oracle (R5.1, robots notes): temoto/robotstxt v1.1.2 and
// our parser are asked the same questions over the corpus of real files.
// Every disagreement must be one of temoto's twelve listed faults, shown by
// taking that fault out of the picture and seeing the two agree; whatever is
// left is our bug.

// corpusDir is the shared corpus of 4,231 real robots.txt files, one
// per site, kept outside the repository (third-party content): CI has it,
// a clone may not.
const corpusDir = "../../../shared/robots-corpus"

type corpusFile struct {
	name string
	body []byte
}

// corpus reads the corpus, or skips the test when it is absent.
func corpus(tb testing.TB) []corpusFile {
	tb.Helper()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		tb.Skipf("robots corpus not available at %s: %v", corpusDir, err)
	}
	var files []corpusFile
	for _, e := range entries {
		if e.IsDir() || e.Name() == "README.md" {
			continue
		}
		body, err := os.ReadFile(filepath.Join(corpusDir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, corpusFile{e.Name(), body})
	}
	if len(files) == 0 {
		tb.Skipf("robots corpus at %s is empty", corpusDir)
	}
	return files
}

// oracleAgents: our own product token, a token many files name, and one no
// file names (it gets the * group).
var oracleAgents = []string{"PoliteCrawler", "Googlebot", "ZzNoGroupBot"}

// oracleGenericPaths are asked of every file, besides paths derived from
// the file's own rules.
var oracleGenericPaths = []string{
	"/", "/index.html", "/robots.txt", "/a", "/search?q=polite", "/?s=1",
	"/~user/", "/%7Euser/", "/caf%C3%A9", "/wp-admin/", "/doc.pdf",
	"/cgi-bin/x", "/private/", "/tmp/", "/admin", "/x/index.html",
}

const oraclePathsPerFile = 150

// oracleURL is the URL we are asked about for a path temoto is asked about:
// a path that begins with "//" would be a network-path reference.
func oracleURL(path string) string { return "https://example.com" + path }

// oraclePaths derives paths from the file's rules: each pattern made
// concrete ('*' as nothing and as text, '$' dropped), a little longer and a
// little shorter, so that most rules are seen matching and failing.
func oraclePaths(r *File) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p == "" || p[0] != '/' || seen[p] || len(out) >= oraclePathsPerFile {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	for _, p := range oracleGenericPaths {
		add(p)
	}
	for _, g := range r.groups {
		for _, rule := range g.rules {
			w := strings.TrimSuffix(rule.written, "$")
			if !strings.HasPrefix(w, "/") {
				w = "/" + w
			}
			for _, star := range []string{"", "x/y"} {
				c := strings.ReplaceAll(w, "*", star)
				add(c)
				add(c + "z")
				add(c[:len(c)-1])
			}
		}
	}
	return out
}

// temotoOracle answers with temoto/robotstxt from one parse of a text.
type temotoOracle struct {
	data *temoto.RobotsData
	err  error
}

func newTemotoOracle(text string) temotoOracle {
	data, err := temoto.FromString(text)
	return temotoOracle{data, err}
}

func (o temotoOracle) allowed(agent, path string) bool {
	if o.err != nil {
		return true // a file temoto rejects gives no rules (fault 1)
	}
	return o.data.TestAgent(path, agent)
}

// oracleFaults names temoto's faults as the robots notes number them.
var oracleFaults = map[int]string{
	1:  "any parse error rejects the file",
	2:  "user-agent matched as a prefix",
	3:  "group without rules dropped",
	4:  "Crawl-delay ends a run of User-agent lines",
	5:  "tokenizer",
	6:  "rules rewritten (leading /, trailing * stripped)",
	7:  "equal-length tie: first rule wins",
	8:  "wildcard rules ranked by regex length",
	9:  "wildcard regexes not anchored",
	10: "no percent-encoding normalisation",
	11: "/robots.txt not implicitly allowed",
	12: "Google extensions missing",
}

func TestOracle(t *testing.T) {
	files := corpus(t)
	var total oracleTally
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan corpusFile)
	// Files are independent: spread them over the CPUs (the race detector
	// makes this test some fifteen times slower).
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for f := range next {
				tally := oracleFile(t, f)
				mu.Lock()
				total.add(tally)
				mu.Unlock()
			}
		})
	}
	for _, f := range files {
		next <- f
	}
	close(next)
	wg.Wait()

	t.Logf("%d files, %d questions (agents %v), %d disagreements in %d files (%.1f%% of files)",
		len(files), total.questions, oracleAgents, total.disagreements, total.files,
		100*float64(total.files)/float64(len(files)))
	for k := 1; k <= 12; k++ {
		t.Logf("temoto fault %2d (%s): %d", k, oracleFaults[k], total.faults[k])
	}
	for _, c := range slices.Sorted(maps.Keys(total.combos)) {
		t.Logf("  explained only by faults %s together (counted under the first): %d", c, total.combos[c])
	}
	t.Logf("our bug: %d", total.ourBugs)
	if total.ourBugs > 0 {
		t.Errorf("%d disagreements no temoto fault explains", total.ourBugs)
	}
}

// oracleTally counts the questions and disagreements of some files.
type oracleTally struct {
	questions, disagreements, files, ourBugs int
	faults                                   map[int]int
	combos                                   map[string]int
}

func (a *oracleTally) add(b oracleTally) {
	if a.faults == nil {
		a.faults, a.combos = map[int]int{}, map[string]int{}
	}
	a.questions += b.questions
	a.disagreements += b.disagreements
	a.files += b.files
	a.ourBugs += b.ourBugs
	for k, v := range b.faults {
		a.faults[k] += v
	}
	for k, v := range b.combos {
		a.combos[k] += v
	}
}

// oracleFile asks both parsers every question about one file and
// classifies each disagreement, reporting the first few it cannot.
func oracleFile(t *testing.T, f corpusFile) oracleTally {
	tally := oracleTally{faults: map[int]int{}, combos: map[string]int{}}
	text := readText(f.body) // temoto reads what we read: the size limit is the fetcher's policy
	r := Parse([]byte(text))
	tm := newTemotoOracle(text)
	paths := oraclePaths(r)
	for _, agent := range oracleAgents {
		var chain *oracleChain
		for _, path := range paths {
			tally.questions++
			ours := r.Allowed(agent, oracleURL(path))
			if ours == tm.allowed(agent, path) {
				continue
			}
			tally.disagreements++
			if chain == nil {
				chain = newOracleChain(text, agent)
			}
			fault, combo, why := chain.classify(path, ours)
			switch {
			case fault == 0:
				tally.ourBugs++
				if tally.ourBugs <= 3 {
					t.Errorf("our bug? %s: agent %s path %q: ours allowed=%v, temoto %v: %s",
						f.name, agent, path, ours, !ours, why)
				}
			case combo != "":
				tally.combos[combo]++
				tally.faults[fault]++
			default:
				tally.faults[fault]++
			}
		}
	}
	if tally.disagreements > 0 {
		tally.files = 1
	}
	return tally
}

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

// oracleLine is one record as the rewrites render it.
type oracleLine struct{ key, value string }

func renderOracle(lines []oracleLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.key)
		b.WriteString(": ")
		b.WriteString(l.value)
		b.WriteByte('\n')
	}
	return b.String()
}

// oracleRecords reads text into lines of canonical keys and values as we
// read them (cut lines stay cut).
func oracleRecords(text string) []oracleLine {
	var out []oracleLine
	for _, rec := range Lex([]byte(text)) {
		out = append(out, oracleLine{rec.Key, rec.Value})
	}
	return out
}

// encodeSpace writes white space inside a value percent-encoded, which is
// how we compare it anyway, so temoto's tokenizer keeps it one word.
func encodeSpace(v string) string {
	return strings.NewReplacer(" ", "%20", "\t", "%09", "\v", "%0B", "\f", "%0C").Replace(v)
}

// oracleAgentValue is a User-agent value as one word: we read only its
// token anyway. An empty token gets a name no agent has, so the line stays
// a User-agent line for temoto.
func oracleAgentValue(v string, token bool) string {
	if i := indexSpace(v); i >= 0 {
		v = v[:i]
	}
	if token {
		v = AgentToken(v)
	}
	if v == "" {
		return "oracle-empty-agent"
	}
	return v
}

var oracleStages = []oracleStage{
	// Fault 5, the tokenizer: one clean "key: value" line per line we read,
	// keys as written, values one word; comments, blank lines and lines we
	// drop (three-word colon-less lines) are gone. Long lines are not cut
	// here (that is fault 12).
	{fault: 5, text: func(text, agent string) string {
		bom := text[:len(text)-len(skipBOM(text))] // a broken one is fault 12
		raw := rawLines(text)
		var lines []oracleLine
		for _, rec := range Lex([]byte(text)) {
			key, value := rawKeyValue(raw[rec.Line-1])
			if rec.Key == KeyUserAgent {
				value = oracleAgentValue(value, false)
			} else {
				value = encodeSpace(value)
			}
			lines = append(lines, oracleLine{key, value})
		}
		return bom + renderOracle(lines)
	}},
	// Fault 12, Google's extensions: keys spelled right, agent values cut to
	// their token, long lines cut, and the index.html reading written out.
	{fault: 12, text: func(text, agent string) string {
		var lines []oracleLine
		for _, l := range oracleRecords(text) {
			switch l.key {
			case KeyUserAgent:
				l.value = oracleAgentValue(l.value, true)
			case KeyAllow:
				if rule := newRule(Record{Key: KeyAllow, Value: l.value}); rule.index != "" {
					lines = append(lines, l)
					l.value = rule.index
				}
			}
			lines = append(lines, l)
		}
		return renderOracle(lines)
	}},
	// Fault 1, parse errors: no rules or Crawl-delay before the first
	// User-agent, no Crawl-delay temoto cannot read.
	{fault: 1, text: func(text, agent string) string {
		var lines []oracleLine
		sawAgent := false
		for _, l := range oracleRecords(text) {
			switch l.key {
			case KeyUserAgent:
				sawAgent = true
			case KeyAllow, KeyDisallow:
				if !sawAgent {
					continue
				}
			case KeyCrawlDelay:
				f, err := strconv.ParseFloat(l.value, 64)
				if !sawAgent || err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
					continue
				}
			}
			lines = append(lines, l)
		}
		return renderOracle(lines)
	}},
	// Fault 4: no Crawl-delay lines.
	{fault: 4, text: func(text, agent string) string {
		var lines []oracleLine
		for _, l := range oracleRecords(text) {
			if l.key != KeyCrawlDelay {
				lines = append(lines, l)
			}
		}
		return renderOracle(lines)
	}},
	// Fault 3: every group gets a rule no test path meets, so none is empty.
	{fault: 3, text: func(text, agent string) string {
		var lines []oracleLine
		recs := oracleRecords(text)
		for i, l := range recs {
			lines = append(lines, l)
			if l.key == KeyUserAgent && (i+1 == len(recs) || recs[i+1].key != KeyUserAgent) {
				lines = append(lines, oracleLine{KeyAllow, "/polite-oracle-sentinel"})
			}
		}
		return renderOracle(lines)
	}},
	// Fault 2: a group naming a prefix of the agent's token names nobody.
	{fault: 2, text: func(text, agent string) string {
		lines := oracleRecords(text)
		for i, l := range lines {
			if l.key == KeyUserAgent && len(l.value) < len(agent) && strings.HasPrefix(strings.ToLower(agent), strings.ToLower(l.value)) {
				lines[i].value = "oracle-prefix-agent"
			}
		}
		return renderOracle(lines)
	}},
	// Fault 6, the rewrite of patterns: a pattern that starts with neither
	// '/' nor '*' matches nothing for us, and goes; a pattern of stars only
	// matches every path, as does "/" and as many stars after it.
	{fault: 6, text: func(text, agent string) string {
		var lines []oracleLine
		for _, l := range oracleRecords(text) {
			if l.key == KeyAllow || l.key == KeyDisallow {
				switch {
				case l.value == "":
				case strings.Trim(l.value, "*") == "":
					l.value = "/" + l.value[1:]
				case l.value[0] != '/' && l.value[0] != '*':
					continue
				}
			}
			lines = append(lines, l)
		}
		return renderOracle(lines)
	}},
	// Fault 9, in part: temoto's regexes anchor at every '$', where only a
	// final '$' anchors and any other is a character. Written encoded, in
	// the pattern and in the path, it is a character to temoto too.
	{fault: 9, text: func(text, agent string) string {
		lines := oracleRecords(text)
		for i, l := range lines {
			if l.key == KeyAllow || l.key == KeyDisallow {
				if n := len(l.value) - 1; n > 0 {
					lines[i].value = strings.ReplaceAll(l.value[:n], "$", "%24") + l.value[n:]
				}
			}
		}
		return renderOracle(lines)
	}, path: func(path string) string { return strings.ReplaceAll(path, "$", "%24") }},
	// Fault 10, percent-encoding: patterns and the path in canonical form.
	{fault: 10, text: func(text, agent string) string {
		lines := oracleRecords(text)
		for i, l := range lines {
			if l.key == KeyAllow || l.key == KeyDisallow {
				lines[i].value = canonical(l.value, false)
			}
		}
		return renderOracle(lines)
	}, path: func(path string) string {
		p, _ := RequestPath(path)
		return p
	}},
}

// rawLines splits text into its lines as Lex does, without
// cutting long ones.
func rawLines(text string) []string {
	text = skipBOM(readText([]byte(text)))
	var out []string
	for len(text) > 0 {
		end := strings.IndexAny(text, "\r\n")
		if end < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:end])
		next := end + 1
		if text[end] == '\r' && next < len(text) && text[next] == '\n' {
			next++
		}
		text = text[next:]
	}
	return out
}

// rawKeyValue is parseLine keeping the key as written.
func rawKeyValue(line string) (key, value string) {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = trimSpace(line)
	if c := strings.IndexByte(line, ':'); c >= 0 {
		k := trimSpace(line[:c])
		if k != "" && (indexSpace(k) < 0 || strings.EqualFold(k, "user agent")) {
			return k, trimSpace(line[c+1:])
		}
	}
	sp := indexSpace(line)
	return line[:sp], trimSpace(line[sp:])
}

// temotoModel decides as temoto's matcher would with the given faults
// switched on, over the rules of one (merged) group in file order, all
// patterns and the path canonical: with no fault on, it is RFC 9309 by
// other means than ours (Go's regexp). Google's index.html reading is not
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
