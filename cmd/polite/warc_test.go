package main

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/politecrawler/polite"
)

var archiveStart = time.Date(2026, 12, 1, 9, 30, 15, 123456789, time.FixedZone("CET", 3600))

// archiveResults are one crawl's Results, one of each kind the archive
// tells apart; the Status 0 one writes nothing.
func archiveResults() []*polite.Result {
	return []*polite.Result{
		{ // a page, reached through a redirect
			URL:       "http://example.com/a",
			FinalURL:  "https://example.com/page?x=1",
			Redirects: []polite.Hop{{URL: "http://example.com/a", Status: 301, Location: "https://example.com/page?x=1"}},
			Status:    200,
			Header:    http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Etag": {`"v1"`}},
			Body:      []byte("<!doctype html><title>Page</title><p>Hello"),
			Request:   http.Header{"User-Agent": {"polite-test/1.0 (+https://example.org/bot)"}, "Accept": {"text/html"}},
			Addr:      netip.MustParseAddr("192.0.2.10"),
			Started:   archiveStart,
		},
		{
			URL: "https://example.com/missing", FinalURL: "https://example.com/missing",
			Status:  404,
			Header:  http.Header{"Content-Type": {"text/plain"}},
			Body:    []byte("not found"),
			Request: http.Header{"User-Agent": {"polite-test/1.0"}},
			Addr:    netip.MustParseAddr("fe80::1%eth0"),
			Started: archiveStart.Add(time.Second),
		},
		{ // revalidated: Header and Body are the stored copy's
			URL: "https://example.com/page?x=1", FinalURL: "https://example.com/page?x=1",
			Status:            200,
			Header:            http.Header{"Content-Type": {"text/html"}},
			Body:              []byte("<p>stored copy"),
			NotModified:       true,
			NotModifiedHeader: http.Header{"Etag": {`"v1"`}, "Date": {"Tue, 01 Dec 2026 08:30:17 GMT"}},
			CopyFetched:       archiveStart.Add(-24 * time.Hour),
			Request:           http.Header{"User-Agent": {"polite-test/1.0"}, "If-None-Match": {`"v1"`}},
			Addr:              netip.MustParseAddr("192.0.2.10"),
			Started:           archiveStart.Add(2 * time.Second),
		},
		{
			URL: "https://example.com:8443/big.bin", FinalURL: "https://example.com:8443/big.bin",
			Status:    200,
			Header:    http.Header{"Content-Type": {"application/octet-stream"}, "Content-Length": {"1000"}},
			Body:      []byte("0123456789"),
			Truncated: true,
			Request:   http.Header{"User-Agent": {"polite-test/1.0"}},
			Addr:      netip.MustParseAddr("192.0.2.11"),
			Started:   archiveStart.Add(3 * time.Second),
		},
		{ // the server announced more than it sent
			URL: "https://example.com/cut", FinalURL: "https://example.com/cut",
			Status:  200,
			Header:  http.Header{"Content-Type": {"text/html"}, "Content-Length": {"10000"}},
			Body:    []byte("<p>the first part"),
			Err:     fmt.Errorf("%w: 17 of 10000 bytes", polite.ErrIncompleteBody),
			Request: http.Header{"User-Agent": {"polite-test/1.0"}},
			Addr:    netip.MustParseAddr("192.0.2.10"),
			Started: archiveStart.Add(4 * time.Second),
		},
		{ // a type not read: the body was left unread
			URL: "https://example.com/img.png", FinalURL: "https://example.com/img.png",
			Status:  200,
			Header:  http.Header{"Content-Type": {"image/png"}, "Content-Length": {"5000"}},
			Err:     &polite.ContentTypeError{URL: "https://example.com/img.png", Type: "image/png"},
			Request: http.Header{"User-Agent": {"polite-test/1.0"}},
			Addr:    netip.MustParseAddr("192.0.2.10"),
			Started: archiveStart.Add(5 * time.Second),
		},
		{
			URL: "https://down.example/", FinalURL: "https://down.example/",
			Err: errors.New("dial tcp: connection refused"),
		},
	}
}

// writeArchive writes results to a new archive at path.
func writeArchive(t *testing.T, path string, results []*polite.Result) {
	t.Helper()
	a, err := createArchive(path, "polite/test")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if err := a.add(r); err != nil {
			t.Fatalf("add %s: %v", r.FinalURL, err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// readArchive reads every record back under strict validation, failing
// on any finding.
func readArchive(t *testing.T, path string) []gowarc.Record {
	t.Helper()
	rd, err := gowarc.NewWarcFileReader(path, 0, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var recs []gowarc.Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatalf("record %d: %v", len(recs), err)
		}
		if len(rec.Validation) > 0 {
			t.Errorf("record %d: validation %v", len(recs), rec.Validation)
		}
		if err := rec.WarcRecord.Block().Cache(); err != nil { // readable after the reader moves on
			t.Fatal(err)
		}
		t.Cleanup(func() { rec.Close() })
		recs = append(recs, rec)
	}
}

func payload(t *testing.T, b gowarc.Block) []byte {
	t.Helper()
	pb, ok := b.(gowarc.PayloadBlock)
	if !ok {
		t.Fatalf("block %T has no payload", b)
	}
	r, err := pb.PayloadBytes()
	if err != nil {
		t.Fatal(err)
	}
	p, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sha1Base32(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

func TestArchiveRoundTrip(t *testing.T) {
	for _, name := range []string{"crawl.warc", "crawl.warc.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			results := archiveResults()
			writeArchive(t, path, results)

			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			gz := strings.HasSuffix(name, ".gz")
			if isGzip := bytes.HasPrefix(raw, []byte{0x1f, 0x8b}); isGzip != gz {
				t.Fatalf("file starts with gzip magic: %v, want %v", isGzip, gz)
			}

			recs := readArchive(t, path)
			var types []string
			for _, rec := range recs {
				types = append(types, rec.WarcRecord.Type().String())
			}
			want := "warcinfo request response request response request revisit request response request response request response"
			if got := strings.Join(types, " "); got != want {
				t.Fatalf("record types\n got %s\nwant %s", got, want)
			}

			info := recs[0].WarcRecord
			checkWarcinfo(t, info, name)
			for i, rec := range recs[1:] {
				h := rec.WarcRecord.WarcHeader()
				if got := h.GetId(gowarc.WarcWarcinfoID); got != info.RecordId() {
					t.Errorf("record %d: WARC-Warcinfo-ID %q, want %q", i+1, got, info.RecordId())
				}
				if d := h.Get(gowarc.WarcBlockDigest); !strings.HasPrefix(d, "sha1:") || len(d) != len("sha1:")+32 {
					t.Errorf("record %d: WARC-Block-Digest %q, want sha1 base32", i+1, d)
				}
				if gz {
					if !bytes.HasPrefix(raw[rec.Offset:], []byte{0x1f, 0x8b}) {
						t.Errorf("record %d at %d: not its own gzip member", i+1, rec.Offset)
					}
				}
				checkSeek(t, path, rec)
			}

			// pairs: the request and answer of each Result with a response
			pairs := [][2]gowarc.WarcRecord{}
			for i := 1; i+1 < len(recs); i += 2 {
				pairs = append(pairs, [2]gowarc.WarcRecord{recs[i].WarcRecord, recs[i+1].WarcRecord})
			}
			for i, p := range pairs {
				r := results[i]
				req, resp := p[0], p[1]
				for _, rec := range p {
					h := rec.WarcHeader()
					if got := h.Get(gowarc.WarcTargetURI); got != r.FinalURL {
						t.Errorf("%s %s: WARC-Target-URI %q", rec.Type(), r.FinalURL, got)
					}
					date, err := rec.Date()
					if err != nil || !date.Equal(r.Started.Truncate(time.Microsecond)) {
						t.Errorf("%s %s: WARC-Date %q (%v), want %v", rec.Type(), r.FinalURL, h.Get(gowarc.WarcDate), err, r.Started.UTC())
					}
					if got, want := h.Get(gowarc.WarcIPAddress), r.Addr.WithZone("").String(); got != want {
						t.Errorf("%s %s: WARC-IP-Address %q, want %q", rec.Type(), r.FinalURL, got, want)
					}
				}
				if got := req.WarcHeader().GetAll(gowarc.WarcConcurrentTo); len(got) != 1 || got[0] != "<"+resp.RecordId()+">" {
					t.Errorf("request %s: WARC-Concurrent-To %q, want <%s>", r.FinalURL, got, resp.RecordId())
				}
				if got := resp.WarcHeader().GetAll(gowarc.WarcConcurrentTo); len(got) != 1 || got[0] != "<"+req.RecordId()+">" {
					t.Errorf("%s %s: WARC-Concurrent-To %q, want <%s>", resp.Type(), r.FinalURL, got, req.RecordId())
				}
				checkRequest(t, req, r)
				if r.NotModified {
					checkRevisit(t, resp, r)
				} else {
					checkResponse(t, resp, r)
				}
			}
		})
	}
}

func checkWarcinfo(t *testing.T, info gowarc.WarcRecord, name string) {
	t.Helper()
	if got := info.WarcHeader().Get(gowarc.WarcFilename); got != name {
		t.Errorf("warcinfo: WARC-Filename %q, want %q", got, name)
	}
	if got := info.WarcHeader().Get(gowarc.ContentType); got != gowarc.ApplicationWarcFields {
		t.Errorf("warcinfo: Content-Type %q", got)
	}
	r, err := info.Block().RawBytes()
	if err != nil {
		t.Fatal(err)
	}
	block, _ := io.ReadAll(r)
	for _, line := range []string{
		"software: polite/test\r\n",
		"format: WARC File Format 1.1\r\n",
		"conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n",
	} {
		if !bytes.Contains(block, []byte(line)) {
			t.Errorf("warcinfo block %q lacks %q", block, line)
		}
	}
}

// checkSeek reads rec again from its offset alone, as an index would.
func checkSeek(t *testing.T, path string, rec gowarc.Record) {
	t.Helper()
	rd, err := gowarc.NewWarcFileReader(path, rec.Offset, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	again, err := rd.Next()
	if err != nil {
		t.Fatalf("record at %d: %v", rec.Offset, err)
	}
	defer again.Close()
	if again.WarcRecord.RecordId() != rec.WarcRecord.RecordId() {
		t.Errorf("record at %d is %s, want %s", rec.Offset, again.WarcRecord.RecordId(), rec.WarcRecord.RecordId())
	}
}

func checkRequest(t *testing.T, req gowarc.WarcRecord, r *polite.Result) {
	t.Helper()
	if got := req.WarcHeader().Get(gowarc.ContentType); got != "application/http;msgtype=request" {
		t.Errorf("request %s: Content-Type %q", r.FinalURL, got)
	}
	b, ok := req.Block().(gowarc.HttpRequestBlock)
	if !ok {
		t.Fatalf("request %s: block %T", r.FinalURL, req.Block())
	}
	head := string(b.ProtocolHeaderBytes())
	parsed, err := http.ReadRequest(bufio.NewReader(strings.NewReader(head)))
	if err != nil {
		t.Fatalf("request %s: %v in %q", r.FinalURL, err, head)
	}
	u := parsed.URL
	u.Scheme, u.Host = "https", parsed.Host
	if parsed.Method != "GET" || u.String() != r.FinalURL {
		t.Errorf("request %s: %s %s (Host %s)", r.FinalURL, parsed.Method, parsed.RequestURI, parsed.Host)
	}
	for k := range r.Request {
		if got := parsed.Header.Get(k); got != r.Request.Get(k) {
			t.Errorf("request %s: %s %q, want %q", r.FinalURL, k, got, r.Request.Get(k))
		}
	}
	if len(parsed.Header) != len(r.Request) {
		t.Errorf("request %s: header %v, want %v", r.FinalURL, parsed.Header, r.Request)
	}
	if p := payload(t, b); len(p) != 0 {
		t.Errorf("request %s: body %q", r.FinalURL, p)
	}
}

func checkResponse(t *testing.T, resp gowarc.WarcRecord, r *polite.Result) {
	t.Helper()
	h := resp.WarcHeader()
	if resp.Type() != gowarc.Response {
		t.Fatalf("%s: a %s record, want response", r.FinalURL, resp.Type())
	}
	if got := h.Get(gowarc.ContentType); got != "application/http;msgtype=response" {
		t.Errorf("response %s: Content-Type %q", r.FinalURL, got)
	}
	b, ok := resp.Block().(gowarc.HttpResponseBlock)
	if !ok {
		t.Fatalf("response %s: block %T", r.FinalURL, resp.Block())
	}
	if b.HttpStatusCode() != r.Status {
		t.Errorf("response %s: status %d (%q), want %d", r.FinalURL, b.HttpStatusCode(), b.HttpStatusLine(), r.Status)
	}
	for k := range r.Header {
		if got := b.HttpHeader().Get(k); got != r.Header.Get(k) {
			t.Errorf("response %s: %s %q, want %q", r.FinalURL, k, got, r.Header.Get(k))
		}
	}
	if p := payload(t, b); !bytes.Equal(p, r.Body) {
		t.Errorf("response %s: payload %q, want %q", r.FinalURL, p, r.Body)
	}
	if got, want := h.Get(gowarc.WarcPayloadDigest), sha1Base32(r.Body); got != want {
		t.Errorf("response %s: WARC-Payload-Digest %q, want %q", r.FinalURL, got, want)
	}
	trunc := map[string]string{ // by FinalURL: why the payload is not the whole body
		"https://example.com:8443/big.bin": "length",
		"https://example.com/cut":          "disconnect",
		"https://example.com/img.png":      "unspecified",
	}[r.FinalURL]
	if got := h.Get(gowarc.WarcTruncated); got != trunc {
		t.Errorf("response %s: WARC-Truncated %q, want %q", r.FinalURL, got, trunc)
	}
}

func checkRevisit(t *testing.T, rev gowarc.WarcRecord, r *polite.Result) {
	t.Helper()
	if rev.Type() != gowarc.Revisit {
		t.Fatalf("%s: a %s record, want revisit", r.FinalURL, rev.Type())
	}
	ref, err := rev.RevisitRef()
	if err != nil {
		t.Fatal(err)
	}
	if ref.Profile != gowarc.ProfileServerNotModifiedV1_1 || ref.TargetUri != r.FinalURL || ref.TargetRecordId != "" {
		t.Errorf("revisit %s: %+v", r.FinalURL, ref)
	}
	if date, err := time.Parse(time.RFC3339, ref.TargetDate); err != nil || !date.Equal(r.CopyFetched.Truncate(time.Microsecond)) {
		t.Errorf("revisit %s: WARC-Refers-To-Date %q, want %v", r.FinalURL, ref.TargetDate, r.CopyFetched.UTC())
	}
	if got := rev.WarcHeader().Get(gowarc.WarcTruncated); got != "" {
		t.Errorf("revisit %s: WARC-Truncated %q", r.FinalURL, got)
	}
	b, ok := rev.Block().(gowarc.ProtocolHeaderBlock)
	if !ok {
		t.Fatalf("revisit %s: block %T", r.FinalURL, rev.Block())
	}
	head := b.ProtocolHeaderBytes()
	if n, _ := rev.ContentLength(); n != int64(len(head)) {
		t.Errorf("revisit %s: Content-Length %d, block %q", r.FinalURL, n, head)
	}
	parsed, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(head)), nil)
	if err != nil {
		t.Fatalf("revisit %s: %v in %q", r.FinalURL, err, head)
	}
	if parsed.StatusCode != http.StatusNotModified {
		t.Errorf("revisit %s: status %q, want 304", r.FinalURL, parsed.Status)
	}
	for k := range r.NotModifiedHeader {
		if got := parsed.Header.Get(k); got != r.NotModifiedHeader.Get(k) {
			t.Errorf("revisit %s: %s %q, want the 304's %q", r.FinalURL, k, got, r.NotModifiedHeader.Get(k))
		}
	}
	if parsed.Header.Get("Content-Type") != "" {
		t.Errorf("revisit %s: header %v holds the stored copy's", r.FinalURL, parsed.Header)
	}
}

// An archive that was given nothing with a response is its warcinfo.
func TestArchiveNothingToWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.warc.gz")
	writeArchive(t, path, archiveResults()[6:])
	recs := readArchive(t, path)
	if len(recs) != 1 || recs[0].WarcRecord.Type() != gowarc.Warcinfo {
		t.Fatalf("%d records, want the warcinfo alone", len(recs))
	}
}

func TestArchiveUnwritablePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no-such-dir", "crawl.warc")
	a, err := createArchive(path, "polite/test")
	if err == nil {
		a.Close()
		t.Fatal("createArchive in a missing directory: no error")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}
}

// A file that takes no bytes fails the archive at once: the warcinfo is
// flushed before createArchive returns.
func TestArchiveWriteError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	a, err := createArchive("/dev/full", "polite/test")
	if err == nil {
		a.Close()
		t.Fatal("createArchive on /dev/full: no error")
	}
	if !strings.Contains(err.Error(), "/dev/full") || !strings.Contains(err.Error(), "no space") {
		t.Errorf("error %q, want /dev/full's no space", err)
	}
}

func TestArchiveAddAfterClose(t *testing.T) {
	a, err := createArchive(filepath.Join(t.TempDir(), "crawl.warc"), "polite/test")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.add(archiveResults()[0]); !errors.Is(err, errArchiveClosed) {
		t.Errorf("add after Close: %v, want errArchiveClosed", err)
	}
	if err := a.Close(); !errors.Is(err, errArchiveClosed) {
		t.Errorf("second Close: %v, want errArchiveClosed", err)
	}
}

// Adds from many goroutines keep each exchange's records together.
func TestArchiveConcurrentAdds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.warc")
	a, err := createArchive(path, "polite/test")
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	errs := make(chan error, n)
	for i := range n {
		go func() {
			r := archiveResults()[i%4]
			errs <- a.add(r)
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readArchive(t, path)
	if len(recs) != 1+2*n {
		t.Fatalf("%d records, want %d", len(recs), 1+2*n)
	}
	for i := 1; i < len(recs); i += 2 {
		req, resp := recs[i].WarcRecord, recs[i+1].WarcRecord
		if req.Type() != gowarc.Request || req.WarcHeader().GetId(gowarc.WarcConcurrentTo) != resp.RecordId() {
			t.Errorf("records %d, %d: a %s then a %s not linked to it", i, i+1, req.Type(), resp.Type())
		}
	}
}
