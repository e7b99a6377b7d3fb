package polite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"

	"github.com/politecrawler/polite/internal/htmlpass"
	"github.com/politecrawler/polite/internal/netguard"
	"github.com/politecrawler/polite/internal/robotstxt"
	"github.com/politecrawler/polite/internal/schedule"
)

// completion is what a worker reports after one request: what the
// scheduler acts on, in its terms, and what the Result carries (its
// Payload).
type completion struct {
	schedule.Completion
	err       error // the request's own, before the response is judged
	header    http.Header
	request   http.Header // what the fetcher set on the request
	body      []byte
	truncated bool
	stored    *StoredPage // the copy a 304 confirmed (R6.2)
	page      *lazyPage
	signals   Signals
	// verdict is what the response meant (R3.5), judged in the worker:
	// challenge detection reads the body, outside the scheduler's lock.
	verdict Verdict
	// rec is the exchange for Config.Recorder; nil without one.
	rec *recording
}

// fetch makes one GET request for a job's task on its budget's pinned
// address and reads the body within the caps. It never follows a redirect
// itself. A page is stored before the request is reported, so a delivered
// Result is a stored page. With a Coordinator, it returns the Turn the
// request held, to give back.
func (f *Fetcher) fetch(j schedule.Job, rc *requestContexts) (*schedule.Completion, Turn) {
	t := j.Task()
	var turn Turn
	if f.set.coordinator != nil {
		var withheld *schedule.Completion
		turn, withheld = f.take(j)
		if withheld != nil {
			return withheld, Turn{}
		}
	}
	c := f.request(t, j.Budget(), j.Transport().(*http.Transport), j.LoadCopy(), rc)
	c.Leased = f.set.coordinator != nil
	if c.Status != 0 {
		// Judged here, in the worker: challenge detection reads the body.
		c.verdict = classifyAt(c.Status, c.header, c.body, c.End)
	}
	if t.Robots() {
		// A robots.txt 2xx that is no challenge is parsed here too: a
		// long file is not parsed with the scheduler's lock held.
		c.Answer = judgeRobots(c)
		if c.Answer == schedule.RobotsRules {
			c.Rules = robotstxt.Parse(c.body)
			c.ETag, c.Modified = c.header.Get("ETag"), c.header.Get("Last-Modified")
		}
		f.keepRobots(t, c)
	}
	f.judge(t, c)
	if c.rec != nil {
		c.rec.finish(c)
		c.rec.Failed = c.Failed
		f.set.recorder.Record(c.rec.Exchange)
	}
	return &c.Completion, turn
}

// judge tells the scheduler what the response means in its terms: a
// failure that backs the host off (R2.5), a refusal that stops it (R3.1),
// an untrusted certificate, a redirect and where it leads (R8.3), and the
// Result's error.
func (f *Fetcher) judge(t *schedule.Task, c *completion) {
	c.Bytes = len(c.body)
	var v Verdict
	if c.Status != 0 {
		v = c.verdict
		// A body that did not arrive whole fails whatever the status (R2.5).
		c.Failed = v.Failure() || errors.Is(c.err, ErrIncompleteBody)
		c.RetryAfter, c.HasRetryAfter = v.RetryAfter, v.HasRetryAfter
		switch v.Kind {
		case ResponseRefused:
			c.Meaning = schedule.Refused
		case ResponseRedirect:
			c.Meaning = schedule.Redirect
		}
	} else {
		c.Failed = isNetworkFailure(c.err)
	}
	c.Untrusted = certificateFailure(c.err)
	c.Content = !t.Robots() && c.err == nil && c.Status >= 200 && c.Status <= 299
	c.Err = c.err
	if c.Err == nil {
		c.Err = responseError(t.Host(), t.URL(), c.Status, v, c.End)
	}
	c.RobotsFailed = t.Robots() && (v.Failure() || isNetworkFailure(c.Err))
	if c.Meaning == schedule.Redirect && c.Err == nil {
		c.Location = c.header.Get("Location")
		c.Target, c.TargetHost, c.RedirectErr = f.redirectTarget(t, c.Location)
	}
	c.Payload = c
}

// request makes the request and reads the response: a body within its
// cap, which for an answer that is not 2xx and not of a type the caller
// reads (and for any robots.txt answer that is not 2xx) is classifyPrefix.
func (f *Fetcher) request(t *schedule.Task, b *schedule.Budget, tr *http.Transport, loadCopy bool, rc *requestContexts) *completion {
	c := &completion{}
	c.Task, c.Budget = t, b
	conn := b.Conn()
	ctx := rc.begin()
	defer rc.end()
	// Every request is traced: net/http sends a request again on a new
	// connection when the one it used fails after the write, and a
	// connection kept from any earlier request may be the one it uses.
	ctx, exchange := netguard.Trace(ctx)
	kept := conn.Kept && conn.KeptOn == any(tr)
	conn.Kept = false // until this response is read whole
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL(), nil)
	if err != nil {
		c.Start = f.clk.Now()
		c.End = c.Start
		c.err = fmt.Errorf("%w: %v", ErrInvalidURL, err)
		return c
	}
	req = req.WithContext(netguard.WithAddr(ctx, dialAddr(b.Addr(), req.URL)))
	maxBody := f.set.maxBody
	if t.Robots() {
		maxBody = MaxRobotsBytes // the rest is not read (R5.2)
	}
	// A stored copy makes the request conditional (R6.1).
	ifNoneMatch, ifModifiedSince := t.Validators()
	// Its validators were loaded while the budget rested (a store job),
	// or are loaded now.
	var stored StoredPage
	var haveCopy, loaded bool
	switch {
	case t.Robots() || f.set.pages == nil:
	case loadCopy:
		if stored, haveCopy, err = f.set.pages.LoadPage(t.URL()); err != nil {
			f.set.logger.Warn("polite: store: loading a page copy", "url", t.URL(), "err", err)
		}
		loaded = true
		ifNoneMatch, ifModifiedSince = "", ""
		if haveCopy {
			ifNoneMatch, ifModifiedSince = stored.Header.Get("ETag"), stored.Header.Get("Last-Modified")
		}
	default:
		haveCopy = t.HaveCopy()
	}
	// Only these headers: no cookies, no Authorization (R8.2).
	f.headers.set(req.Header, t.Unrestricted(), t.Robots(), ifNoneMatch, ifModifiedSince)
	c.request = req.Header
	if f.set.recorder != nil {
		c.request = req.Header.Clone() // Result.Request: what the fetcher set, as without one
		c.rec = startRecording(req, Exchange{URL: t.URL(), Addr: dialAddr(b.Addr(), req.URL), Robots: t.Robots(),
			Try: t.Retries() + 1, Hop: len(t.Hops())})
	}
	req.Close = conn.Closes || conn.Drained
	// Signed last, once every header is set, and on every attempt and hop.
	if f.set.signer != nil {
		if err := f.set.signer.SignRequest(req); err != nil {
			c.Start = f.clk.Now()
			c.End = c.Start
			c.err = fmt.Errorf("polite: signing the request for %s: %w", t.URL(), err)
			return c
		}
	}

	c.Start = f.clk.Now()
	resp, err := tr.RoundTrip(req)
	// The server let the kept connection go during the rest, or dropped
	// it under the request (netguard.ErrResent): from now on each request
	// closes its own, and none races a server closing an idle one.
	if kept && (err == nil && !exchange.Reused() || errors.Is(err, netguard.ErrResent)) {
		conn.Closes = true
	}
	if err != nil {
		err = &url.Error{Op: "Get", URL: t.URL(), Err: err} // as http.Client says it
		c.End = f.clk.Now()
		c.err = f.requestError(ctx, t.URL(), err)
		return c
	}
	if resp.StatusCode < 100 {
		// net/http takes any three digits; "000" is no HTTP status, and
		// 0 means no response here: a failure of the host (R2.5).
		resp.Body.Close()
		c.End = f.clk.Now()
		c.err = fmt.Errorf("polite: %s answered status %03d: not an HTTP status", t.URL(), resp.StatusCode)
		return c
	}
	if c.rec != nil {
		c.rec.answer(resp, maxBody) // a gzip body is decoded from here on, its raw bytes kept
	}
	c.Status, c.header = resp.StatusCode, resp.Header
	ok := c.Status >= 200 && c.Status <= 299
	// A body is read whole only if its type is one the fetcher reads
	// (R8.1). A 2xx of another type is not read at all. Any other answer
	// of another type, and a robots.txt answer that is not 2xx, is read
	// only as far as Classify looks (R3.5): an error page is no download
	// (R10.2). That cut is no error; the Result says Truncated.
	prefixOnly := t.Robots() && !ok
	var first []byte
	if !t.Robots() {
		if headerValue(resp.Header, keyContentType) == "" {
			first, err = io.ReadAll(io.LimitReader(resp.Body, sniffLen))
		}
		if mt, allowed := f.set.types.allows(typeOf(resp.Header, first)); err == nil && !allowed {
			if ok {
				resp.Body.Close() // unread: the connection is dropped, not drained
				c.End = f.clk.Now()
				c.err = &ContentTypeError{URL: t.URL(), Type: mt}
				return c
			}
			prefixOnly = true
		}
	}
	if prefixOnly {
		maxBody = min(maxBody, classifyPrefix)
	}
	var body io.Reader = resp.Body
	if len(first) > 0 {
		body = io.MultiReader(bytes.NewReader(first), resp.Body)
	}
	size := resp.ContentLength
	if len(first) > 0 {
		size = -1
	}
	c.body, c.truncated, err = readCapped(body, maxBody, size)
	if c.rec.overRaw() { // the cap holds for the raw bytes too
		c.truncated, err = true, nil
	}
	if err == nil && !c.truncated {
		// Read to its end: net/http keeps the connection for the next
		// request, unless either side asked to close it.
		conn.Kept, conn.KeptOn = !req.Close && !resp.Close, tr
	}
	// Closing an unread body drops the connection rather than draining
	// it: an over-long or endless body, or the rest of an error page past
	// what Classify reads, is not read on.
	resp.Body.Close()
	c.End = f.clk.Now()
	switch {
	case err != nil:
		c.err = f.bodyError(ctx, t.URL(), len(c.body), size, err)
	case c.truncated && !t.Robots() && !prefixOnly:
		c.err = fmt.Errorf("%w: more than %d bytes from %s", ErrBodyTooLarge, maxBody, t.URL())
	}
	if c.err == nil && !t.Robots() {
		c.BodyHash = bodyHash(c.body)
	}

	switch {
	case c.err != nil:
	case t.Robots(): // kept by fetch, once judged
	case c.Status == http.StatusNotModified && haveCopy:
		// The copy stays as it is (R6.2). Only its validators were
		// loaded before the request: the copy itself is loaded now, after
		// the response, outside the rest. It is copied to the heap here,
		// so that stored stays on the stack for every other page.
		if !loaded {
			if stored, haveCopy, err = f.set.pages.LoadPage(t.URL()); err != nil {
				f.set.logger.Warn("polite: store: loading a page copy", "url", t.URL(), "err", err)
			}
		}
		if haveCopy {
			kept := stored
			c.stored = &kept
			f.readPage(t, c, req.URL, stored.Header, stored.Body)
		}
	case c.Status >= 200 && c.Status <= 299:
		f.readPage(t, c, req.URL, c.header, c.body)
		if f.set.pages != nil {
			p := StoredPage{URL: t.URL(), Status: c.Status, Header: c.header, Body: c.body, Fetched: c.End}
			if err := f.set.pages.SavePage(p); err != nil {
				f.set.logger.Warn("polite: store: keeping a page", "url", t.URL(), "err", err)
			}
		}
	}
	return c
}

// readPage reads the content signals that apply to a page at u (R7): its
// robots.txt rules, its headers and, for HTML, its meta tags, here in the
// worker. A page with a meta tag gets its HTML pass now, and keeps it for
// Links and TextForAI; a page without one is read only if a caller asks
// (lazyPage).
func (f *Fetcher) readPage(t *schedule.Task, c *completion, u *url.URL, header http.Header, body []byte) {
	var page htmlpass.Page
	if mt, _ := f.set.types.allows(typeOf(header, body)); mt == "text/html" || mt == "application/xhtml+xml" {
		c.page = newLazyPage(body, header.Get("Content-Type"), u)
		if htmlpass.MayHaveMeta(body, header.Get("Content-Type")) {
			page = *c.page.get()
		}
	}
	var rules *Robots
	if file := t.Rules(); file != nil {
		rules = &Robots{f: file}
	}
	c.signals = readSignals(rules, f.set.ua.product(), t.URL(), header, page)
}

// keepRobots stores a robots.txt answer that says something (R5.3), as
// its verdict reads it: the rules of a 2xx that is no challenge, the
// absence of a 4xx that is no refusal or of a 3xx leading nowhere, or, on
// a 304, the stored copy confirmed at this time.
func (f *Fetcher) keepRobots(t *schedule.Task, c *completion) {
	st := f.set.robotsStore
	if st == nil {
		return
	}
	r := StoredRobots{Origin: t.Origin(), Status: c.Status, Header: validators(c.header), Body: c.body, Fetched: c.End}
	switch c.Answer {
	case schedule.RobotsSame:
		old, ok, err := st.LoadRobots(t.Origin())
		if err != nil || !ok {
			return
		}
		old.Fetched = c.End
		r = old
	case schedule.RobotsRules:
	case schedule.RobotsAllowAll:
		r.Body = nil
	default:
		return
	}
	if err := st.SaveRobots(r); err != nil {
		f.set.logger.Warn("polite: store: keeping robots.txt", "origin", t.Origin(), "err", err)
	}
}

// maxPresize bounds the buffer made for a body before it is read.
const maxPresize = 1 << 20

// validators are the headers of a robots.txt answer that a conditional
// refresh needs (R5.3), the only ones kept with its copy; nil when it
// had neither.
func validators(h http.Header) http.Header {
	var v http.Header
	for _, k := range [...]string{"Etag", "Last-Modified"} {
		if x := h.Get(k); x != "" {
			if v == nil {
				v = make(http.Header, 2)
			}
			v[k] = []string{x}
		}
	}
	return v
}

// readCapped reads at most max bytes, and says whether there was more.
// size is the length the server announced, -1 when unknown: a body that
// keeps to it is read into one buffer of its size. A server's claim is
// trusted with at most maxPresize bytes before they arrive.
func readCapped(r io.Reader, max, size int64) ([]byte, bool, error) {
	n := int64(512)
	if size >= 0 && size < maxPresize {
		n = size + 1 // room to see the end without growing
	}
	if max < n {
		n = max + 1 // max < n <= maxPresize: no overflow
	}
	buf := make([]byte, 0, n)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grow
		}
		end := cap(buf)
		if int64(end) > max {
			end = int(max) + 1 // one byte past the cap tells there is more
		}
		m, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+m]
		if int64(len(buf)) > max {
			return buf[:max], true, nil
		}
		if err == io.EOF {
			return buf, false, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
}

// bodyError names a body that did not arrive whole (R2.5): the URL, the
// bytes read of those announced, and the cause. One cut by Close is
// ErrClosed.
func (f *Fetcher) bodyError(ctx context.Context, u string, got int, announced int64, err error) error {
	if f.ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	if te, ok := timedOut(ctx); ok {
		err = te // it stalled: said as a timeout, not a cancellation
	}
	of := "an unannounced length"
	if announced >= 0 {
		of = fmt.Sprintf("%d", announced)
	}
	return fmt.Errorf("%w: %d bytes of %s read: %w", ErrIncompleteBody, got, of, &url.Error{Op: "Get", URL: u, Err: err})
}

// requestError names a failure: one caused by Close is ErrClosed, one
// cut short by the request timeout says so (R10.2).
func (f *Fetcher) requestError(ctx context.Context, u string, err error) error {
	if f.ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	if te, ok := timedOut(ctx); ok {
		// Said as net/http says a deadline: a timeout, not a cancellation.
		return fmt.Errorf("polite: %w", &url.Error{Op: "Get", URL: u, Err: te})
	}
	if ue, ok := err.(*url.Error); ok { // the transport's own refusals open with "polite: "
		err = &url.Error{Op: ue.Op, URL: ue.URL, Err: schedule.Nested(ue.Err)}
	}
	return fmt.Errorf("polite: %w", err)
}

// dialAddr is where a request for u goes: its budget's address, at the
// URL's port (R1.1). The transport (netguard.WithAddr) dials it and no
// other, so the address the budget is keyed on is the one connected to.
func dialAddr(a netip.Addr, u *url.URL) netip.AddrPort {
	port := uint64(80)
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		port, _ = strconv.ParseUint(p, 10, 16) // checked by checkURL; 0 is refused at the dial
	}
	return netip.AddrPortFrom(a, uint16(port))
}
