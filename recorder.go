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

// Recorder receives every exchange with a server as it ends (robots.txt,
// redirect hops, retries, 304s, pages, requests with no answer): what a web
// archive writer needs. Record is called from the request's worker, before
// its Result is made; calls for one address come in order, others
// concurrently. It must copy what it keeps of the Exchange's slices.
type Recorder interface {
	Record(Exchange)
}

// Exchange is one request and its answer as they went over the wire: the
// body as sent (still gzip if it came so; de-chunked), within the body cap.
type Exchange struct {
	URL           string
	Addr          netip.AddrPort // the pinned address dialled (R1.1)
	Robots        bool           // a robots.txt request (R5.1)
	Try, Hop      int            // 1 for a first request, n for the (n-1)-th retry; 0, or n for the n-th redirect
	RequestHeader http.Header    // every header sent but Host
	Started       time.Time
	Ended         time.Time // when the body was read, or the request failed

	StatusLine       string      // "HTTP/1.1 200 OK"; "" when no response came
	Status           int         // 0 when no response came
	Header           http.Header // as received: Content-Encoding and Content-Length kept
	TransferEncoding []string    // as received ("chunked"), which net/http takes out of Header
	Body             []byte      // as received, within the cap: not decoded
	// Truncated is WARC-Truncated's word for a body not whole: "length",
	// "disconnect" or "unspecified"; "" when whole.
	Truncated   string
	CopyFetched time.Time // for a 304, when the stored copy was fetched (R6.2)
	// Failed is set when the exchange is a failure of the host (R2.5).
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
