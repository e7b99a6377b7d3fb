package render

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/politecrawler/polite"
)

// Page is a rendered page.
type Page struct {
	URL string
	// Result is the page as the Fetcher fetched it: its bytes were the
	// browser's, its signals are the page's (R7).
	Result *polite.Result
	HTML   string // the rendered DOM
	Title  string // document.title
	Text   string // what it shows (document.body.innerText)
	// Charset is the encoding the browser read the page in
	// (document.characterSet, lower case), for a page of Body's bytes and
	// Header's Content-Type: the Result's Charset names the same.
	Charset string
	Links   []string // its links' absolute URLs, http and https, each once, in order
	// Subrequests are the requests the page made, in the order it made
	// them: each fetched, with its Result, or refused, and why.
	Subrequests []Subrequest
}

// TextForAI is the rendered text for an AI reader, held back as the
// fetched page's would be when the site refuses AI input (R7.2): an
// *polite.AIInputRefusedError names the signal.
func (p *Page) TextForAI() (string, error) {
	if ok, because := p.Result.Signals.AIInput(); !ok {
		return "", &polite.AIInputRefusedError{Signal: *because}
	}
	return p.Text, nil
}

// Subrequest is one request a page made.
type Subrequest struct {
	URL    string
	Type   string         // the browser's resource type: Script, XHR, Fetch, Image…
	Result *polite.Result // nil when refused
	// Refused says why the request was not fetched; "" when it was.
	Refused string
}

// quiet is how long no subrequest must be in flight, once the page has
// loaded, for its render to be done.
const quiet = 500 * time.Millisecond

// Render builds page, a Result of the Fetcher, in a fresh incognito
// context: the page's bytes are the Result's, and each of its requests is
// fetched through the Fetcher or refused. It returns once the page has
// loaded and no request of it has been in flight for a moment, or
// ErrNotRenderable for a Result with an error or without a 2xx page.
func (r *Renderer) Render(ctx context.Context, page *polite.Result) (*Page, error) {
	if page.Err != nil || page.Status < 200 || page.Status > 299 || !isHTML(page.Header) {
		return nil, fmt.Errorf("%w: %s", ErrNotRenderable, page.URL)
	}
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	tab, cancel := chromedp.NewContext(r.browser, chromedp.WithNewBrowserContext())
	defer cancel()
	ctx, stop := context.WithTimeout(ctx, r.opt.Timeout)
	defer stop()
	defer context.AfterFunc(r.browser, stop)() // Close ends the render too
	go func() {                                // the tab ends with ctx
		<-ctx.Done()
		cancel()
	}()

	s := &session{r: r, page: page, out: &Page{URL: page.URL, Result: page}}
	paused := chromedp.Events(tab, fetch.RequestPaused) // subscribed before the navigation
	if _, err := chromedp.Call(tab, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	go s.serve(ctx, tab, paused)
	// At the URL the page came from, after its redirects: its relative
	// links and requests resolve against it.
	if err := chromedp.Do(tab, chromedp.Navigate(page.FinalURL)); err != nil {
		return nil, fmt.Errorf("render %s: %w", page.URL, err)
	}
	if err := s.settle(ctx); err != nil {
		return nil, fmt.Errorf("render %s: %w", page.URL, err)
	}
	html, err := chromedp.Run(tab, chromedp.OuterHTML("html"))
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", page.URL, err)
	}
	text, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", page.URL, err)
	}
	links, err := chromedp.Run(tab, chromedp.Evaluate[[]string](linksJS))
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", page.URL, err)
	}
	doc, err := chromedp.Run(tab, chromedp.Evaluate[[2]string](`[document.title, document.characterSet]`))
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", page.URL, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.HTML, s.out.Text, s.out.Links = html, text, links
	s.out.Title, s.out.Charset = doc[0], strings.ToLower(doc[1])
	return s.out, nil
}

// linksJS lists the rendered page's links, as Result.Links does for a
// fetched one (without its nofollow marks).
const linksJS = `(() => {
  const seen = new Set(), out = [];
  for (const a of document.querySelectorAll('a[href], area[href]')) {
    const u = new URL(a.href, document.baseURI);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') continue;
    u.hash = '';
    if (!seen.has(u.href)) { seen.add(u.href); out.push(u.href); }
  }
  return out;
})()`

// session is one render's requests.
type session struct {
	r        *Renderer
	page     *polite.Result
	mu       sync.Mutex
	out      *Page
	fetched  int       // subrequests fetched (or being fetched)
	inFlight int       // subrequests not yet answered to the browser
	lastEnd  time.Time // when the last one was answered
	served   bool      // the page's own bytes were handed over
}

// fetchable are the resource types the Fetcher fetches for a page.
var fetchable = map[network.ResourceType]bool{
	network.ResourceTypeDocument: true, network.ResourceTypeScript: true,
	network.ResourceTypeXHR: true, network.ResourceTypeFetch: true,
}

// serve answers every request the page makes.
func (s *session) serve(ctx context.Context, tab context.Context, paused iter.Seq2[fetch.EventRequestPaused, error]) {
	for ev, err := range paused {
		if err != nil {
			return
		}
		s.mu.Lock()
		own := !s.served && ev.ResourceType == network.ResourceTypeDocument && ev.Request.URL == s.page.FinalURL
		if own {
			s.served = true
		}
		s.mu.Unlock()
		if own {
			fulfill(tab, ev.RequestID, s.page)
			continue
		}
		reason := s.refusal(ev)
		sub := Subrequest{URL: ev.Request.URL, Type: string(ev.ResourceType), Refused: reason}
		if reason != "" {
			s.add(sub)
			chromedp.Call(tab, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			continue
		}
		s.mu.Lock()
		s.fetched++
		s.inFlight++
		i := len(s.out.Subrequests)
		s.out.Subrequests = append(s.out.Subrequests, sub)
		s.mu.Unlock()
		go func(ev fetch.EventRequestPaused, i int) {
			res, err := s.r.fetch(ctx, ev.Request.URL)
			s.mu.Lock()
			if err != nil {
				s.out.Subrequests[i].Refused = err.Error()
			} else {
				s.out.Subrequests[i].Result = res
			}
			s.mu.Unlock()
			if err == nil && res.Err == nil && res.Status != 0 {
				fulfill(tab, ev.RequestID, res)
			} else {
				chromedp.Call(tab, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			}
			s.mu.Lock()
			s.inFlight--
			s.lastEnd = time.Now()
			s.mu.Unlock()
		}(ev, i)
	}
}

// refusal says why a request is not fetched; "" when it is.
func (s *session) refusal(ev fetch.EventRequestPaused) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case ev.Request.Method != http.MethodGet:
		return "not a GET: " + ev.Request.Method
	case !fetchable[ev.ResourceType]:
		return "type " + string(ev.ResourceType) + " is not fetched for a render"
	case s.fetched >= s.r.opt.Subrequests:
		return fmt.Sprintf("past the page's %d requests", s.r.opt.Subrequests)
	}
	return ""
}

func (s *session) add(sub Subrequest) {
	s.mu.Lock()
	s.out.Subrequests = append(s.out.Subrequests, sub)
	s.mu.Unlock()
}

// settle waits until no subrequest has been in flight for a moment.
func (s *session) settle(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	// Quiet counts from the page's load at the earliest: the requests its
	// scripts make come after it.
	s.mu.Lock()
	if loaded := time.Now(); s.lastEnd.Before(loaded) {
		s.lastEnd = loaded
	}
	s.mu.Unlock()
	for {
		s.mu.Lock()
		idle := s.inFlight == 0 && time.Since(s.lastEnd) >= quiet
		s.mu.Unlock()
		if idle {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// fulfill hands the browser a Result's response, without cookies (R8.2).
func fulfill(tab context.Context, id fetch.RequestID, res *polite.Result) {
	var headers []*fetch.HeaderEntry
	for k, vs := range res.Header {
		if strings.EqualFold(k, "Set-Cookie") || strings.EqualFold(k, "Content-Encoding") || strings.EqualFold(k, "Content-Length") {
			continue
		}
		for _, v := range vs {
			headers = append(headers, &fetch.HeaderEntry{Name: k, Value: v})
		}
	}
	_, err := chromedp.Call(tab, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: id,
		ResponseCode: int64(res.Status), ResponseHeaders: headers, Body: res.Body})
	_ = err // the tab went away: the render ends with its context
}

func isHTML(h http.Header) bool {
	ct := strings.ToLower(h.Get("Content-Type"))
	return ct == "" || strings.Contains(ct, "html")
}
