package main

import (
	"archive/zip"
	"encoding/json"
	"flag"
	"fmt"
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// replayCommand is polite replay: it serves a WACZ and ReplayWeb.page's
// built files (sw.js, ui.js: the npm package replaywebpage, which this
// command does not carry) from one loopback origin, so the crawl replays
// in a browser with no network. A service worker needs a secure context,
// which http://127.0.0.1 is, and its script on the page's origin.
func replayCommand(fs *flag.FlagSet) func(env, []string) int {
	addr := fs.String("serve", "127.0.0.1:8090", "the address to serve on (\":8090\" binds loopback)")
	ui := fs.String("ui", filepath.Join("node_modules", "replaywebpage"), "the directory of ReplayWeb.page's built files (sw.js, ui.js), as npm installs the replaywebpage package")
	return func(e env, args []string) int {
		if len(args) != 1 {
			return fail(e, "replay", fmt.Errorf("%w: want one .wacz file", errUsage))
		}
		h, err := newReplay(*ui, args[0])
		if err != nil {
			return fail(e, "replay", err)
		}
		ln, err := listenLive(*addr)
		if err != nil {
			return fail(e, "replay", err)
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		fmt.Fprintf(e.out, "replaying %s: http://%s/ (until interrupted)\n", args[0], ln.Addr())
		<-e.ctx.Done()
		return 0
	}
}

// replay serves one WACZ in ReplayWeb.page: "/" the page embedding it
// (?url= picks the archived page shown, else the WACZ's main page),
// "/archive.wacz" the file (with ranges: the replay reads records by
// range), "/replay/" ReplayWeb.page's files, its service worker's scope.
type replay struct {
	ui, wacz, main string
}

// newReplay checks that ui holds ReplayWeb.page and reads wacz's main page.
func newReplay(ui, wacz string) (*replay, error) {
	for _, f := range []string{"sw.js", "ui.js"} {
		if _, err := os.Stat(filepath.Join(ui, f)); err != nil {
			return nil, fmt.Errorf("-ui %s: no ReplayWeb.page there (npm install replaywebpage): %w", ui, err)
		}
	}
	main, err := mainPage(wacz)
	if err != nil {
		return nil, err
	}
	return &replay{ui: ui, wacz: wacz, main: main}, nil
}

// mainPage reads the mainPageURL of wacz's datapackage.json.
func mainPage(wacz string) (string, error) {
	zr, err := zip.OpenReader(wacz)
	if err != nil {
		return "", fmt.Errorf("%s: %w", wacz, err)
	}
	defer zr.Close()
	f, err := zr.Open("datapackage.json")
	if err != nil {
		return "", fmt.Errorf("%s: not a WACZ: %w", wacz, err)
	}
	defer f.Close()
	var pkg struct {
		Main string `json:"mainPageURL"`
	}
	if err := json.NewDecoder(f).Decode(&pkg); err != nil {
		return "", fmt.Errorf("%s: datapackage.json: %w", wacz, err)
	}
	return pkg.Main, nil
}

func (p *replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/":
		u := r.URL.Query().Get("url")
		if u == "" {
			u = p.main
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := replayPage.Execute(w, map[string]string{"Title": filepath.Base(p.wacz), "URL": u}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	case r.URL.Path == "/archive.wacz":
		http.ServeFile(w, r, p.wacz)
	case strings.HasPrefix(r.URL.Path, "/replay/"):
		http.StripPrefix("/replay", http.FileServer(http.Dir(p.ui))).ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// replayPage embeds the archive with ReplayWeb.page's <replay-web-page>.
var replayPage = template.Must(template.New("replay").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>polite replay: {{.Title}}</title>
<script src="/replay/ui.js"></script></head>
<body style="margin:0">
<replay-web-page style="display:block;height:100vh" source="/archive.wacz" url="{{.URL}}" replaybase="/replay/"></replay-web-page>
</body></html>
`))
