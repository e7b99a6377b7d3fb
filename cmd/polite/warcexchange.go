package main

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/nlnwa/gowarc/v3"
	"golang.org/x/net/http/httpguts"

	"github.com/politecrawler/polite"
)

// Which record an exchange's answer gets (README, "What a WARC holds"):
//
//   - an answer read (whole, or cut short or at the cap: WARC-Truncated
//     says so): a response record, its block the status line, header and
//     body as the server sent them;
//   - a 304: a revisit record, server-not-modified profile, its block the
//     304's head;
//   - a whole 200 whose payload digest equals an earlier whole 200's in
//     this archive: a revisit record, identical-payload-digest profile,
//     pointing at that one (WARC-Refers-To);
//   - a failure of the host with no body cut short (429, 5xx: what a
//     retry is for), or no answer at all: a metadata record noting the
//     try and what came. Replay tools index only responses and revisits,
//     so a failed try never stands in for the page.
//
// The request record is the request line, Host and every header sent.

// original is a response record a later identical payload refers to.
type original struct {
	id, target string
	date       time.Time
}

// Record is the archive as the Fetcher's Recorder: it writes ex's records.
// A failure is kept: Err returns it, and Record writes nothing after it.
func (a *archive) Record(ex polite.Exchange) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return
	}
	building.Lock()
	req, answer, err := a.exchange(ex)
	building.Unlock()
	if err != nil {
		a.err = fmt.Errorf("%s: %w", ex.URL, err)
		return
	}
	spans, err := a.writeLocked(req, answer)
	if err != nil {
		return
	}
	a.indexLocked(ex, answer, spans[1])
}

// exchange builds the request record of ex and the record of its
// answer, each naming the other; a new whole 200 is kept as an original.
func (a *archive) exchange(ex polite.Exchange) (req, answer gowarc.WarcRecord, err error) {
	u, err := url.Parse(ex.URL)
	if err != nil {
		return nil, nil, err
	}
	if req, err = a.request(ex, u); err != nil {
		return nil, nil, fmt.Errorf("request: %w", err)
	}
	digest := payloadDigest(ex.Body)
	first, dup := a.seen[digest]
	whole200 := ex.Status == http.StatusOK && ex.Truncated == "" && len(ex.Body) > 0
	switch {
	case ex.Status == 0 || ex.Failed && ex.Truncated == "":
		answer, err = a.note(ex)
	case ex.Status == http.StatusNotModified:
		answer, err = a.notModified(ex)
	case whole200 && dup:
		answer, err = a.identical(ex, first, digest)
	default:
		answer, err = a.response(ex)
	}
	if err != nil {
		req.Close()
		return nil, nil, fmt.Errorf("answer: %w", err)
	}
	if whole200 && !dup {
		a.seen[digest] = original{id: answer.RecordId(), target: ex.URL, date: warcDate(ex.Started)}
	}
	// Built records may still gain fields: the digests cover blocks only.
	req.WarcHeader().AddId(gowarc.WarcConcurrentTo, answer.RecordId())
	answer.WarcHeader().AddId(gowarc.WarcConcurrentTo, req.RecordId())
	return req, answer, nil
}

// request builds the request record: the request line and Host that
// net/http sent, then every other header sent.
func (a *archive) request(ex polite.Exchange, u *url.URL) (gowarc.WarcRecord, error) {
	host, err := httpguts.PunycodeHostPort(u.Host) // as net/http sends it
	if err != nil {
		return nil, err
	}
	var block bytes.Buffer
	fmt.Fprintf(&block, "GET %s HTTP/1.1\r\nHost: %s\r\n", u.RequestURI(), host)
	if err := ex.RequestHeader.WriteSubset(&block, map[string]bool{"Host": true}); err != nil {
		return nil, err
	}
	block.WriteString("\r\n")
	return build(a.builder(gowarc.Request, ex, httpRequestType), block.Bytes())
}

// response builds the response record: status line, header and body as
// received.
func (a *archive) response(ex polite.Exchange) (gowarc.WarcRecord, error) {
	rb := a.builder(gowarc.Response, ex, httpResponseType)
	if ex.Truncated != "" {
		rb.AddWarcHeader(gowarc.WarcTruncated, ex.Truncated)
	}
	return build(rb, head(ex), ex.Body)
}

// notModified builds the revisit record of a 304: its head, pointing at
// the stored copy by URL and date; that copy is in an earlier crawl's
// archive, its record id not known here. CopyFetched is when the copy's
// response ended; its record's WARC-Date is when the request began: a
// replay tool finds the original by target and the closest date.
func (a *archive) notModified(ex polite.Exchange) (gowarc.WarcRecord, error) {
	rb := a.builder(gowarc.Revisit, ex, httpResponseType)
	rb.AddWarcHeader(gowarc.WarcProfile, gowarc.ProfileServerNotModifiedV1_1)
	rb.AddWarcHeader(gowarc.WarcRefersToTargetURI, ex.URL)
	if !ex.CopyFetched.IsZero() {
		rb.AddWarcHeaderTime(gowarc.WarcRefersToDate, warcDate(ex.CopyFetched))
	}
	return build(rb, head(ex))
}

// identical builds the revisit record of a 200 whose payload is first's:
// its head, and the digest that makes it the same.
func (a *archive) identical(ex polite.Exchange, first original, digest string) (gowarc.WarcRecord, error) {
	rb := a.builder(gowarc.Revisit, ex, httpResponseType)
	rb.AddWarcHeader(gowarc.WarcProfile, gowarc.ProfileIdenticalPayloadDigestV1_1)
	rb.AddWarcHeader(gowarc.WarcPayloadDigest, digest)
	rb.AddWarcHeader(gowarc.WarcRefersTo, "<"+first.id+">")
	rb.AddWarcHeader(gowarc.WarcRefersToTargetURI, first.target)
	rb.AddWarcHeaderTime(gowarc.WarcRefersToDate, first.date)
	return build(rb, head(ex))
}

// note builds the metadata record of a failed try: which try it was and
// what came of it, the answer's status line or the error.
func (a *archive) note(ex polite.Exchange) (gowarc.WarcRecord, error) {
	rb := a.builder(gowarc.Metadata, ex, gowarc.ApplicationWarcFields)
	var block strings.Builder
	fmt.Fprintf(&block, "try: %d\r\nhop: %d\r\n", ex.Try, ex.Hop)
	if ex.Status != 0 {
		fmt.Fprintf(&block, "failed-with: %s\r\n", oneLine(ex.StatusLine))
	}
	if ex.Err != nil {
		fmt.Fprintf(&block, "error: %s\r\n", oneLine(ex.Err.Error()))
	}
	return build(rb, []byte(block.String()))
}

// builder starts a record of ex with the fields all such records share.
func (a *archive) builder(t gowarc.RecordType, ex polite.Exchange, contentType string) gowarc.WarcRecordBuilder {
	rb := gowarc.NewRecordBuilder(t, recordOptions...)
	rb.AddWarcHeader(gowarc.WarcTargetURI, ex.URL)
	started := ex.Started
	if started.IsZero() { // a record must have a date
		started = time.Now()
	}
	rb.AddWarcHeaderTime(gowarc.WarcDate, warcDate(started))
	if ex.Addr.IsValid() {
		// A zone ("%eth0") is not part of WARC's IP address grammar.
		rb.AddWarcHeader(gowarc.WarcIPAddress, ex.Addr.Addr().Unmap().WithZone("").String())
	}
	rb.AddWarcHeader(gowarc.WarcWarcinfoID, "<"+a.infoID+">")
	rb.AddWarcHeader(gowarc.ContentType, contentType)
	return rb
}

// head is the response's status line and header as received, then a
// blank line. A body that came chunked is stored de-chunked, so its
// header says so: no Transfer-Encoding (net/http took it out),
// X-Archive-Orig-Transfer-Encoding naming it, and the stored length as
// Content-Length when the server sent none.
func head(ex polite.Exchange) []byte {
	var b bytes.Buffer
	b.WriteString(oneLine(ex.StatusLine) + "\r\n")
	h := ex.Header
	if len(ex.TransferEncoding) > 0 {
		h = h.Clone()
		h.Set("X-Archive-Orig-Transfer-Encoding", strings.Join(ex.TransferEncoding, ", "))
		if h.Get("Content-Length") == "" {
			h.Set("Content-Length", strconv.Itoa(len(ex.Body)))
		}
	}
	h.Write(&b) // a bytes.Buffer does not fail
	b.WriteString("\r\n")
	return b.Bytes()
}

// payloadDigest is the WARC-Payload-Digest of p, as gowarc writes it.
func payloadDigest(p []byte) string {
	sum := sha1.Sum(p)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}
