package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"
	"github.com/politecrawler/polite/politetest"
)

// record is one WARC record read back: its type, target and, for an
// HTTP block, the status and payload.
type record struct {
	typ, target, id, concurrentTo, profile, truncated string
	status                                            int
	payload                                           []byte
}

// readWARC reads path back record by record with gowarc, strictly: a
// record that breaks the spec fails the test.
func readWARC(t *testing.T, path string) []record {
	t.Helper()
	// gowarc's options write a package global of google/uuid whenever
	// they are made, a reader's too: the tests, run in parallel, read
	// under the lock the archive builds under.
	building.Lock()
	defer building.Unlock()
	rd, err := gowarc.NewWarcFileReader(path, 0, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var out []record
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("record %d: %v", len(out)+1, err)
		}
		if len(rec.Validation) > 0 {
			t.Errorf("record %d: %v", len(out)+1, rec.Validation)
		}
		w := rec.WarcRecord
		r := record{typ: w.Type().String(), target: w.WarcHeader().Get(gowarc.WarcTargetURI), id: w.WarcHeader().GetId(gowarc.WarcRecordID),
			concurrentTo: w.WarcHeader().GetId(gowarc.WarcConcurrentTo), profile: w.WarcHeader().Get(gowarc.WarcProfile),
			truncated: w.WarcHeader().Get(gowarc.WarcTruncated)}
		if w.Type() == gowarc.Revisit { // its block is the 304's head: read it as such
			raw, err := w.Block().RawBytes()
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(raw), nil)
			if err != nil {
				t.Fatalf("revisit of %s: %v", r.target, err)
			}
			r.status = resp.StatusCode
		}
		if b, ok := w.Block().(gowarc.HttpResponseBlock); ok {
			r.status = b.HttpStatusCode()
			p, err := b.PayloadBytes()
			if err != nil {
				t.Fatal(err)
			}
			if r.payload, err = io.ReadAll(p); err != nil {
				t.Fatal(err)
			}
		}
		rec.Close()
		out = append(out, r)
	}
}

// gzipped is b compressed.
func gzipped(t *testing.T, b string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	io.WriteString(zw, b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// html is a page of links.
func html(links ...string) politetest.Page {
	var b strings.Builder
	b.WriteString("<!doctype html><title>page</title>")
	for _, l := range links {
		fmt.Fprintf(&b, `<a href="%s">%s</a>`, l, l)
	}
	return politetest.Page{Body: []byte(b.String()), Header: http.Header{"Content-Type": {"text/html"}}}
}

// R5.1, R1, R2: crawl follows links within the site and, with -sitemaps,
// the sitemap index robots.txt lists and its gzipped child, each fetched
// after robots.txt through the site's one budget; -o writes each
// exchange, robots.txt's too, as a request and a response record, and
// -cdxj its index beside it.
func TestCrawlSitemapsAndWARC(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	addr, err := fm.NewAddr()
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("http://%s:%d", addr, fm.Port(addr))
	child := "<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">" +
		"<url><loc>" + base + "/posts/1</loc></url><url><loc>" + base + "/posts/2</loc></url>" +
		"<url><loc>http://elsewhere.example/off-site</loc></url></urlset>\n"
	index := "<?xml version=\"1.0\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>" + base + "/posts.xml.gz</loc></sitemap></sitemapindex>\n"
	if _, err := fm.AddSite(politetest.Site{Name: addr.String(), Addr: addr, Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nAllow: /\n\nSitemap: " + base + "/sitemap_index.xml\n"),
		"/":                   html("/about"),
		"/about":              html("/"),
		"/posts/1":            html(),
		"/posts/2":            html(),
		"/sitemap_index.xml":  {Body: []byte(index), Header: http.Header{"Content-Type": {"application/xml"}}},
		"/posts.xml.gz":       {Body: gzipped(t, child), Header: http.Header{"Content-Type": {"application/gzip"}}},
	}}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "crawl.warc.gz")
	r := runCmd(t, "", "crawl", "-allow-private", "-sitemaps", "-o", out, "-cdxj", base+"/")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "4 pages") || !strings.Contains(r.stdout, "2 sitemaps read, listing 4 URLs") {
		t.Errorf("summary:\n%s", r.stdout)
	}
	got := paths(fm, addr.String())
	want := []string{politetest.RobotsPath, "/", "/about", "/posts.xml.gz", "/posts/1", "/posts/2", "/sitemap_index.xml"} // then sorted
	if len(got) == 0 || got[0] != politetest.RobotsPath || !slices.Equal(sorted(got[1:]), want[1:]) {
		t.Fatalf("farm saw %v; want robots.txt first, then each of %v once", got, want[1:])
	}
	if i, j := slices.Index(got, "/sitemap_index.xml"), slices.Index(got, "/posts.xml.gz"); i > j || j > slices.Index(got, "/posts/1") {
		t.Errorf("farm saw %v: want the index, then its child, then the child's pages", got)
	}
	if rep := fm.Audit().Report(politetest.AtLeast(3 * time.Second)); !rep.Polite() {
		t.Error(rep)
	}

	recs := readWARC(t, out)
	if len(recs) != 1+2*7 || recs[0].typ != "warcinfo" {
		t.Fatalf("%d records, first %q; want warcinfo and a request and a response for robots.txt and each of 6 URLs", len(recs), recs[0].typ)
	}
	responses := map[string]record{}
	for i := 1; i < len(recs); i += 2 {
		req, resp := recs[i], recs[i+1]
		if req.typ != "request" || resp.typ != "response" && resp.typ != "revisit" || req.target != resp.target || req.concurrentTo != resp.id {
			t.Errorf("records %d-%d: %s %s → %s, %s %s", i+1, i+2, req.typ, req.target, req.concurrentTo, resp.typ, resp.id)
		}
		responses[resp.target] = resp
	}
	for _, p := range want {
		resp, ok := responses[base+p]
		if !ok || resp.status != 200 {
			t.Errorf("%s: no response record with status 200 (%v)", p, ok)
		}
	}
	if p := responses[base+"/"].payload; !bytes.Equal(p, html("/about").Body) {
		t.Errorf("the home page's payload %q", p)
	}
	// -cdxj: the index beside it, a line for each response and revisit.
	if index, err := os.ReadFile(strings.TrimSuffix(out, ".warc.gz") + ".cdxj"); err != nil || bytes.Count(index, []byte("\n")) != 7 {
		t.Errorf("crawl.cdxj: %v\n%s", err, index)
	}
	// The two posts are the same bytes: the second is a revisit of the first.
	p1, p2 := responses[base+"/posts/1"], responses[base+"/posts/2"]
	if (p1.typ == "revisit") == (p2.typ == "revisit") || p1.profile+p2.profile != gowarc.ProfileIdenticalPayloadDigestV1_1 {
		t.Errorf("the posts' records: %s %q and %s %q; want a response and an identical-payload-digest revisit", p1.typ, p1.profile, p2.typ, p2.profile)
	}
}

// sorted is a sorted copy.
func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// R6: a second crawl on the same -store asks conditionally; the 304s are
// revisit records in its WARC, and robots.txt, fresh in the store, is not
// asked again (R5.3).
func TestCrawlStoreRevisits(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	base := addrSite(t, fm, politetest.Site{Default: func(p string) politetest.Page {
		pg := html("/", "/about")
		pg.ETag = `"` + p + `-v1"`
		return pg
	}})
	dir := t.TempDir()
	store := filepath.Join(dir, "crawl.db")
	for run, name := range []string{"first.warc", "second.warc"} {
		r := runCmd(t, "", "crawl", "-allow-private", "-store", store, "-o", filepath.Join(dir, name), base+"/")
		if r.code != 0 || !strings.Contains(r.stdout, "2 pages") {
			t.Fatalf("run %d: exit %d\n%s%s", run+1, r.code, r.stdout, r.stderr)
		}
	}
	vs := fm.Audit().VisitsTo(hostOf(base))
	if len(vs) != 5 || vs[3].Header.Get("If-None-Match") == "" || vs[4].Path == politetest.RobotsPath {
		t.Errorf("farm saw %d requests; want robots.txt and 2 pages, then 2 conditional pages", len(vs))
	}
	recs := readWARC(t, filepath.Join(dir, "second.warc"))
	var revisits int
	for _, r := range recs {
		if r.typ == "revisit" {
			revisits++
			if r.profile != gowarc.ProfileServerNotModifiedV1_1 || r.status != 304 {
				t.Errorf("revisit of %s: profile %q, status %d", r.target, r.profile, r.status)
			}
		}
	}
	if revisits != 2 || len(recs) != 5 {
		t.Errorf("second WARC: %d records, %d revisits; want warcinfo and 2 request-revisit pairs", len(recs), revisits)
	}
}

// -serve on a port in use is a one-line error before any request.
func TestCrawlServePortInUse(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	base := addrSite(t, fm, politetest.Site{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := runCmd(t, "", "crawl", "-allow-private", "-serve", ln.Addr().String(), base+"/")
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	r.oneLine(t, "address already in use")
	if n := fm.Audit().Count(hostOf(base)); n != 0 {
		t.Errorf("farm saw %d requests, want none", n)
	}
}

// -serve as a user runs it: the page and its event stream are served
// while the crawl goes and after it ends, until an interrupt, which ends
// the process with status 0.
func TestCrawlServeProcess(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	base := addrSite(t, fm, politetest.Site{Pages: map[string]politetest.Page{"/": html()}})
	cmd := exec.Command(binary, "crawl", "-allow-private", "-serve", "127.0.0.1:0", base+"/")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	var page string
	for lines.Scan() {
		l := lines.Text()
		if u, ok := strings.CutPrefix(l, "live page: "); ok {
			page = u
		}
		if strings.HasPrefix(l, "the live page stays up") {
			break
		}
	}
	if page == "" {
		t.Fatalf("no live page line; stderr %q", errOut.String())
	}
	resp, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "EventSource") {
		t.Errorf("the page: %d\n%.300s", resp.StatusCode, body)
	}
	resp, err = http.Get(page + "events")
	if err != nil {
		t.Fatal(err)
	}
	events := bufio.NewScanner(resp.Body)
	var requests int
	for events.Scan() {
		if events.Text() == "event: request" {
			requests++
		}
		if events.Text() == "event: summary" {
			break
		}
	}
	resp.Body.Close()
	if n := fm.Audit().Count(hostOf(base)); requests != n || n != 2 {
		t.Errorf("the stream replayed %d requests; the farm saw %d, want robots.txt and the page", requests, n)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after an interrupt: %v; stderr %q", err, errOut.String())
	}
}

// A crawl whose seed is no page exits 1, saying why in one line.
func TestCrawlSeedFails(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	base := addrSite(t, fm, politetest.Site{Pages: map[string]politetest.Page{"/": {Status: 404}}})
	r := runCmd(t, "", "crawl", "-allow-private", base+"/")
	if r.code != 1 || !strings.Contains(r.stdout, "0 pages") || !strings.Contains(r.stdout, "1 error,") {
		t.Errorf("exit %d, want 1\n%s", r.code, r.stdout)
	}
	r.oneLine(t, "polite crawl: seed "+base+"/: status 404")
}

// R11.3, R10: a body the server cuts short is tried again on the host's
// backoff, then archived as what came, marked WARC-Truncated: disconnect.
func TestCrawlArchivesACutBody(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	base := addrSite(t, fm, politetest.Site{Pages: map[string]politetest.Page{
		"/":    html("/cut"),
		"/cut": {Cut: true, Size: 4000, Header: http.Header{"Content-Type": {"text/html"}}},
	}})
	out := filepath.Join(t.TempDir(), "cut.warc")
	r := runCmd(t, "", "crawl", "-allow-private", "-o", out, base+"/")
	if r.code != 0 || !strings.Contains(r.stdout, "1 page") || !strings.Contains(r.stdout, "1 error,") || !strings.Contains(r.stdout, "ERR "+base+"/cut") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var found bool
	for _, rec := range readWARC(t, out) {
		if rec.typ == "response" && rec.target == base+"/cut" {
			found = true
			if rec.truncated != "disconnect" {
				t.Errorf("the cut body's record: WARC-Truncated %q, want disconnect", rec.truncated)
			}
		}
	}
	if !found {
		t.Error("no response record of the cut body")
	}
	if n := len(paths(fm, hostOf(base))); n < 4 {
		t.Errorf("farm saw %d requests: want robots.txt, the page and the cut body tried again", n)
	}
}
