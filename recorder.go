package polite

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

// Recorder receives every exchange the fetcher has with a server, as it
// ends: each robots.txt request, each redirect hop, each try of a URL
// tried again, each 304, each page, and each request that got no answer.
// It is what a web archive writer needs (the command's WARC and WACZ):
// the request as sent and the response as received, before decoding.
//
// Record is called from the request's own worker, after the response
// ended and before the Result is made: calls for different addresses
// come concurrently, those for one address one at a time and in order
// (R1.1). The rest after the request is measured from its end (R1.3),
// not from when Record returns; a slow Record holds only its worker. It
// must not keep the Exchange's slices past the call unless it copies them.
//
// With no Recorder set (Config.Recorder nil) the fetcher does none of
// this work: no copy of a header, no raw buffer.
type Recorder interface {
	Record(Exchange)
}

// Exchange is one request and its answer as they went over the wire.
//
// The body is kept as the server sent it: still gzip when it said
// Content-Encoding: gzip, with that header and its Content-Length kept.
// For that, a fetcher with a Recorder asks for gzip itself, sending the
// same Accept-Encoding net/http would, so net/http passes the body on
// undecoded; the fetcher decodes it for the Result (whose Body and Header
// stay decoded, as without a Recorder). Both the raw bytes and the
// decoded body are held to the same cap (Config.MaxBodyBytes, or
// MaxRobotsBytes for robots.txt). A chunked body is kept de-chunked, as
// WARC writers do; TransferEncoding says how it came.
type Exchange struct {
	// URL is the URL requested; Addr the pinned address dialled (R1.1).
	URL  string
	Addr netip.AddrPort
	// Robots is set on a robots.txt request (R5.1).
	Robots bool
	// Try is 1 for a URL's first request, n for its (n-1)-th retry
	// (R11.3); Hop is 0 for the URL as given to Add and n for the target
	// of its n-th redirect (R8.3).
	Try, Hop int
	// RequestHeader is every header sent but Host: what the fetcher set
	// (User-Agent, Accept, From, validators) and Accept-Encoding.
	RequestHeader http.Header
	// Started is when the request was sent; Ended when its body was read
	// or it failed.
	Started, Ended time.Time

	// StatusLine is the response's first line ("HTTP/1.1 200 OK"), Status
	// its code; both zero when no response came (Err says why).
	StatusLine string
	Status     int
	// Header is the response header as received: Content-Encoding and
	// Content-Length kept. TransferEncoding is the transfer coding it came
	// in ("chunked"), which net/http removes from Header.
	Header           http.Header
	TransferEncoding []string
	// Body is the body as received, within the cap: not decoded.
	Body []byte
	// Truncated says why Body is not the whole body, in WARC-Truncated's
	// words: "length" (the cap, or a prefix only, R8.1, R10.2),
	// "disconnect" (cut short or stalled), "unspecified" (a type not
	// read); "" when it is whole.
	Truncated string
	// CopyFetched is, for a 304, when the stored copy it confirmed was
	// fetched (R6.2): what an archive's revisit record refers to.
	CopyFetched time.Time
	// Failed is set when the exchange is a failure of the host (R2.5):
	// 429, 5xx, a body cut short, no answer. Such a URL may be tried again.
	Failed bool
	// Err is the request's error, nil for an answer read whole.
	Err error
}

// recording is an exchange in progress: the Exchange and, for a gzip
// body, the raw bytes read under the decoder.
type recording struct {
	Exchange
	raw *rawTee // nil: the body is not encoded, raw is the body read
}

// startRecording starts recording req's exchange: it asks for gzip
// itself, so that net/http passes a gzip body on undecoded (see Exchange).
func startRecording(req *http.Request, ex Exchange) *recording {
	req.Header.Set("Accept-Encoding", "gzip") // what net/http sends on its own
	ex.RequestHeader = req.Header
	return &recording{Exchange: ex}
}

// answer keeps resp's head as received and, for a gzip body, returns the
// body to read decoded, its raw bytes teed within max. resp's header is
// then as net/http's own decoding leaves it: no Content-Encoding, no
// Content-Length.
func (r *recording) answer(resp *http.Response, max int64) {
	r.StatusLine, r.Status = resp.Proto+" "+resp.Status, resp.StatusCode
	r.Header, r.TransferEncoding = resp.Header.Clone(), resp.TransferEncoding
	if !strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		return
	}
	r.raw = &rawTee{r: resp.Body, max: max}
	resp.Body = &gunzip{raw: r.raw, body: resp.Body}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
}

// overRaw reports whether the raw body passed its cap: the decoded body
// is then cut there too (ErrBodyTooLarge for a page).
func (r *recording) overRaw() bool { return r != nil && r.raw != nil && r.raw.over }

// finish fills in what the request came to.
func (r *recording) finish(c *completion) {
	r.Started, r.Ended, r.Err = c.Start, c.End, c.err
	if c.stored != nil {
		r.CopyFetched = c.stored.Fetched
	}
	r.Body = c.body
	if r.raw != nil {
		r.Body = r.raw.buf
	}
	var cte *ContentTypeError
	switch {
	case errors.Is(c.err, ErrIncompleteBody):
		r.Truncated = "disconnect"
	case c.truncated, errors.Is(c.err, ErrBodyTooLarge):
		r.Truncated = "length"
	case errors.As(c.err, &cte):
		r.Truncated = "unspecified"
	}
}

// errRawCap ends a raw read past its cap.
var errRawCap = errors.New("polite: raw body over the cap")

// rawTee keeps the bytes read through it, up to max; past that it
// fails the read (errRawCap) and says so (over).
type rawTee struct {
	r    io.Reader
	max  int64
	buf  []byte
	over bool
}

func (t *rawTee) Read(p []byte) (int, error) {
	if t.over {
		return 0, errRawCap
	}
	n, err := t.r.Read(p)
	if room := t.max - int64(len(t.buf)); int64(n) > room {
		t.buf = append(t.buf, p[:room]...)
		t.over = true
		return int(room), errRawCap
	}
	t.buf = append(t.buf, p[:n]...)
	return n, err
}

// gunzip decodes the raw body as net/http's transparent gzip would,
// opening the gzip stream at the first read (not when the headers come).
type gunzip struct {
	raw  *rawTee
	body io.Closer
	zr   *gzip.Reader
	err  error
}

func (g *gunzip) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		if g.zr, g.err = gzip.NewReader(g.raw); g.err != nil {
			return 0, g.err
		}
	}
	n, err := g.zr.Read(p)
	if err != nil {
		g.err = err
	}
	return n, err
}

func (g *gunzip) Close() error { return g.body.Close() }
