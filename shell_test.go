package polite_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// Pages empty without JavaScript, told from pages the server rendered,
// on real-shaped pages of testdata/shells served by the farm.
func TestScriptShell(t *testing.T) {
	cases := []struct {
		file     string
		shell    bool
		mount    string
		noscript bool
	}{
		{"cra.html", true, "#root", true},
		{"vue.html", true, "#app", true},
		{"vite.html", true, "#root", false},
		{"next-csr.html", true, "#__next", false},
		{"nuxt.html", true, "#__nuxt", false},
		{"gatsby.html", true, "#___gatsby", false},
		{"angular.html", true, "<app-root>", false},
		{"angularjs.html", true, "[ng-app]", false},
		// Rendered by the server: markers, text, and the mount filled.
		{"next-ssr.html", false, "", false},
		{"angular-ssr.html", false, "", false},
		// A #app with an article in it; a <noscript> with a pixel.
		{"article.html", false, "", false},
		// A <noscript> asking for JavaScript, before a page of text.
		{"long-noscript.html", false, "", true},
	}
	r := newFarmRig(t)
	pages := map[string]politetest.Page{}
	for _, c := range cases {
		body, err := os.ReadFile(filepath.Join("testdata", "shells", c.file))
		if err != nil {
			t.Fatal(err)
		}
		pages["/"+c.file] = politetest.Page{Body: body, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}}
	}
	host := r.site(politetest.Site{Name: "shells.test", Pages: pages})
	r.start(polite.Config{})
	for _, c := range cases {
		r.add(r.url(host, "/"+c.file))
	}
	res := r.results(len(cases))
	for _, c := range cases {
		got, ok := res[r.url(host, "/"+c.file)].ScriptShell()
		if ok != c.shell || got.Mount != c.mount || got.Noscript != c.noscript {
			t.Errorf("%s: ScriptShell() = %+v, %v; want mount %q, noscript %v, %v", c.file, got, ok, c.mount, c.noscript, c.shell)
		}
	}
	cra, _ := res[r.url(host, "/cra.html")].ScriptShell()
	if why := cra.String(); why != "0 characters of text, an empty #root and a <noscript> asking for JavaScript" {
		t.Errorf("why: %q", why)
	}
}

// A challenge page is a refusal, never a page to render (R3.1), even one
// served with 200 that looks like a shell.
func TestChallengePageIsNoScriptShell(t *testing.T) {
	body := []byte(`<!DOCTYPE html><html><head><title>Just a moment...</title></head>
<body><noscript>Enable JavaScript and cookies to continue</noscript><div id="root"></div>
<script>window._cf_chl_opt={cType:'managed'};</script></body></html>`)
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "check.test", Pages: map[string]politetest.Page{
		"/": {Body: body, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}},
	}})
	r.start(polite.Config{})
	u := r.url(host, "/")
	r.add(u)
	res := r.results(1)[u]
	if s, ok := res.ScriptShell(); ok || res.Status != 200 || !isA[*polite.RefusalError](res.Err) {
		t.Errorf("a challenge page: ScriptShell() = %+v, %v, err %v; want a refusal and no shell", s, ok, res.Err)
	}
}
