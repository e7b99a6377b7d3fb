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
// URL (R11.1). Err is nil for a page, or says why there is none, with as
// much of the response as there was.
type Result struct {
	URL       string // as given to Add
	FinalURL  string // the URL of the last request: URL, or where its redirects led
	Redirects []Hop  // the redirects followed, in order (R8.3)

	Status int
	Header http.Header
	// Body is the body as the server sent it, byte for byte, in the
	// page's own encoding (archives keep it so); HTML, Title, Links and
	// TextForAI read it decoded, as a browser does (Charset, R8.4).
	Body []byte
	// Truncated is set when the fetcher cut the body: at the size cap
	// (ErrBodyTooLarge), or after the 64 KiB Classify reads of an answer
	// not 2xx and of a type not read (R8.1).
	Truncated bool
	// NotModified is set when the server answered 304 and Body is the
	// stored copy (R6.2); NotModifiedHeader is then the 304's header, and
	// CopyFetched when the copy was fetched.
	NotModified       bool
	NotModifiedHeader http.Header
	CopyFetched       time.Time
	// Request is the header the fetcher set on the last request (R4,
	// R6.1), without what net/http adds; nil when no request was made.
	Request http.Header

	Err      error   // nil for a page; errors.Is against the Err… values (R11.1)
	Attempts int     // requests made for FinalURL: more than 1 after retries (R11.3)
	Verdict  Verdict // what the last response meant (R3.5)

	Addr     netip.Addr    // the address dialled for the last request
	Started  time.Time     // when the last request was sent
	Duration time.Duration // to the last byte of its body, or the failure (R1.3)
	Rest     Rest          // the rest it set on its address (R2)

	Signals Signals // the content-use signals for the page (R7)

	// page is the bounded pass over the body (text, title, links, meta),
	// made when first asked for. Nil when there is no HTML body.
	page *lazyPage
}

// Hop is one redirect: the request that answered it, where it pointed,
// and the rest it set.
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
	once        sync.Once
	body        []byte   // the page's bytes, until the pass
	contentType string   // its Content-Type, which may name its charset
	url         *url.URL // what relative links resolve against
	page        htmlpass.Page
}

func newLazyPage(body []byte, contentType string, u *url.URL) *lazyPage {
	return &lazyPage{body: body, contentType: contentType, url: u}
}

// get makes the pass once and returns it; nil for no page. It is safe
// for concurrent use.
func (p *lazyPage) get() *htmlpass.Page {
	if p == nil {
		return nil
	}
	p.once.Do(func() {
		p.page = htmlpass.Parse(p.body, p.contentType, p.url)
		p.body, p.url = nil, nil
	})
	return &p.page
}

// Charset is the character encoding a page was read in, and where it was
// found, as the HTML standard sniffs it (R8.4).
type Charset struct {
	// Name is the encoding's WHATWG name, lower case: "utf-8",
	// "windows-1251", "shift_jis", "euc-jp", "gbk", "big5", "iso-8859-2",
	// "windows-1252", "utf-16le", …
	Name string
	// Source is where it was found: "bom" (a byte order mark), "header"
	// (the Content-Type charset), "meta" (a <meta charset> or http-equiv
	// in the first 1024 bytes, or later in the head) or "default"
	// (windows-1252, as browsers read an undeclared page: they guess no
	// UTF-8 for a page from the web, and neither does polite).
	Source string
}

// Charset returns the encoding the page was read in; the zero Charset
// without an HTML page. The page may be read from Body when first asked.
func (r *Result) Charset() Charset {
	if p := r.page.get(); p != nil {
		return Charset(p.Charset)
	}
	return Charset{}
}

// Title returns the text of the page's first <title>, decoded, white space
// collapsed; "" without an HTML page or a title.
func (r *Result) Title() string {
	if p := r.page.get(); p != nil {
		return p.Title
	}
	return ""
}

// HTML returns the page's markup decoded to UTF-8 as a browser decodes it
// (see Charset): what Title, Links and TextForAI read. Body stays the
// bytes as sent. "" without an HTML page.
func (r *Result) HTML() string {
	if r.page == nil {
		return ""
	}
	text, _ := htmlpass.Decode(r.Body, r.page.contentType)
	return string(text)
}

// Link is a link found on a page.
type Link struct {
	URL      string // absolute, http or https, without fragment
	NoFollow bool   // rel="nofollow", or the page says nofollow
}

// Links returns the page's links, each once, in document order (at most
// 10,000); nil without an HTML page. A polite caller does not follow those
// marked NoFollow. The page may be read from Body when first asked.
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

// TextForAI returns the page's readable text (at most 1 MiB), or, when the
// site refuses AI input, no text and an *AIInputRefusedError (R7.2). A
// Result without a page returns its Err.
func (r *Result) TextForAI() (string, error) {
	if r.Err != nil && !errors.Is(r.Err, ErrBodyTooLarge) {
		return "", r.Err
	}
	var page htmlpass.Page
	if p := r.page.get(); p != nil {
		page = *p
	}
	return aiText(r.Body, r.Header.Get("Content-Type"), r.Signals, page)
}

// aiText is TextForAI on its parts, through internal/signals' gate: the
// signals decide first, then the text comes from page or from body, sent
// with contentType.
func aiText(body []byte, contentType string, sig Signals, page htmlpass.Page) (string, error) {
	text, because := signals.TextForAI(body, contentType, sig.set(), page)
	if because != nil {
		return "", &AIInputRefusedError{Signal: Signal(*because)}
	}
	return text, nil
}
