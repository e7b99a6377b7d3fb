package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite/politetest"
)

// The command is tested as a user runs it: the binary, built once, run
// as a process against farm sites on loopback, named by their addresses
// (the process has no farm resolver). Its output and exit status are
// checked, and what the farm saw. The farm runs on the real clock, as the
// process does: its rests are real, so each test asks few pages of a
// host, and the tests run in parallel.

// binary is the polite command built for the tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "polite-cmd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "polite")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the polite command: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// ran is one run of the command.
type ran struct {
	stdout, stderr string
	code           int
}

// runCmd runs the command with args, in dir when it is not empty.
func runCmd(t *testing.T, dir string, args ...string) ran {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("polite %s: %v", strings.Join(args, " "), err)
	}
	r := ran{stdout: out.String(), stderr: errOut.String(), code: cmd.ProcessState.ExitCode()}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Fatalf("polite %s: a stack trace:\n%s", strings.Join(args, " "), r.stderr)
	}
	return r
}

// oneLine fails the test unless stderr is one line that holds want.
func (r ran) oneLine(t *testing.T, want string) {
	t.Helper()
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q: want one line with %q", r.stderr, want)
	}
}

// addrSite adds s to fm on a fresh address, named by that address, and
// returns its base URL: "http://127.x.y.z:port".
func addrSite(t *testing.T, fm *politetest.Farm, s politetest.Site) string {
	t.Helper()
	addr, err := fm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	s.Name, s.Addr = addr.String(), addr
	if _, err := fm.AddSite(s); err != nil {
		t.Fatal(err)
	}
	return fm.URL(s.Name, "")
}

// hostOf is the farm's name of a base URL's site: its address.
func hostOf(base string) string {
	h := strings.TrimPrefix(base, "http://")
	return h[:strings.LastIndex(h, ":")]
}

// paths lists the paths the farm saw asked of host, in order.
func paths(fm *politetest.Farm, host string) []string {
	var out []string
	for _, v := range fm.Audit().VisitsTo(host) {
		out = append(out, v.Path)
	}
	return out
}

func TestHelp(t *testing.T) {
	t.Parallel()
	r := runCmd(t, "", "help")
	for _, c := range commands {
		if !strings.Contains(r.stdout, "polite "+c.name+" ") {
			t.Errorf("help lacks %s:\n%s", c.name, r.stdout)
		}
	}
	if r.code != 0 {
		t.Errorf("help: exit %d", r.code)
	}
	r = runCmd(t, "", "help", "crawl")
	if r.code != 0 || !strings.Contains(r.stdout, "-sitemaps") || !strings.Contains(r.stdout, "-serve") {
		t.Errorf("help crawl: exit %d\n%s", r.code, r.stdout)
	}
	if r := runCmd(t, ""); r.code != 2 || !strings.Contains(r.stderr, "Usage:") {
		t.Errorf("no arguments: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Bad input is one line on stderr and a non-zero exit, never a stack
// trace: an unknown command or flag, an unreadable file, a bad URL.
func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"fetch", "http://example.org/"}, 2, `unknown command "fetch"`},
		{[]string{"get", "-nope", "http://example.org/"}, 2, "flag provided but not defined: -nope"},
		{[]string{"crawl", "-max", "many", "http://example.org/"}, 2, `invalid value "many" for flag -max`},
		{[]string{"robots", "missing.txt", "/"}, 1, "missing.txt: no such file or directory"},
		{[]string{"robots", dir, "/"}, 1, dir + ": is a directory"},
		{[]string{"robots"}, 2, "want a robots.txt FILE"},
		{[]string{"robots", "missing.txt", "private/x"}, 2, `"private/x": a path starts with /`},
		{[]string{"explain", "-response", "missing.http"}, 1, "missing.http: no such file or directory"},
		{[]string{"explain", "-status", "200", "stray"}, 2, "unexpected arguments"},
		{[]string{"get", "ftp://example.org/file"}, 1, "unsupported URL scheme"},
		{[]string{"get", "http://exa mple.org/"}, 1, "invalid URL"},
		{[]string{"get"}, 2, "want one URL or more"},
		{[]string{"crawl", "http://example.org/", "-max", "3"}, 2, "flag -max after the arguments: flags go first"},
		{[]string{"get", "http://127.0.0.1:9/"}, 1, "-allow-private allows loopback"},
		{[]string{"explain", "-status", "42"}, 2, "-status 42: want an HTTP status, 100 to 999"},
		{[]string{"get", "-timeout", "11m", "http://example.org/"}, 2, "-timeout 11m0s: want more than 0 and at most 10m0s"},
		{[]string{"crawl", "-retries", "4", "http://example.org/"}, 2, "-retries 4: want 0 to 3"},
		{[]string{"robots", "-timeout", "0s", "http://example.org/", "/"}, 2, "-timeout 0s: want more than 0"},
		{[]string{"crawl", "not a url"}, 1, `"not a url" is not an http or https URL`},
		{[]string{"get", "-name", "Googlebot", "-info", "https://example.org/bot", "http://example.org/"}, 1, "pretends to be a browser or another bot"},
	} {
		r := runCmd(t, dir, c.args...)
		if r.code != c.code {
			t.Errorf("polite %s: exit %d, want %d (stderr %q)", strings.Join(c.args, " "), r.code, c.code, r.stderr)
		}
		r.oneLine(t, c.want)
	}
}

// R5.1, R5.4: robots FILE says, per path, the verdict and the line that
// gave it; the exit status is 1 when a path is disallowed.
func TestRobotsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "robots.txt")
	if err := os.WriteFile(file, []byte("User-agent: *\nDisallow: /private/\nContent-Signal: ai-input=no\n\nUser-agent: AcmeBot\nDisallow:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, "", "robots", file, "/private/x", "/open")
	want := "group: User-agent: *\ncrawl-delay: none\nsitemaps: none\n" +
		"/private/x: disallowed (line 2: Disallow: /private/)\n  signals: ai-input=no (robots.txt line 3)\n" +
		"/open: allowed (no rule matched)\n  signals: ai-input=no (robots.txt line 3)\n"
	if r.code != 1 || r.stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant exit 1 and\n%s", r.code, r.stdout, want)
	}
	r = runCmd(t, "", "robots", "-agent", "AcmeBot", file, "/private/x")
	if r.code != 0 || !strings.Contains(r.stdout, "group: User-agent: AcmeBot\n") || !strings.Contains(r.stdout, "/private/x: allowed") {
		t.Errorf("-agent AcmeBot: exit %d\n%s", r.code, r.stdout)
	}
}

// R5.1-R5.2: robots URL reads the site's robots.txt politely and asks no
// page; without -allow-private a loopback site is refused before any
// request (R10.1).
func TestRobotsURL(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	base := addrSite(t, fm, politetest.Site{Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /private/\nCrawl-delay: 7\nContent-Signal: ai-input=no\n\nSitemap: https://example.org/sitemap.xml\n"),
	}})
	r := runCmd(t, "", "robots", "-allow-private", base+"/", "/private/x", "/open")
	for _, want := range []string{"crawl-delay: 7s\n", "sitemaps: https://example.org/sitemap.xml\n",
		"/private/x: disallowed (line 2: Disallow: /private/)\n", "/open: allowed", "signals: ai-input=no (robots.txt line 4)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1: /private/x is disallowed", r.code)
	}
	if got := paths(fm, hostOf(base)); len(got) != 1 || got[0] != politetest.RobotsPath {
		t.Errorf("farm saw %v, want robots.txt alone", got)
	}
	if v := fm.Audit().VisitsTo(hostOf(base)); len(v) == 1 && !strings.HasPrefix(v[0].Header.Get("User-Agent"), "PoliteCrawler/") {
		t.Errorf("asked as %q", v[0].Header.Get("User-Agent"))
	}
	r = runCmd(t, "", "robots", base+"/", "/open")
	if r.code != 1 || !strings.Contains(r.stderr, "address not allowed") {
		t.Errorf("without -allow-private: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := fm.Audit().Count(hostOf(base)); n != 1 {
		t.Errorf("farm saw %d requests in all, want the first robots.txt only", n)
	}
}

// R3.5: explain prints what a response means, from flags or a saved one.
func TestExplain(t *testing.T) {
	t.Parallel()
	r := runCmd(t, "", "explain", "-status", "429", "-header", "Retry-After: 120")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "rate-limited: ") || !strings.Contains(r.stdout, "wait: 120 s from Retry-After\n") {
		t.Errorf("429: exit %d\n%s", r.code, r.stdout)
	}
	r = runCmd(t, "", "explain", "-response", "../../testdata/responses/cloudflare-challenge.http")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "refused: ") || !strings.Contains(r.stdout, "challenge: yes (Cloudflare)") {
		t.Errorf("a saved challenge: exit %d\n%s", r.code, r.stdout)
	}
	r = runCmd(t, "", "explain", "-status", "503", "-header", "Retry-After: 7200")
	if r.code != 0 || !strings.Contains(r.stdout, "wait: 7200 s from Retry-After, beyond the 1h0m0s horizon: the address is parked") {
		t.Errorf("a Retry-After past the horizon (R2.4): exit %d\n%s", r.code, r.stdout)
	}
	r = runCmd(t, "", "explain", "-header", "no colon")
	if r.code != 2 {
		t.Errorf("a header without a colon: exit %d", r.code)
	}
	r.oneLine(t, `want "Name: value"`)
}

// R1, R2, R5.1, R7: get fetches each URL after its robots.txt, one line
// per Result (-json: one object), the exit status 1 when one failed.
func TestGet(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	a := addrSite(t, fm, politetest.Site{Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nContent-Signal: ai-input=no\nAllow: /\n"),
	}})
	b := addrSite(t, fm, politetest.Site{Pages: map[string]politetest.Page{"/gone": {Status: 404}}})
	r := runCmd(t, "", "get", "-json", "-allow-private", a+"/page", b+"/gone")
	var lines []jsonResult
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var j jsonResult
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatalf("not a JSON line: %q: %v", l, err)
		}
		lines = append(lines, j)
	}
	if len(lines) != 2 || r.code != 1 {
		t.Fatalf("exit %d, %d lines, want 1 (a 404) and 2:\n%s", r.code, len(lines), r.stdout)
	}
	byURL := map[string]jsonResult{lines[0].URL: lines[0], lines[1].URL: lines[1]}
	page, gone := byURL[a+"/page"], byURL[b+"/gone"]
	if page.Status != 200 || page.Rest == nil || page.Rest.Term != "floor" || page.Rest.WaitMS != 3000 || page.Verdict == nil || page.Verdict.Kind != "ok" {
		t.Errorf("the page: %+v", page)
	}
	if page.AIInput || len(page.Signals) != 1 || page.Signals[0].Source != "robots.txt line 2" {
		t.Errorf("the page's signals: ai-input %v, %v", page.AIInput, page.Signals)
	}
	if gone.Status != 404 || gone.Verdict == nil || gone.Verdict.Kind != "not-found" {
		t.Errorf("the 404: %+v", gone)
	}
	for _, base := range []string{a, b} {
		if got := paths(fm, hostOf(base)); len(got) != 2 || got[0] != politetest.RobotsPath {
			t.Errorf("%s saw %v, want robots.txt then the page", base, got)
		}
	}
	if rep := fm.Audit().Report(politetest.AtLeast(3 * time.Second)); !rep.Polite() {
		t.Error(rep)
	}
	// Plain lines.
	r = runCmd(t, "", "get", "-allow-private", a+"/page", a+"/other")
	if r.code != 0 || !strings.Contains(r.stdout, "200 "+a+"/page ") || !strings.Contains(r.stdout, "200 "+a+"/other ") ||
		!strings.Contains(r.stdout, "no AI input: ai-input=no (robots.txt line 2)") {
		t.Errorf("plain: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// -demo: get and crawl against the embedded farm, no internet; timeline
// R10.2, R11.3: -timeout and -retries bound how long a server that takes
// the request and never answers holds get: the farm sees robots.txt and
// the page once, and the page's line names the timeout.
func TestGetTimeout(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	a := addrSite(t, fm, politetest.Site{Pages: map[string]politetest.Page{
		"/stall": {Latency: time.Hour}, // until the client goes away
	}})
	r := runCmd(t, "", "get", "-allow-private", "-timeout", "1s", "-retries", "0", a+"/stall")
	if r.code != 1 || !strings.Contains(r.stdout, "ERR "+a+"/stall: ") || !strings.Contains(r.stdout, "request took longer than 1s") {
		t.Errorf("exit %d, want 1 and the page's line naming the 1s timeout:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := paths(fm, hostOf(a)); len(got) != 2 || got[0] != politetest.RobotsPath || got[1] != "/stall" {
		t.Errorf("the farm saw %v, want robots.txt and the page once", got)
	}
}

// draws a farm crawl.
func TestDemo(t *testing.T) {
	t.Parallel()
	r := runCmd(t, "", "get", "-demo")
	if r.code != 0 || !strings.Contains(r.stdout, "200 http://news.test:") || !strings.Contains(r.stdout, "200 http://traps.test:") {
		t.Errorf("get -demo: exit %d\n%s", r.code, r.stdout)
	}
	r = runCmd(t, "", "crawl", "-demo", "-sitemaps")
	if r.code != 0 || !strings.Contains(r.stdout, "requests in") || !strings.Contains(r.stderr, "host=closed.news.test") ||
		!strings.Contains(r.stdout, "2 sitemaps read, listing 4 URLs") || !strings.Contains(r.stdout, "trap calendar") {
		t.Errorf("crawl -demo: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, p := range politetest.TrapPages { // every real page, past the traps (R9)
		if !regexp.MustCompile(`(?m)^200 http://traps\.test:\d+` + regexp.QuoteMeta(p) + ` `).MatchString(r.stdout) {
			t.Errorf("crawl -demo: the real page traps.test%s was not fetched", p)
		}
	}
}

func TestTimeline(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "t.svg")
	r := runCmd(t, "", "timeline", "-o", out)
	svg, err := os.ReadFile(out)
	if r.code != 0 || err != nil || !strings.Contains(r.stdout, "requests drawn in "+out) {
		t.Fatalf("exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if err := xml.Unmarshal(svg, new(struct{})); err != nil || !strings.Contains(string(svg), "slow.test") || !strings.Contains(string(svg), "retry-after") {
		t.Errorf("not the picture (%v): %.200s", err, svg)
	}
	r = runCmd(t, "", "timeline", "-o", filepath.Join(t.TempDir(), "no", "such", "dir.svg"))
	if r.code != 1 {
		t.Errorf("an unwritable -o: exit %d", r.code)
	}
	r.oneLine(t, "no such file or directory")
}
