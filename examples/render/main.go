// Command render shows a page that is empty without JavaScript rendered
// politely: a loopback farm serves a shop page whose list comes from
// fetch('/api/items.json'); polite fetches the page, sees it is a script
// shell, and renders it in Debian's chromium, every request of the page
// fetched through the Fetcher (after its rest) or refused. It prints the
// rendered text, each request the page made with its rest, and what the
// farm saw.
//
//	go run ./examples/render
//
// It needs chromium on PATH (Debian: apt-get install chromium), no
// internet, and takes about 10 s: the rests are real.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
	"github.com/politecrawler/polite/render"
)

// shop builds its list from the API, and asks for an image and a font the
// renderer refuses.
const shop = `<!doctype html><html><head><title>Shop</title>
<link rel="preload" href="/fonts/brand.woff2" as="font" crossorigin></head><body>
<noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>
<img src="/logo.png" alt="">
<script>
fetch('/api/items.json').then(r => r.json()).then(items => {
  document.getElementById('root').innerText = 'In stock: ' + items.map(i => i.name).join(', ');
});
</script></body></html>`

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	farm := politetest.New(nil)
	defer farm.Close()
	_, err := farm.AddSite(politetest.Site{Name: "shop.test", Pages: map[string]politetest.Page{
		"/":               {Body: []byte(shop), Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}},
		"/api/items.json": {Body: []byte(`[{"name":"teapot"},{"name":"kettle"}]`), Header: http.Header{"Content-Type": {"application/json"}}},
	}})
	if err != nil {
		return err
	}
	f, err := polite.New(polite.Config{
		Resolver:             farm.Resolver(), // the farm's names, not DNS
		AllowPrivateNetworks: true,            // the farm is on loopback
		Types:                render.Types,    // scripts and JSON are read, not only HTML
	})
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := render.New(f, render.Options{})
	if err != nil {
		return err
	}
	defer r.Close()

	ctx := context.Background()
	start := time.Now()
	page, err := f.Fetch(ctx, farm.URL("shop.test", "/"))
	if err != nil {
		return err
	}
	shell, ok := page.ScriptShell()
	fmt.Fprintf(w, "fetched %s: %d, script shell: %v (%v)\n", politetest.ShortURL(page.URL), page.Status, ok, shell)
	if !ok {
		return nil
	}
	got, err := r.Render(ctx, page)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nrendered text: %q\n\nthe page's requests:\n", got.Text)
	for _, s := range got.Subrequests {
		switch {
		case s.Result == nil:
			fmt.Fprintf(w, "  %-8s %-34s refused: %s\n", s.Type, politetest.ShortURL(s.URL), s.Refused)
		case s.Result.Err != nil:
			fmt.Fprintf(w, "  %-8s %-34s %v\n", s.Type, politetest.ShortURL(s.URL), s.Result.Err)
		default:
			fmt.Fprintf(w, "  %-8s %-34s %d, then a rest of %v\n", s.Type, politetest.ShortURL(s.URL), s.Result.Status, s.Result.Rest)
		}
	}
	fmt.Fprintf(w, "\nthe farm saw:\n")
	var prev politetest.Visit
	for i, v := range farm.Audit().Visits() {
		gap := ""
		if i > 0 {
			gap = fmt.Sprintf(", %.2f s after the one before ended", v.Start.Sub(prev.End).Seconds())
		}
		fmt.Fprintf(w, "  %5.2f s  %s %s%s  (%s)\n", v.Start.Sub(start).Seconds(), v.Method, v.Path, gap, v.Header.Get("User-Agent"))
		prev = v
	}
	return nil
}
