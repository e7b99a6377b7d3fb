package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nlnwa/gowarc/v3"
	"golang.org/x/net/http/httpguts"

	"github.com/politecrawler/polite"
)

// archive writes a crawl's exchanges to one WARC 1.1 file: a warcinfo
// record first, then for each polite.Result that has a response, a request
// record and the record of the answer, linked both ways by
// WARC-Concurrent-To. The answer is a response record, or, for a 304
// (Result.NotModified), a revisit record with the server-not-modified
// profile whose block is the 304's status line and header; the stored copy
// it revalidated is in an earlier crawl's archive, not repeated here.
//
// Only the last exchange of a Result is written: Result.Redirects' hops
// keep no headers or bodies. The exchange is as net/http gave it: framed
// as HTTP/1.1 whatever went on the wire, the body decoded (a transparent
// gzip leaves neither Content-Encoding nor Content-Length behind).
//
// A path ending in .gz gets each record as its own gzip member, the WARC
// convention that lets a reader seek to any record; any other path is
// plain. Every record carries sha1 block digests (base32, what most WARC
// tools expect), and HTTP records their payload digests.
//
// An archive is safe for concurrent use; each add writes its records
// together and flushes them, so a crawl cut short leaves whole records.
// The first write error is kept: add and Close return it from then on.
type archive struct {
	mu     sync.Mutex
	path   string
	file   *os.File
	buf    *bufio.Writer
	gz     *gzip.Writer // nil for a plain file
	infoID string       // the warcinfo record's, which every record names
	err    error        // first failure, or errArchiveClosed
}

// building is held while records are built, by every archive: each
// gowarc.NewRecordBuilder sets a global of google/uuid (EnableRandPool)
// that Build then reads, unguarded.
var building sync.Mutex

// errArchiveClosed is what add and Close return after Close.
var errArchiveClosed = errors.New("archive closed")

// recordOptions build every record: gowarc computes ids, lengths and
// digests, and refuses (Build's err) a record that breaks the spec.
var recordOptions = []gowarc.WarcRecordOption{
	gowarc.WithVersion(gowarc.V1_1),
	gowarc.WithStrictValidation(),
	gowarc.WithAddMissingRecordId(true),
	gowarc.WithAddMissingContentLength(true),
	gowarc.WithAddMissingDigest(true),
	gowarc.WithDefaultDigestAlgorithm("sha1"),
}

// Content types of the blocks written.
const (
	httpRequestType  = "application/http;msgtype=request"
	httpResponseType = "application/http;msgtype=response"
)

// createArchive creates (or truncates) the file at path and writes its
// warcinfo record, naming software (like "polite/0.1.0") as the writer.
func createArchive(path, software string) (*archive, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	a := &archive{path: path, file: f, buf: bufio.NewWriter(f)}
	if strings.HasSuffix(path, ".gz") {
		a.gz = gzip.NewWriter(nil)
	}

	building.Lock()
	info, err := a.warcinfo(software)
	building.Unlock()
	if err == nil {
		a.infoID = info.RecordId()
		err = a.write(info)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("archive %s: %w", path, err)
	}
	return a, nil
}

// warcinfo builds the file's first record. The fields are written as text:
// gowarc's WarcFields would canonicalise "conformsTo" to "Conformsto".
func (a *archive) warcinfo(software string) (gowarc.WarcRecord, error) {
	rb := gowarc.NewRecordBuilder(gowarc.Warcinfo, recordOptions...)
	rb.AddWarcHeaderTime(gowarc.WarcDate, warcDate(time.Now()))
	rb.AddWarcHeader(gowarc.WarcFilename, filepath.Base(a.path))
	rb.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	block := "software: " + oneLine(software) + "\r\n" +
		"format: WARC File Format 1.1\r\n" +
		"conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"
	return build(rb, []byte(block))
}

// add writes r's last exchange: nothing when there was no response
// (Status 0: a network error, robots.txt refused it, ...). Error answers
// (404, 403, 503) are written like any other: an archive keeps them.
func (a *archive) add(r *polite.Result) error {
	if r.Status == 0 {
		return nil
	}
	target := r.FinalURL
	if target == "" {
		target = r.URL
	}
	u, err := url.Parse(target)
	if err != nil {
		return fmt.Errorf("archive %s: %w", a.path, err)
	}

	building.Lock()
	req, resp, err := a.exchange(r, u, target)
	building.Unlock()
	if err != nil {
		return fmt.Errorf("archive %s: %s: %w", a.path, target, err)
	}
	if err := a.write(req, resp); err != nil {
		return fmt.Errorf("archive %s: %w", a.path, err)
	}
	return nil
}

// exchange builds the request record of r and the record of its answer,
// each naming the other.
func (a *archive) exchange(r *polite.Result, u *url.URL, target string) (req, resp gowarc.WarcRecord, err error) {
	if req, err = a.request(r, u, target); err != nil {
		return nil, nil, fmt.Errorf("request: %w", err)
	}
	answer := a.response
	if r.NotModified {
		answer = a.revisit
	}
	if resp, err = answer(r, target); err != nil {
		req.Close()
		return nil, nil, fmt.Errorf("response: %w", err)
	}
	// Built records may still gain fields: the digests cover blocks only.
	req.WarcHeader().AddId(gowarc.WarcConcurrentTo, resp.RecordId())
	resp.WarcHeader().AddId(gowarc.WarcConcurrentTo, req.RecordId())
	return req, resp, nil
}

// request builds the request record: the request line and Host that
// net/http sent, then the header the fetcher set (Result.Request).
func (a *archive) request(r *polite.Result, u *url.URL, target string) (gowarc.WarcRecord, error) {
	host, err := httpguts.PunycodeHostPort(u.Host) // as net/http sends it
	if err != nil {
		return nil, err
	}
	var block bytes.Buffer
	fmt.Fprintf(&block, "GET %s HTTP/1.1\r\nHost: %s\r\n", u.RequestURI(), host)
	if err := r.Request.WriteSubset(&block, map[string]bool{"Host": true}); err != nil {
		return nil, err
	}
	block.WriteString("\r\n")

	return build(a.builder(gowarc.Request, r, target, httpRequestType), block.Bytes())
}

// response builds the response record: status line, header and body.
func (a *archive) response(r *polite.Result, target string) (gowarc.WarcRecord, error) {
	var head bytes.Buffer
	writeHead(&head, r.Status, r.Header)

	rb := a.builder(gowarc.Response, r, target, httpResponseType)
	if why := truncation(r); why != "" {
		rb.AddWarcHeader(gowarc.WarcTruncated, why)
	}
	return build(rb, head.Bytes(), r.Body)
}

// truncation is the WARC-Truncated reason of r's response record: why its
// payload is not the whole body the server announced, "" when it is. A
// Result with an error and a status has what the fetcher read before it
// stopped: a body cut short or stalled (disconnect), one past the size cap
// (length), one of a type not read, which is empty (unspecified).
func truncation(r *polite.Result) string {
	switch {
	case errors.Is(r.Err, polite.ErrIncompleteBody):
		return "disconnect"
	case r.Truncated, errors.Is(r.Err, polite.ErrBodyTooLarge):
		return "length"
	case r.Err != nil:
		return "unspecified"
	}
	return ""
}

// revisit builds the revisit record of a 304: its status line and header
// (Result.NotModifiedHeader), pointing at the stored copy by URL and date.
// The copy's record id is not known here, so WARC-Refers-To is left out.
func (a *archive) revisit(r *polite.Result, target string) (gowarc.WarcRecord, error) {
	var head bytes.Buffer
	writeHead(&head, http.StatusNotModified, r.NotModifiedHeader)

	rb := a.builder(gowarc.Revisit, r, target, httpResponseType)
	rb.AddWarcHeader(gowarc.WarcProfile, gowarc.ProfileServerNotModifiedV1_1)
	rb.AddWarcHeader(gowarc.WarcRefersToTargetURI, target)
	// CopyFetched is when the stored copy's response ended; its record's
	// WARC-Date is when the request began, the Duration earlier. A replay
	// tool finds the original by target and the closest date.
	if !r.CopyFetched.IsZero() {
		rb.AddWarcHeaderTime(gowarc.WarcRefersToDate, warcDate(r.CopyFetched))
	}
	return build(rb, head.Bytes())
}

// builder starts a record of r's exchange with the fields all such
// records share.
func (a *archive) builder(t gowarc.RecordType, r *polite.Result, target, contentType string) gowarc.WarcRecordBuilder {
	rb := gowarc.NewRecordBuilder(t, recordOptions...)
	rb.AddWarcHeader(gowarc.WarcTargetURI, target)
	started := r.Started
	if started.IsZero() { // not from a fetch; a record must have a date
		started = time.Now()
	}
	rb.AddWarcHeaderTime(gowarc.WarcDate, warcDate(started))
	if r.Addr.IsValid() {
		// A zone ("%eth0") is not part of WARC's IP address grammar.
		rb.AddWarcHeader(gowarc.WarcIPAddress, r.Addr.Unmap().WithZone("").String())
	}
	rb.AddWarcHeader(gowarc.WarcWarcinfoID, "<"+a.infoID+">")
	rb.AddWarcHeader(gowarc.ContentType, contentType)
	return rb
}

// build writes the block's parts to rb and builds its record. A
// validation finding is an error too: the records are ours, and should
// have none.
func build(rb gowarc.WarcRecordBuilder, block ...[]byte) (gowarc.WarcRecord, error) {
	for _, b := range block {
		if _, err := rb.Write(b); err != nil { // past 1 MiB, to a temporary file
			rb.Close()
			return nil, err
		}
	}
	rec, validation, err := rb.Build()
	if err == nil && len(validation) > 0 {
		rec.Close()
		err = errors.Join(validation...)
	}
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// write appends the records to the file, each its own gzip member when
// compressed, flushes them, and closes them. After a failure the file
// ends in a partial record, so the error sticks.
func (a *archive) write(recs ...gowarc.WarcRecord) error {
	defer func() {
		for _, rec := range recs {
			rec.Close()
		}
	}()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return a.err
	}
	m := gowarc.NewMarshaler()
	for _, rec := range recs {
		if a.gz == nil {
			_, _, a.err = m.Marshal(a.buf, rec, 0)
		} else {
			a.gz.Reset(a.buf)
			if _, _, a.err = m.Marshal(a.gz, rec, 0); a.err == nil {
				a.err = a.gz.Close()
			}
		}
		if a.err != nil {
			return a.err
		}
	}
	a.err = a.buf.Flush()
	return a.err
}

// Close flushes and closes the file. An archive closed once returns
// errArchiveClosed from add and Close.
func (a *archive) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err == errArchiveClosed {
		return a.err
	}
	err := a.err
	if err == nil {
		err = a.buf.Flush()
	}
	if cerr := a.file.Close(); err == nil {
		err = cerr
	}
	a.err = errArchiveClosed
	if err != nil {
		return fmt.Errorf("archive %s: %w", a.path, err)
	}
	return nil
}

// writeHead writes an HTTP/1.1 response head: status line, header lines
// in sorted order, blank line.
func writeHead(b *bytes.Buffer, status int, h http.Header) {
	fmt.Fprintf(b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	h.Write(b) // a bytes.Buffer does not fail
	b.WriteString("\r\n")
}

// warcDate is t as a WARC 1.1 date keeps it: UTC, to the microsecond,
// the finest most WARC readers parse.
func warcDate(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// oneLine keeps a field value to one line.
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }
