// Package render builds the pages that are empty until a script runs, in a
// headless chromium driven through github.com/chromedp/chromedp, as
// politely as polite fetches any page: every request the page makes is
// fetched through the polite.Fetcher, so its budgets, rests, robots.txt,
// User-Agent, caps, address guard and stops hold for it, or the request
// is refused. The browser never reaches the network itself. The core
// package polite does not import the browser driver; only this one does.
//
// # Use
//
// A [Renderer] runs one browser and fetches through a Fetcher whose
// Config.Types holds [Types], so that scripts and JSON are read as well as
// HTML. Fetch a page as usual, and render it when its Result's
// ScriptShell method says it is a script shell (polite.ScriptShell): at most
// polite.ScriptShellMaxText characters of visible text, with an empty mount
// point such as #root, #__next or <app-root>, or a <noscript> asking for
// JavaScript.
//
//	f, err := polite.New(polite.Config{Name: "acme-indexer", InfoURL: "https://acme.example/crawler",
//		Types: render.Types})
//	if err != nil { ... }
//	defer f.Close()
//	r, err := render.New(f, render.Options{})
//	if err != nil { ... }
//	defer r.Close() // the Renderer before its Fetcher
//	page, err := f.Fetch(ctx, "https://shop.example/")
//	if err != nil { ... }
//	if _, shell := page.ScriptShell(); shell {
//		got, err := r.Render(ctx, page)
//		// got.Text, got.HTML, got.Links, got.Subrequests
//	}
//
// [Renderer.Render] returns a [Page]: the rendered DOM, its text, its
// links, and each [Subrequest] the page made, fetched with its
// polite.Result or refused with the reason. [Page.TextForAI] holds the text
// back when the site refuses AI input, as for a fetched page. [Options]
// set the browser's path, fewer subrequests a page, the timeout of one
// render, and how many pages render at once; the zero value is the
// defaults. A Renderer is safe for concurrent use.
//
// The command in examples/render shows it on a loopback farm of package
// politetest: a shop page built by fetch(), its text, each request with
// its rest, and what the farm saw (about 10 s, the rests being real):
//
//	go run ./examples/render
//
// # Install chromium
//
// The browser is Debian's chromium (apt-get install chromium), found on
// PATH or at Options.Browser; nothing is downloaded. [New] fails, naming
// the package, when it is missing. Chromium runs without its sandbox, so
// that it starts as root in a container.
//
// # What a page may fetch
//
//   - Its own bytes are its Result's: the page is not fetched again. It
//     renders at Result.FinalURL, where its redirects led, so its relative
//     links and requests resolve as they would in a browser.
//   - Documents, scripts, XHR and fetch() GETs go through Fetcher.Fetch, at
//     most [MaxSubrequests] a page (fewer with Options.Subrequests). Each
//     waits its rest like any request: a page that asks its own host for
//     four things takes at least four rests.
//   - Images, media, fonts, stylesheets, beacons, every request that is not
//     a GET, and requests past the page's limit are refused.
//   - The browser can neither resolve a name nor reach an address, so a
//     request that slips past the interception, such as a WebSocket, goes
//     nowhere.
//   - Each page gets a fresh incognito context, closed after it, and
//     Set-Cookie is not passed to the browser: no cookie or storage
//     outlives a page.
//   - A Fetcher fetches a URL once a run, so a script or data URL that
//     pages share is fetched for the first and kept for the next, up to
//     64 MiB of bodies. A URL the crawler fetched itself is
//     polite.ErrDuplicate here, and the page goes without it.
//
// # When the page misbehaves
//
//   - A Result with an error, which includes every refusal and challenge
//     page, or one with a status not 2xx or a body not HTML, is
//     [ErrNotRenderable]: rendering a refusal would be getting around a
//     block.
//   - A subrequest the Fetcher fails or refuses (polite.ErrDisallowed by
//     robots.txt, polite.ErrContentType for a type not in Config.Types)
//     fails in the browser as a blocked request. The page goes on without
//     it; its Subrequest keeps the Result or the reason.
//   - Render returns once the page has loaded and no subrequest has been in
//     flight for half a second. A page that never settles ends at
//     Options.Timeout ([DefaultTimeout], rests included) with the context's
//     error; so does one whose ctx ends.
//   - [Renderer.Close] ends every render under way, asks the browser to
//     close, and kills it if it has not within 10 s.
package render
