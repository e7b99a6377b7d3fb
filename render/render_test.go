package render_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
	"github.com/politecrawler/polite/render"
)

// Renders in Debian's chromium, for real, of farm pages built by script.
// The farm and the Fetcher run on real time: the browser's subrequests
// wait their rests.

// needBrowser skips where chromium is missing, and fails in CI, where
// .ci/run installs it.
func needBrowser(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("chromium"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium not found (CI=true: .ci/run installs the chromium package): %v", err)
		}
		t.Skip("chromium not found (apt-get install -y chromium)")
	}
}

var html = http.Header{"Content-Type": {"text/html; charset=utf-8"}}

// shop is a page that builds its list from fetch('/api/items.json').
const shop = `<!doctype html><html><head><title>Shop</title></head><body>
<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>
<script>
fetch('/api/items.json').then(r => r.json()).then(items => {
  document.getElementById('root').innerText = items.map(i => i.name).join(', ');
  const a = document.createElement('a'); a.href = '/cart#top'; a.textContent = 'cart';
  document.body.appendChild(a);
});
</script></body></html>`

func setup(t *testing.T, robots string) (*politetest.Farm, *polite.Fetcher, *render.Renderer) {
	t.Helper()
	needBrowser(t)
	pages := map[string]politetest.Page{
		"/":               {Body: []byte(shop), Header: html},
		"/api/items.json": {Body: []byte(`[{"name":"teapot"},{"name":"kettle"}]`), Header: http.Header{"Content-Type": {"application/json"}}},
	}
	if robots != "" {
		pages[politetest.RobotsPath] = politetest.Robots(robots)
	}
	farm := politetest.Start(t, politetest.Site{Name: "shop.test", Pages: pages})
	f, r := fetcherAndRenderer(t, farm)
	return farm, f, r
}

// The page's text comes from its script's fetch(), which the Fetcher made:
// after robots.txt, on the page's budget, a rest after the page (R2.1),
// with polite's User-Agent (R4).
func TestRenderFetchesThroughTheFetcher(t *testing.T) {
	farm, f, r := setup(t, "")
	ctx := context.Background()
	page, err := f.Fetch(ctx, farm.URL("shop.test", "/"))
	if err != nil || page.Err != nil {
		t.Fatalf("the page: %v %v", err, page.Err)
	}
	if _, shell := page.ScriptShell(); !shell {
		t.Errorf("the shop page is not seen as a script shell")
	}
	got, err := r.Render(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Text, "teapot, kettle") {
		t.Errorf("rendered text %q, want the items", got.Text)
	}
	if want := farm.URL("shop.test", "/cart"); len(got.Links) != 1 || got.Links[0] != want {
		t.Errorf("rendered links %v, want [%s]: the link the script made", got.Links, want)
	}
	api := apiRequests(got)
	if len(api) != 1 || api[0].Result == nil || api[0].Result.Status != 200 {
		t.Fatalf("subrequests %+v: want the one fetch, fetched", got.Subrequests)
	}
	vs := farm.Audit().Visits()
	var paths []string
	for _, v := range vs {
		paths = append(paths, v.Path)
	}
	if strings.Join(paths, " ") != "/robots.txt / /api/items.json" {
		t.Fatalf("the farm saw %v: want robots.txt, the page, its fetch", paths)
	}
	if gap := vs[2].Start.Sub(vs[1].End); gap < polite.MinRest {
		t.Errorf("the fetch came %v after the page, want at least %v", gap, polite.MinRest)
	}
	if vs[2].Addr != vs[1].Addr || !strings.HasPrefix(vs[2].Header.Get("User-Agent"), "PoliteCrawler/") {
		t.Errorf("the fetch on %v with User-Agent %q", vs[2].Addr, vs[2].Header.Get("User-Agent"))
	}
}

// A subrequest robots.txt disallows is never sent; the render completes
// without it and says why (R5.1).
func TestRenderDisallowedSubrequest(t *testing.T) {
	farm, f, r := setup(t, "User-agent: *\nDisallow: /api/\n")
	got := fetchAndRender(t, f, r, farm.URL("shop.test", "/"))
	api := apiRequests(got)
	if len(api) != 1 || api[0].Result == nil || !isA[*polite.DisallowedError](api[0].Result.Err) {
		t.Fatalf("subrequests %+v: want the fetch answered disallowed", got.Subrequests)
	}
	for _, v := range farm.Audit().Visits() {
		if strings.HasPrefix(v.Path, "/api/") {
			t.Errorf("the farm saw %s, disallowed", v.Path)
		}
	}
}

// apiRequests are a render's subrequests to /api/ (the browser also asks
// for a favicon, refused).
func apiRequests(p *render.Page) []render.Subrequest {
	var out []render.Subrequest
	for _, s := range p.Subrequests {
		if strings.Contains(s.URL, "/api/") {
			out = append(out, s)
		}
	}
	return out
}

// A page that asks for 50 scripts on 50 hosts, 10 images and a WebSocket:
// at most 20 requests are fetched for it, none an image or a WebSocket;
// the others are refused, and say why.
func TestRenderCapsSubrequests(t *testing.T) {
	needBrowser(t)
	const hosts = 50
	farm := politetest.Start(t)
	var body strings.Builder
	body.WriteString(`<!doctype html><html><body><div id="root"></div>`)
	for i := range hosts {
		name := fmt.Sprintf("cdn%02d.test", i)
		if _, err := farm.AddSite(politetest.Site{Name: name, Pages: map[string]politetest.Page{
			"/lib.js": {Body: []byte("void 0;"), Header: http.Header{"Content-Type": {"text/javascript"}}},
		}}); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&body, `<script src="%s"></script>`, farm.URL(name, "/lib.js"))
	}
	for i := range 10 {
		fmt.Fprintf(&body, `<img src="/img%d.png">`, i)
	}
	body.WriteString(`<script>try { new WebSocket('ws://' + location.host + '/ws'); } catch (e) {}</script></body></html>`)
	if _, err := farm.AddSite(politetest.Site{Name: "many.test", Pages: map[string]politetest.Page{
		"/": {Body: []byte(body.String()), Header: html},
	}}); err != nil {
		t.Fatal(err)
	}
	f, r := fetcherAndRenderer(t, farm)
	got := fetchAndRender(t, f, r, farm.URL("many.test", "/"))
	fetched, refused := 0, map[string]int{}
	for _, s := range got.Subrequests {
		if s.Result != nil {
			fetched++
		} else {
			refused[s.Type]++
		}
	}
	if fetched > render.MaxSubrequests || refused["Image"] != 10 || refused["Script"] != hosts-fetched {
		t.Errorf("%d fetched, refused %v: want at most %d fetched, the images and the other scripts refused", fetched, refused, render.MaxSubrequests)
	}
	scripts := 0
	for _, v := range farm.Audit().Visits() {
		switch {
		case v.Path == "/lib.js":
			scripts++
		case strings.HasPrefix(v.Path, "/img"), v.Path == "/ws":
			t.Errorf("the farm saw %s %s", v.Host, v.Path)
		}
	}
	if scripts != fetched || scripts > render.MaxSubrequests {
		t.Errorf("the farm saw %d scripts asked, want the %d fetched, at most %d", scripts, fetched, render.MaxSubrequests)
	}
}

// fetcherAndRenderer are a Fetcher on the farm, reading what pages'
// scripts need, and a Renderer fetching through it.
func fetcherAndRenderer(t *testing.T, farm *politetest.Farm) (*polite.Fetcher, *render.Renderer) {
	t.Helper()
	f, err := polite.New(polite.Config{Resolver: farm.Resolver(), AllowPrivateNetworks: true, Types: render.Types})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := render.New(f, render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return f, r
}

// A challenge page is never rendered: its Result is a refusal.
func TestChallengeNotRendered(t *testing.T) {
	needBrowser(t)
	challenge := `<!DOCTYPE html><html><head><title>Just a moment...</title></head>
<body><noscript>Enable JavaScript and cookies to continue</noscript><div id="root"></div>
<script>window._cf_chl_opt={cType:'managed'};</script></body></html>`
	farm := politetest.Start(t, politetest.Site{Name: "guarded.test", Pages: map[string]politetest.Page{
		"/": {Body: []byte(challenge), Header: html},
	}})
	f, r := fetcherAndRenderer(t, farm)
	ctx := context.Background()
	page, err := f.Fetch(ctx, farm.URL("guarded.test", "/"))
	if err != nil || !isA[*polite.RefusalError](page.Err) {
		t.Fatalf("the challenge: %v %v, want a refusal", err, page.Err)
	}
	if _, err := r.Render(ctx, page); !errors.Is(err, render.ErrNotRenderable) {
		t.Errorf("Render of a challenge: %v, want ErrNotRenderable", err)
	}
	if n := len(farm.Audit().Visits()); n != 2 {
		t.Errorf("the farm saw %d requests, want robots.txt and the page", n)
	}
}

// R7.2 holds for the rendered text: a site that says ai-input=no gets
// its rendered text held back from an AI reader.
func TestRenderedTextHeldFromAI(t *testing.T) {
	farm, f, r := setup(t, "User-agent: *\nContent-Signal: ai-input=no\nAllow: /\n")
	got := fetchAndRender(t, f, r, farm.URL("shop.test", "/"))
	if !strings.Contains(got.Text, "teapot") {
		t.Fatalf("rendered text %q", got.Text)
	}
	if text, err := got.TextForAI(); !isA[*polite.AIInputRefusedError](err) || text != "" {
		t.Errorf("TextForAI of an ai-input=no site: %q, %v", text, err)
	}
}

// fetchAndRender fetches the page at u and renders it.
func fetchAndRender(t *testing.T, f *polite.Fetcher, r *render.Renderer, u string) *render.Page {
	t.Helper()
	ctx := context.Background()
	page, err := f.Fetch(ctx, u)
	if err != nil || page.Err != nil {
		t.Fatalf("the page: %v %v", err, page.Err)
	}
	got, err := r.Render(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

var osLookPath = exec.LookPath

// Two pages of a site share a script and its data: the second is
// rendered from what was fetched for the first, with no second request
// (the Fetcher fetches a URL once a run).
func TestTwoPagesShareTheirScript(t *testing.T) {
	needBrowser(t)
	page := []byte(`<!doctype html><html><body><div id="root"></div><script src="/app.js"></script></body></html>`)
	farm := politetest.Start(t, politetest.Site{Name: "s.test", Pages: map[string]politetest.Page{
		"/a":              {Body: page, Header: html},
		"/b":              {Body: page, Header: html},
		"/app.js":         {Body: []byte(`fetch('/api/items.json').then(r => r.json()).then(i => { document.getElementById('root').innerText = 'items: ' + i[0].name; });`), Header: http.Header{"Content-Type": {"text/javascript"}}},
		"/api/items.json": {Body: []byte(`[{"name":"teapot"}]`), Header: http.Header{"Content-Type": {"application/json"}}},
	}})
	f, r := fetcherAndRenderer(t, farm)
	for _, p := range []string{"/a", "/b"} {
		if got := fetchAndRender(t, f, r, farm.URL("s.test", p)); !strings.Contains(got.Text, "items: teapot") {
			t.Errorf("%s rendered %q", p, got.Text)
		}
	}
	n := map[string]int{}
	for _, v := range farm.Audit().Visits() {
		n[v.Path]++
	}
	if n["/app.js"] != 1 || n["/api/items.json"] != 1 {
		t.Errorf("the farm saw %v: want the script and its data once", n)
	}
}

// A page reached by a redirect is rendered at the URL it came from, so
// its relative links and requests resolve there (R8.3).
func TestRedirectedPageRendersAtItsURL(t *testing.T) {
	needBrowser(t)
	farm := politetest.Start(t, politetest.Site{Name: "s.test", Pages: map[string]politetest.Page{
		"/old":             {Redirect: "/shop/index.html", Status: http.StatusMovedPermanently},
		"/shop/index.html": {Body: []byte(`<!doctype html><html><body><a href="cart">cart</a><div id="root"></div><script>fetch('items.json').then(r => r.json()).then(i => { document.getElementById('root').innerText = i[0].name; });</script></body></html>`), Header: html},
		"/shop/items.json": {Body: []byte(`[{"name":"kettle"}]`), Header: http.Header{"Content-Type": {"application/json"}}},
	}})
	f, r := fetcherAndRenderer(t, farm)
	got := fetchAndRender(t, f, r, farm.URL("s.test", "/old"))
	if !strings.Contains(got.Text, "kettle") {
		t.Errorf("rendered %q", got.Text)
	}
	if want := farm.URL("s.test", "/shop/cart"); len(got.Links) != 1 || got.Links[0] != want {
		t.Errorf("links %v, want [%s]", got.Links, want)
	}
}

// Close ends a render that waits on a request the server holds.
func TestCloseEndsARender(t *testing.T) {
	needBrowser(t)
	gate := make(chan struct{})
	defer close(gate)
	entered := make(chan string, 1)
	farm := politetest.Start(t, politetest.Site{Name: "s.test", Pages: map[string]politetest.Page{
		"/":               {Body: []byte(shop), Header: html},
		"/api/items.json": {Gate: gate, Entered: entered},
	}})
	f, r := fetcherAndRenderer(t, farm)
	ctx := context.Background()
	page, err := f.Fetch(ctx, farm.URL("s.test", "/"))
	if err != nil || page.Err != nil {
		t.Fatal(err, page.Err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Render(ctx, page)
		done <- err
	}()
	<-entered // the page's fetch() is in the server's hands
	r.Close()
	if err := <-done; err == nil {
		t.Errorf("Render after Close: no error")
	}
}

// Close leaves nothing of the browser's behind: with TMPDIR a directory
// of the test's, it is empty again after a render and Close, and a second
// Close is harmless. Killed rather than asked to close, the browser left
// its singleton directory there (org.chromium.Chromium.*) on every run.
func TestCloseLeavesNoFiles(t *testing.T) {
	needBrowser(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	farm := politetest.Start(t, politetest.Site{Name: "s.test", Pages: map[string]politetest.Page{
		"/":               {Body: []byte(shop), Header: html},
		"/api/items.json": {Body: []byte(`[{"name":"teapot"}]`), Header: http.Header{"Content-Type": {"application/json"}}},
	}})
	f, r := fetcherAndRenderer(t, farm)
	ctx := context.Background()
	page, err := f.Fetch(ctx, farm.URL("s.test", "/"))
	if err != nil || page.Err != nil {
		t.Fatal(err, page.Err)
	}
	if _, err := r.Render(ctx, page); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left in TMPDIR after Close: %s", e.Name())
	}
}

// isA reports whether err's tree holds an E.
func isA[E error](err error) bool {
	_, ok := errors.AsType[E](err)
	return ok
}
