package polite

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"github.com/politecrawler/polite/internal/htmlpass"
	"github.com/politecrawler/polite/internal/signals"
)

// Result is the outcome of one URL given to Add: exactly one per accepted
// URL (R11.1). Either Err is nil and the response is here, or Err says why
// there is no page (errors.Is against the package's Err… values), with as
// much of the response as there was.
type Result struct {
	// URL is the URL as given to Add.
	URL string
	// FinalURL is the URL of the last request made for it: URL itself, or
	// where its redirects led.
	FinalURL string
	// Redirects lists the redirects followed, in order (R8.3).
	Redirects []Hop

	Status int
	Header http.Header
	Body   []byte
	// Truncated is set when the body was cut short by the fetcher: at the
	// size cap (with ErrBodyTooLarge), or, for an answer that is not 2xx
	// and not of a type the fetcher reads, after the first 64 KiB that
	// Classify looks at (R3.5, R8.1). That cut is not an error; the rest
	// of the body was not read.
	Truncated bool
	// NotModified is set when the server answered 304 to a conditional
	// request and Body is the stored copy (R6).
	NotModified bool
	// NotModifiedHeader is the header of the 304 itself when NotModified
	// (Header is then the stored copy's), and CopyFetched is when that
	// copy was fetched: what an archive's revisit record refers to.
	NotModifiedHeader http.Header
	CopyFetched       time.Time
	// Request is the header the fetcher set on the last request: the
	// User-Agent, Accept, From when configured, and a conditional
	// request's validators (R4, R6.1). net/http adds the Host and the
	// Accept-Encoding of its transparent gzip on the wire, and decodes the
	// body: Header and Body are the response as decoded (with a Recorder,
	// the fetcher sends that Accept-Encoding and decodes, to the same
	// effect; the Exchange has the bytes as sent). Nil when no request
	// was made.
	Request http.Header

	// Err is nil for a page, and says why otherwise (R11.1).
	Err error
	// Attempts is how many requests were made for FinalURL: 1, or more
	// when it failed transiently and was tried again on its host's
	// backoff (R11.3); 0 when none was.
	Attempts int
	// Verdict is what the last response meant (R3.5); zero when there was
	// no response.
	Verdict Verdict

	// Addr is the server address dialled for the last request.
	Addr netip.Addr
	// Started is when the last request was sent; Duration is how long it
	// took, to the last byte of the body or the failure (R1.3).
	Started  time.Time
	Duration time.Duration
	// Rest is the wait this response imposed on its budget before the
	// next request to the same address, and the term of R2 that set it.
	Rest Rest

	// Signals are the content-use signals that apply to the page, each
	// with its source (R7): robots.txt, headers, the page's meta tags.
	Signals Signals
	// page is the bounded pass over the body (text, title, links, meta),
	// made when first asked for. Nil when there is no HTML body.
	page *lazyPage
}

// Hop is one redirect: the request that answered with it, where it
// pointed, and the rest that response imposed on its budget.
type Hop struct {
	URL      string
	Status   int
	Location string
	Addr     netip.Addr
	Started  time.Time
	Duration time.Duration
	Rest     Rest
}

// resultQueue is a FIFO of results: a fetcher never drops a result
// because its caller is slow to read (R11.1). The scheduler starts no
// request while it holds Config.MaxUnread of them (full), and the reader
// that makes room wakes it (room).
type resultQueue struct {
	mu     sync.Mutex
	items  []*Result
	head   int
	closed bool
	ready  chan struct{} // one-slot: "there may be something to read"
	// held: the scheduler found the queue full and waits for room.
	held bool
	room func()
}

func newResultQueue(room func()) *resultQueue {
	return &resultQueue{ready: make(chan struct{}, 1), room: room}
}

// full reports whether limit results wait unread; if so, the next take
// calls room.
func (q *resultQueue) full(limit int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items)-q.head < limit {
		return false
	}
	q.held = true
	return true
}

func (q *resultQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *resultQueue) push(r *Result) {
	q.mu.Lock()
	q.items = append(q.items, r)
	q.mu.Unlock()
	q.signal()
}

// close marks the end: once drained, pop returns io.EOF.
func (q *resultQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *resultQueue) pop(ctx context.Context) (*Result, error) {
	for {
		r, ok, closed := q.take()
		switch {
		case ok:
			return r, nil
		case closed:
			return nil, io.EOF
		}
		select {
		case <-q.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// take returns the next result without waiting (ok), or says the queue is
// closed and drained. Either way it passes the wake-up on to another
// reader when there is more for one.
func (q *resultQueue) take() (r *Result, ok, closed bool) {
	q.mu.Lock()
	if q.head < len(q.items) {
		r = q.items[q.head]
		q.items[q.head] = nil
		q.head++
		if q.head == len(q.items) {
			q.items, q.head = q.items[:0], 0
		} else if q.head > 1024 && q.head*2 > len(q.items) {
			q.items, q.head = append(q.items[:0:0], q.items[q.head:]...), 0
		}
		more := q.head < len(q.items) || q.closed
		held := q.held
		q.held = false
		q.mu.Unlock()
		if more {
			q.signal()
		}
		if held {
			q.room()
		}
		return r, true, false
	}
	closed = q.closed
	q.mu.Unlock()
	if closed {
		q.signal()
	}
	return nil, false, closed
}

// lazyPage is the HTML pass over a page (text, title, links, meta), made
// once, when first needed: at once for a page with a meta tag, whose
// content signals need it (readPage), and otherwise the first time a
// caller asks, through Result.Links or Result.TextForAI. A caller that
// only keeps the bodies of such pages pays for no pass.
type lazyPage struct {
	once sync.Once
	body []byte   // the page's bytes, until the pass
	url  *url.URL // what relative links resolve against
	page htmlpass.Page
}

func newLazyPage(body []byte, u *url.URL) *lazyPage {
	return &lazyPage{body: body, url: u}
}

// get makes the pass once and returns it; nil for no page. It is safe
// for concurrent use.
func (p *lazyPage) get() *htmlpass.Page {
	if p == nil {
		return nil
	}
	p.once.Do(func() {
		p.page = htmlpass.Parse(p.body, p.url)
		p.body, p.url = nil, nil
	})
	return &p.page
}

// Link is a link found on a page.
type Link struct {
	// URL is absolute, http or https, without fragment; relative links are
	// resolved against the page's URL and its <base href>.
	URL string
	// NoFollow is set when the site asks crawlers not to follow the link:
	// every link on the page carries rel="nofollow", or the page as a whole
	// says nofollow (robots meta, the crawler's own meta name, or
	// X-Robots-Tag).
	NoFollow bool
}

// Links returns the page's links, each once, in document order (at most
// 10,000): <a> and <area> href, and <link rel="alternate|next|prev">. It
// is nil for a result without an HTML page. A polite caller does not
// follow those marked NoFollow.
//
// A page without a meta tag is read the first time Links or TextForAI is
// called, from the bytes Body holds then: change Body's bytes only after
// that, or the links and text come from the changed bytes.
func (r *Result) Links() []Link {
	return pageLinks(r.page.get(), r.Signals)
}

// pageLinks is Links on its parts: the page's links, all NoFollow when the
// signals say nofollow for the page.
func pageLinks(page *htmlpass.Page, sig Signals) []Link {
	if page == nil || len(page.Links) == 0 {
		return nil
	}
	// The page's own robots meta counts even if the signals were read
	// without it.
	all := sig.NoFollow()
	for _, d := range signals.Directives(page.Meta["robots"], "", false) {
		all = all || d.Name == "nofollow" || d.Name == "none"
	}
	out := make([]Link, len(page.Links))
	for i, l := range page.Links {
		out[i] = Link{URL: l.URL, NoFollow: l.NoFollow || all}
	}
	return out
}

// TextForAI returns the page's readable text for an AI reader: the text a
// person sees, without markup, scripts or styles, block elements on their
// own lines (at most 1 MiB). When the site refuses AI input (see
// Signals.AIInput) it returns no text and an *AIInputRefusedError, which
// says which signal refused it and where (R7.2); a training opt-out alone
// does not hold the text back (R7.3). A result without a page returns its
// Err. A page cut at the body cap (ErrBodyTooLarge) gives the text of what
// was read. Like Links, it may read the page when first called (see
// Links).
func (r *Result) TextForAI() (string, error) {
	if r.Err != nil && !errors.Is(r.Err, ErrBodyTooLarge) {
		return "", r.Err
	}
	var page htmlpass.Page
	if p := r.page.get(); p != nil {
		page = *p
	}
	return aiText(r.Body, r.Signals, page)
}

// aiText is TextForAI on its parts, through internal/signals' gate: the
// signals decide first, then the text comes from page or from body.
func aiText(body []byte, sig Signals, page htmlpass.Page) (string, error) {
	text, because := signals.TextForAI(body, sig.set(), page)
	if because != nil {
		return "", &AIInputRefusedError{Signal: Signal(*because)}
	}
	return text, nil
}
