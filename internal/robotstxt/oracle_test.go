package robotstxt

import (
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
	if raceEnabled {
		t.Skip("the corpus oracle runs without -race: .ci/run runs it so, in seconds rather than a minute")
	}
	files := corpus(t)
	var total oracleTally
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan corpusFile)
	// Files are independent: spread them over the CPUs.
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
