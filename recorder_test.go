package polite_test

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// exchanges is a Recorder keeping what it is given.
type exchanges struct {
	mu  sync.Mutex
	all []polite.Exchange
}

func (x *exchanges) Record(e polite.Exchange) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.all = append(x.all, e)
}

// to are the exchanges with u, in order.
func (x *exchanges) to(u string) []polite.Exchange {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []polite.Exchange
	for _, e := range x.all {
		if e.URL == u {
			out = append(out, e)
		}
	}
	return out
}

// gzipBytes is b compressed.
func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// R5.1, R8.3, R11.3, R1.1: a Recorder is given every exchange — robots.txt,
// a redirect hop, each try of a URL tried again — with the pinned address,
// and the body as the server sent it: still gzip, its Content-Encoding
// kept, while the Result carries the page decoded, as without a Recorder.
// The farm sees the same Accept-Encoding it sees from net/http.
func TestRecorderGetsEveryExchangeAsSent(t *testing.T) {
	r := newFarmRig(t)
	page := []byte("<!doctype html><title>zipped</title><p>a page sent gzip-encoded")
	zipped := gzipBytes(t, page)
	h := r.site(politetest.Site{Name: "rec.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nAllow: /\n"),
		"/moved":              {Status: 301, Redirect: "/gz"},
		"/gz":                 {Body: zipped, Header: http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"gzip"}}},
		"/flaky":              {Sequence: []politetest.Page{{Status: 503}, {}}},
		"/chunked":            {Chunked: true, Size: 20000}, // past net/http's buffer: sent chunked
	}})
	var rec exchanges
	r.start(polite.Config{Recorder: &rec})
	moved, gz, flaky, chunked := r.url(h, "/moved"), r.url(h, "/gz"), r.url(h, "/flaky"), r.url(h, "/chunked")
	r.add(moved, flaky, chunked)
	res := r.results(3)

	got := res[moved]
	if got.Err != nil || got.FinalURL != gz || !bytes.Equal(got.Body, page) || got.Header.Get("Content-Encoding") != "" {
		t.Fatalf("Result of %s: %v, final %s, body %q, header %v: want the page decoded", moved, got.Err, got.FinalURL, got.Body, got.Header)
	}
	if got.Request.Get("Accept-Encoding") != "" {
		t.Errorf("Result.Request %v: want what the fetcher set, as without a Recorder", got.Request)
	}
	robots := rec.to(r.url(h, politetest.RobotsPath))
	if len(robots) != 1 || !robots[0].Robots || robots[0].Status != 200 || string(robots[0].Body) != "User-agent: *\nAllow: /\n" {
		t.Errorf("robots.txt exchanges: %+v", robots)
	}
	hop := rec.to(moved)
	if len(hop) != 1 || hop[0].Status != 301 || hop[0].Hop != 0 || hop[0].Header.Get("Location") != "/gz" {
		t.Errorf("the redirect hop: %+v", hop)
	}
	page1 := rec.to(gz)
	if len(page1) != 1 {
		t.Fatalf("%d exchanges with %s, want 1", len(page1), gz)
	}
	e := page1[0]
	if e.Hop != 1 || e.Try != 1 || e.StatusLine != "HTTP/1.1 200 OK" || e.Truncated != "" || e.Err != nil {
		t.Errorf("the gzip page's exchange: hop %d try %d %q truncated %q err %v", e.Hop, e.Try, e.StatusLine, e.Truncated, e.Err)
	}
	if !bytes.Equal(e.Body, zipped) || e.Header.Get("Content-Encoding") != "gzip" || e.Header.Get("Content-Length") == "" {
		t.Errorf("the gzip page's exchange: body %d bytes (gzip as sent: %v), header %v", len(e.Body), bytes.Equal(e.Body, zipped), e.Header)
	}
	if dialled := r.farm.Audit().VisitsTo(h)[0].Addr; e.Addr.Addr() != dialled || e.Addr.Port() == 0 {
		t.Errorf("exchange Addr %v, want the pinned %v", e.Addr, dialled)
	}
	if e.RequestHeader.Get("Accept-Encoding") != "gzip" || e.RequestHeader.Get("User-Agent") == "" {
		t.Errorf("exchange RequestHeader %v", e.RequestHeader)
	}

	tries := rec.to(flaky)
	if len(tries) != 2 || tries[0].Try != 1 || tries[0].Status != 503 || !tries[0].Failed || tries[1].Try != 2 || tries[1].Status != 200 || tries[1].Failed {
		t.Errorf("the tries of %s: %+v", flaky, tries)
	}
	ch := rec.to(chunked)
	if len(ch) != 1 || !slices.Equal(ch[0].TransferEncoding, []string{"chunked"}) || !bytes.Equal(ch[0].Body, res[chunked].Body) || len(ch[0].Body) == 0 {
		t.Errorf("the chunked page: %+v", ch)
	}

	for _, v := range r.farm.Audit().VisitsTo(h) {
		if v.Header.Get("Accept-Encoding") != "gzip" {
			t.Errorf("farm saw %s with Accept-Encoding %q, want net/http's gzip", v.Path, v.Header.Get("Accept-Encoding"))
		}
	}
	if rep := r.farm.Audit().Report(politetest.AtLeast(polite.MinRest)); !rep.Polite() {
		t.Error(rep)
	}
}

// R8.1, R10.2: the body cap holds for the raw bytes and for the decoded
// body alike: a gzip body longer than the cap is cut there, and so is a
// small one that decodes past it (a gzip bomb).
func TestRecorderCapsRawAndDecoded(t *testing.T) {
	r := newFarmRig(t)
	noise := make([]byte, 8000)
	rand.Read(noise)
	bomb := gzipBytes(t, make([]byte, 1<<20))
	h := r.site(politetest.Site{Name: "cap.test", Pages: map[string]politetest.Page{
		"/long": {Body: gzipBytes(t, noise), Header: http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"gzip"}}},
		"/bomb": {Body: bomb, Header: http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"gzip"}}},
	}})
	var rec exchanges
	const max = 4096
	r.start(polite.Config{Recorder: &rec, MaxBodyBytes: max})
	long, bombURL := r.url(h, "/long"), r.url(h, "/bomb")
	r.add(long, bombURL)
	res := r.results(2)
	for _, u := range []string{long, bombURL} {
		got := res[u]
		if !errors.Is(got.Err, polite.ErrBodyTooLarge) || !got.Truncated || len(got.Body) > max {
			t.Errorf("%s: %v, truncated %v, %d bytes: want ErrBodyTooLarge within %d", u, got.Err, got.Truncated, len(got.Body), max)
		}
		ex := rec.to(u)
		if len(ex) != 1 || ex[0].Truncated != "length" || len(ex[0].Body) > max {
			t.Errorf("%s: exchanges %d, truncated %q, raw %d bytes", u, len(ex), ex[0].Truncated, len(ex[0].Body))
		}
	}
	if n := len(rec.to(long)[0].Body); n != max {
		t.Errorf("the long body's raw bytes: %d, want the cap %d", n, max)
	}
	zr, err := gzip.NewReader(bytes.NewReader(rec.to(bombURL)[0].Body))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := io.Copy(io.Discard, zr); n < max {
		t.Errorf("the bomb's raw bytes decode to %d bytes, want at least the %d read", n, max)
	}
}

// R6.2: a 304 is recorded as it came, with when the stored copy it
// confirmed was fetched.
func TestRecorderNotModified(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "etag.test", Pages: map[string]politetest.Page{"/": {ETag: `"v1"`}}})
	store := polite.NewMemoryStore()
	u := r.url(h, "/")
	r.start(polite.Config{Store: store})
	r.add(u)
	first := r.results(1)[u]
	r.f.Close()
	var rec exchanges
	r.start(polite.Config{Store: store, Recorder: &rec})
	r.add(u)
	if again := r.results(1)[u]; !again.NotModified {
		t.Fatalf("second fetch: %d, not modified %v", again.Status, again.NotModified)
	}
	ex := rec.to(u)
	if len(ex) != 1 || ex[0].Status != 304 || len(ex[0].Body) != 0 || ex[0].RequestHeader.Get("If-None-Match") != `"v1"` {
		t.Fatalf("the 304's exchanges: %+v", ex)
	}
	if want := first.Started.Add(first.Duration); !ex[0].CopyFetched.Equal(want) {
		t.Errorf("CopyFetched %v, want when the first response ended, %v", ex[0].CopyFetched, want)
	}
}
