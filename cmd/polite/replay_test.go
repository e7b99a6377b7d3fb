package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/politecrawler/polite/politetest"
)

// replayKit is testdata/replay: webrecorder's warcio and ReplayWeb.page,
// pinned by its package-lock.json and installed by npm ci (.ci/run).
const replayKit = "testdata/replay"

// needNode skips where node or the kit's node_modules are missing, and
// fails in CI, where .ci/run installs them.
func needNode(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(replayKit, "node_modules", "warcio", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node or %s/node_modules missing (CI=true: .ci/run runs npm ci there): %v", replayKit, err)
		}
		t.Skipf("node or %s/node_modules missing (run npm ci there): %v", replayKit, err)
	}
}

// The texts the replay must show, one per page.
const (
	landedText   = "LANDED-AFTER-A-REDIRECT"
	unzippedText = "UNZIPPED-FROM-GZIP"
)

// R5.1, R8.3, R1: a crawl's WACZ holds what a replay needs — robots.txt,
// the redirect hop, a page the server sent gzip-encoded, kept gzip — and
// code nobody here wrote reads it back: webrecorder's warcio parses every
// record and verifies every payload digest, and ReplayWeb.page replays the
// pages in a real browser, the one reached through the redirect and the
// gzip-encoded one, each with its text.
func TestCrawlArchiveReplays(t *testing.T) {
	t.Parallel()
	needNode(t)
	fm := politetest.Start(t)
	zippedPage := "<!doctype html><title>Zipped</title><p>" + unzippedText + "</p>"
	landing := "<!doctype html><title>Landing</title><p>" + landedText + "</p>"
	base := addrSite(t, fm, politetest.Site{Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nAllow: /\n"),
		"/":                   html("/moved", "/zipped"),
		"/moved":              {Status: 301, Redirect: "/landing"},
		"/landing":            {Body: []byte(landing), Header: http.Header{"Content-Type": {"text/html"}}},
		"/zipped":             {Body: gzipped(t, zippedPage), Header: http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"gzip"}}},
	}})
	dir := t.TempDir()
	out := filepath.Join(dir, "crawl.wacz")
	if r := runCmd(t, "", "crawl", "-allow-private", "-o", out, base+"/"); r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	got := paths(fm, hostOf(base))
	if want := []string{politetest.RobotsPath, "/", "/moved", "/landing", "/zipped"}; len(got) != len(want) || got[0] != want[0] || !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("farm saw %v, want robots.txt first, then each of %v once", got, want[1:])
	}
	for _, v := range fm.Audit().VisitsTo(hostOf(base)) {
		if v.Header.Get("Accept-Encoding") != "gzip" {
			t.Errorf("farm saw %s asked with Accept-Encoding %q, want gzip, as net/http asks", v.Path, v.Header.Get("Accept-Encoding"))
		}
	}
	if rep := fm.Audit().Report(politetest.AtLeast(3 * time.Second)); !rep.Polite() {
		t.Error(rep)
	}
	warc := checkWACZ(t, out, dir)

	t.Run("warcio", func(t *testing.T) { checkWarcio(t, warc, base, zippedPage) })
	t.Run("browser", func(t *testing.T) {
		checkReplay(t, out, base+"/moved", landedText)
		checkReplay(t, out, base+"/zipped", unzippedText)
	})
}

// The README's recipe: polite crawl -demo -o demo.wacz, then polite
// replay demo.wacz shows the demo's main page, its first seed's
// (traps.test's home page), offline.
func TestDemoReplays(t *testing.T) {
	t.Parallel()
	needNode(t)
	dir := t.TempDir()
	if r := runCmd(t, dir, "crawl", "-demo", "-o", "demo.wacz"); r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	checkReplay(t, filepath.Join(dir, "demo.wacz"), "", "/blog/first-post")
}

// checkWACZ checks the package's layout and hashes, and returns the path
// of its WARC, unpacked into dir.
func checkWACZ(t *testing.T, wacz, dir string) string {
	t.Helper()
	zr, err := zip.OpenReader(wacz)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string][]byte{}
	for _, f := range zr.File {
		if f.Name == waczWARC && f.Method != zip.Store {
			t.Errorf("%s: method %d, want stored", f.Name, f.Method)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		if files[f.Name], err = io.ReadAll(rc); err != nil {
			t.Fatal(err)
		}
		rc.Close()
	}
	var pkg struct {
		Profile, Version string
		Resources        []waczResource
	}
	var raw map[string]any
	if err := json.Unmarshal(files["datapackage.json"], &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(files["datapackage.json"], &pkg); err != nil {
		t.Fatal(err)
	}
	if raw["wacz_version"] != "1.1.1" || raw["profile"] != "data-package" {
		t.Errorf("datapackage.json: %s", files["datapackage.json"])
	}
	var names []string
	for _, r := range pkg.Resources {
		names = append(names, r.Path)
		sum := sha256.Sum256(files[r.Path])
		if r.Hash != "sha256:"+hex.EncodeToString(sum[:]) || r.Bytes != int64(len(files[r.Path])) {
			t.Errorf("resource %s: %s, %d bytes; the file has %d", r.Path, r.Hash, r.Bytes, len(files[r.Path]))
		}
	}
	if want := []string{waczWARC, waczIndex, waczPages}; !slices.Equal(names, want) {
		t.Errorf("resources %v, want %v", names, want)
	}
	var digest struct{ Path, Hash string }
	if err := json.Unmarshal(files["datapackage-digest.json"], &digest); err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(files["datapackage.json"]); digest.Path != "datapackage.json" || digest.Hash != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("datapackage-digest.json: %+v", digest)
	}
	pages := strings.Split(strings.TrimSpace(string(files[waczPages])), "\n")
	if len(pages) != 1+3 || !strings.Contains(pages[0], "json-pages-1.0") {
		t.Errorf("pages.jsonl: %q, want its header and the three pages", pages)
	}
	if n := strings.Count(string(files[waczIndex]), "\n"); n != 5 {
		t.Errorf("index.cdxj: %d lines, want one per response (robots.txt, 4 pages)\n%s", n, files[waczIndex])
	}
	path := filepath.Join(dir, "data.warc.gz")
	if err := os.WriteFile(path, files[waczWARC], 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

// warcioRecord is a line of read-warc.mjs.
type warcioRecord struct {
	Type, Target, ContentEncoding, Digest, Computed, Payload string
	Status                                                   int
	DigestOK                                                 bool
}

// checkWarcio reads the WARC with warcio: every record parses, every
// response's payload digest verifies, the gzip page is stored gzip and
// gunzips to the page, robots.txt and the redirect hop are there.
func checkWarcio(t *testing.T, warc, base, zippedPage string) {
	abs, err := filepath.Abs(warc)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "read-warc.mjs", abs)
	cmd.Dir = replayKit
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("warcio: %v\n%s", err, stderr.String())
	}
	var recs []warcioRecord
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r warcioRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("warcio line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 1+2*5 {
		t.Fatalf("warcio read %d records, want warcinfo and 5 exchanges:\n%s", len(recs), out)
	}
	byTarget := map[string]warcioRecord{}
	for _, r := range recs {
		if r.Type != "response" {
			continue
		}
		byTarget[r.Target] = r
		if r.Digest == "" || !r.DigestOK {
			t.Errorf("%s: WARC-Payload-Digest %q, warcio's payload hashes to %s", r.Target, r.Digest, r.Computed)
		}
	}
	if r, ok := byTarget[base+politetest.RobotsPath]; !ok || r.Status != 200 {
		t.Errorf("robots.txt: %+v", r)
	}
	if r, ok := byTarget[base+"/moved"]; !ok || r.Status != 301 {
		t.Errorf("the redirect hop: %+v", r)
	}
	z := byTarget[base+"/zipped"]
	if z.ContentEncoding != "gzip" {
		t.Errorf("the gzip page's record: Content-Encoding %q, want gzip", z.ContentEncoding)
	}
	p, _ := base64.StdEncoding.DecodeString(z.Payload)
	zr, err := gzip.NewReader(bytes.NewReader(p))
	if err != nil {
		t.Fatalf("the gzip page's payload (%d bytes) is not gzip: %v", len(p), err)
	}
	if page, err := io.ReadAll(zr); err != nil || string(page) != zippedPage {
		t.Errorf("the gzip page's payload gunzips to %q (%v), want %q", page, err, zippedPage)
	}
}

// checkReplay serves the WACZ and ReplayWeb.page from loopback with
// polite replay, opens page ("" for the WACZ's main page) in headless
// chromium, waits (within a deadline) for text to show in the replayed
// page, and screenshots it.
func checkReplay(t *testing.T, wacz, page, text string) {
	t.Helper()
	browser := needChromium(t)
	open := startReplay(t, wacz)
	if page != "" {
		open += "?url=" + page
	}

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.NoSandbox, // as root in a container the sandbox cannot start
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(1200, 800),
	)...)
	defer cancelAlloc()
	tab, cancel := chromedp.NewContext(alloc)
	defer cancel()

	if _, err := chromedp.Run(tab, chromedp.Navigate(open)); err != nil {
		t.Fatalf("opening %s: %v", open, err)
	}
	// The replay renders when its service worker has loaded the WACZ:
	// polled, within a deadline.
	ctx, stop := context.WithTimeout(tab, 90*time.Second)
	defer stop()
	shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](deepText))
	for !strings.Contains(shown, text) && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
			shown, _ = chromedp.Run(ctx, chromedp.Evaluate[string](deepText))
		}
	}
	if !strings.Contains(shown, text) {
		t.Errorf("replay of %s: %v; the replay showed %q, want %q", open, ctx.Err(), shown, text)
	}
	if png, err := chromedp.Run(tab, chromedp.FullScreenshot(90)); err == nil {
		name := "main"
		if page != "" {
			name = filepath.Base(page)
		}
		shot := filepath.Join(os.TempDir(), "polite-replay-"+strings.TrimSuffix(filepath.Base(wacz), ".wacz")+"-"+name+".png")
		if err := os.WriteFile(shot, png, 0o666); err == nil {
			t.Logf("screenshot of %s: %s", open, shot)
		}
	}
}

// startReplay runs polite replay on wacz, on a port of its choosing,
// until the test ends, and returns the address it serves.
func startReplay(t *testing.T, wacz string) string {
	t.Helper()
	cmd := exec.Command(binary, "replay", "-serve", "127.0.0.1:0", "-ui", filepath.Join(replayKit, "node_modules", "replaywebpage"), wacz)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("polite replay, interrupted: %v\n%s", err, stderr.String())
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	_, addr, ok := strings.Cut(strings.TrimSpace(line), ": http://")
	if err != nil || !ok {
		t.Fatalf("polite replay said %q (%v)\n%s", line, err, stderr.String())
	}
	return "http://" + strings.TrimSuffix(addr, " (until interrupted)")
}

// deepText is a JavaScript expression: the text of the page and of every
// shadow root and same-origin frame inside it, where ReplayWeb.page
// renders the archived page.
const deepText = `(() => {
  let out = "";
  const walk = (root) => {
    if (root.body) out += " " + root.body.innerText;
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.tagName === "IFRAME") {
        try { if (el.contentDocument) walk(el.contentDocument); } catch (e) {}
      }
    }
  };
  walk(document);
  return out;
})()`

// polite replay says in one line what it cannot serve: a -ui without
// ReplayWeb.page, a file that is no WACZ, no file at all.
func TestReplayRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notWACZ := filepath.Join(dir, "crawl.warc.gz")
	if err := os.WriteFile(notWACZ, []byte("WARC/1.1\r\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	ui := filepath.Join(dir, "ui")
	os.Mkdir(ui, 0o777)
	for _, name := range []string{"sw.js", "ui.js"} {
		os.WriteFile(filepath.Join(ui, name), nil, 0o666)
	}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"replay", "-ui", dir, notWACZ}, 1, "no ReplayWeb.page there"},
		{[]string{"replay", "-ui", ui, notWACZ}, 1, "not a valid zip file"},
		{[]string{"replay", "-ui", ui}, 2, "want one .wacz file"},
	} {
		r := runCmd(t, dir, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.says) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("polite %s: exit %d, stderr %q; want %d and a line saying %q", strings.Join(c.args, " "), r.code, r.stderr, c.code, c.says)
		}
	}
}
