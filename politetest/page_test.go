package politetest

// Tests of the scripted answers: pages, sequences, ETags, slow, hanging,
// cut and dropped bodies, and the 421 of a name served nowhere.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/clock"
)

func TestHang(t *testing.T) {
	f := New(nil)
	defer f.Close()
	addSite(t, f, Site{Name: "hang.test", Pages: map[string]Page{"/": {Hang: true, Body: []byte("0123456789")}}})

	resp, err := client(t, f, 200*time.Millisecond, netip.Addr{}).Get(f.URL("hang.test", "/"))
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Fatal("client with a timeout read a hanging body to the end")
	}

	resp = startHang(t, client(t, f, 0, netip.Addr{}), f.URL("hang.test", "/"))
	half := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, half); err != nil || string(half) != "01234" {
		t.Fatalf("first half = %q, %v", half, err)
	}
	closed := make(chan error, 1)
	go func() { closed <- f.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked with a hanging handler in progress")
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := f.NewAddr(); !errors.Is(err, ErrClosed) {
		t.Errorf("NewAddr after Close: %v", err)
	}
	for _, v := range f.Audit().Visits() {
		if v.End.IsZero() {
			t.Errorf("visit %s still open after Close", v.Path)
		}
	}
}

func TestBodyDelayFakeClock(t *testing.T) {
	clk := clock.NewFake()
	f := newFarm(t, clk)
	want := bytes.Repeat([]byte("slow body "), 1000)
	addSite(t, f, Site{Name: "drip.test", Pages: map[string]Page{"/": {Body: want, BodyDelay: 4 * time.Second}}})

	_, got := get(t, client(t, f, 10*time.Second, netip.Addr{}), f.URL("drip.test", "/"))
	if !bytes.Equal(got, want) {
		t.Errorf("body: got %d bytes, want %d", len(got), len(want))
	}
	vs := f.Audit().Visits()
	if len(vs) != 1 || vs[0].End.Sub(vs[0].Start) != 4*time.Second {
		t.Errorf("visits = %+v, want one lasting 4s", vs)
	}
}

func TestMisdirected(t *testing.T) {
	f := newFarm(t, nil)
	a := addSite(t, f, Site{Name: "a.test"})
	addSite(t, f, Site{Name: "b.test"})
	c := client(t, f, 10*time.Second, a.Addr) // every name dials a.test's address

	for _, name := range []string{"b.test", "nobody.test"} {
		resp, _ := get(t, c, "http://"+name+":"+itoa(f.Port(a.Addr))+"/")
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("%s on a.test's address: status %d, want 421", name, resp.StatusCode)
		}
		if vs := f.Audit().VisitsTo(name); len(vs) != 1 || vs[0].Addr != a.Addr {
			t.Errorf("%s: visits %+v, want one audited on %v", name, vs, a.Addr)
		}
	}
	if resp, _ := get(t, c, f.URL("A.TEST", "/")); resp.StatusCode != http.StatusOK {
		t.Errorf("a.test: status %d", resp.StatusCode)
	}
}

func TestPages(t *testing.T) {
	f := newFarm(t, nil)
	addSite(t, f, Site{
		Name: "p.test",
		Pages: map[string]Page{
			"/missing": {Status: 404, Body: []byte("gone")},
			"/moved":   {Redirect: "/new"},
			"/big":     {Size: 5000},
			"/robots.txt": {
				Header: http.Header{"Content-Type": {"text/plain"}},
				Body:   []byte("User-agent: *\nDisallow: /private\n"),
			},
		},
		Default: func(path string) Page {
			if strings.HasPrefix(path, "/teapot") {
				return Page{Status: 418}
			}
			return Page{}
		},
	})
	c := client(t, f, 10*time.Second, netip.Addr{})

	if resp, body := get(t, c, f.URL("p.test", "/missing")); resp.StatusCode != 404 || string(body) != "gone" {
		t.Errorf("/missing: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, c, f.URL("p.test", "/moved")); resp.StatusCode != 302 || resp.Header.Get("Location") != "/new" {
		t.Errorf("/moved: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, body := get(t, c, f.URL("p.test", "/big")); len(body) != 5000 || resp.ContentLength != 5000 {
		t.Errorf("/big: %d bytes, Content-Length %d", len(body), resp.ContentLength)
	}
	if resp, body := get(t, c, f.URL("p.test", "/robots.txt")); resp.Header.Get("Content-Type") != "text/plain" || !strings.HasPrefix(string(body), "User-agent") {
		t.Errorf("/robots.txt: %q %q", resp.Header.Get("Content-Type"), body)
	}
	if resp, _ := get(t, c, f.URL("p.test", "/teapot/1")); resp.StatusCode != 418 {
		t.Errorf("/teapot/1: %d", resp.StatusCode)
	}
	resp, body := get(t, c, f.URL("p.test", "/page/1"))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != htmlType ||
		!strings.Contains(string(body), "p.test/page/1") || !strings.Contains(string(body), `<a href="/page/2">`) ||
		strings.Contains(string(body), `<a href="/page/1">`) {
		t.Errorf("default page: %d %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

func TestSequence(t *testing.T) {
	f := newFarm(t, clock.NewFake())
	addSite(t, f, Site{Name: "seq.test", Pages: map[string]Page{
		"/s": {Sequence: []Page{{Status: 500}, {Status: 503}, {Status: 200}}},
	}})
	c := client(t, f, 5*time.Second, netip.Addr{})
	var got []int
	for range 4 {
		resp, _ := get(t, c, f.URL("seq.test", "/s"))
		got = append(got, resp.StatusCode)
	}
	if want := []int{500, 503, 200, 200}; !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if resp, _ := get(t, c, f.URL("seq.test", RobotsPath)); resp.StatusCode != 404 {
		t.Errorf("robots.txt of a site without one: %d, want 404", resp.StatusCode)
	}
}

func TestETag(t *testing.T) {
	f := newFarm(t, clock.NewFake())
	addSite(t, f, Site{Name: "etag.test", Pages: map[string]Page{"/p": {ETag: `"v1"`, Body: []byte("hello")}}})
	c := client(t, f, 5*time.Second, netip.Addr{})
	resp, body := get(t, c, f.URL("etag.test", "/p"))
	if resp.StatusCode != 200 || string(body) != "hello" || resp.Header.Get("ETag") != `"v1"` {
		t.Fatalf("first: %d %q %q", resp.StatusCode, body, resp.Header.Get("ETag"))
	}
	req, _ := http.NewRequest("GET", f.URL("etag.test", "/p"), nil)
	req.Header.Set("If-None-Match", `"v1"`)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional: %d, want 304", resp.StatusCode)
	}
	if n := len(f.Audit().VisitsTo("etag.test")); n != 2 {
		t.Errorf("%d visits audited", n)
	}
}

func TestCut(t *testing.T) {
	f := New(nil)
	defer f.Close()
	body := []byte("0123456789")
	addSite(t, f, Site{Name: "cut.test", Pages: map[string]Page{
		"/length":  {Cut: true, Body: body},
		"/chunked": {Cut: true, Chunked: true, Body: body},
	}})
	c := client(t, f, 0, netip.Addr{})
	for path, wantLength := range map[string]int64{"/length": 10, "/chunked": -1} {
		resp, err := c.Get(f.URL("cut.test", path))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.ContentLength != wantLength || err == nil || string(got) != "01234" {
			t.Errorf("%s: length %d, read %q, %v; want length %d, %q and an error", path, resp.ContentLength, got, err, wantLength, "01234")
		}
	}
}

func TestDrop(t *testing.T) {
	f := New(nil)
	defer f.Close()
	addSite(t, f, Site{Name: "drop.test", Pages: map[string]Page{
		"/drop": {Drop: true, Body: []byte("0123456789")},
		"/keep": {Body: []byte("0123456789")},
	}})
	c := client(t, f, 0, netip.Addr{})
	// The second request of each path says whether the first's connection
	// was there to use again.
	for path, wantReused := range map[string]bool{"/drop": false, "/keep": true} {
		for i := range 2 {
			var reused bool
			ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused },
			})
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL("drop.test", path), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatalf("%s, request %d: %v", path, i+1, err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(got) != "0123456789" || resp.Close {
				t.Errorf("%s, request %d: read %q, %v, Close %v; want the whole body, no error, and no Connection: close", path, i+1, got, err, resp.Close)
			}
			if i == 1 && reused != wantReused {
				t.Errorf("%s: second request reused the first's connection: %v, want %v", path, reused, wantReused)
			}
		}
	}
}
