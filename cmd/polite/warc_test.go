package main

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/politecrawler/polite"
)

var archiveStart = time.Date(2026, 12, 1, 9, 30, 15, 123456789, time.FixedZone("CET", 3600))

// archivePage is the page the archive's exchanges serve gzip-encoded,
// and again, identical, at another URL.
const archivePage = "<!doctype html><title>Page</title><p>Hello"

// archiveExchanges are one crawl's exchanges, one of each kind the
// archive tells apart, and the record type each answer gets.
func archiveExchanges(t *testing.T) ([]polite.Exchange, []string) {
	ua := http.Header{"User-Agent": {"polite-test/1.0 (+https://example.org/bot)"}, "Accept": {"text/html"}, "Accept-Encoding": {"gzip"}}
	addr := netip.MustParseAddrPort("192.0.2.10:443")
	at := func(i int) time.Time { return archiveStart.Add(time.Duration(i) * time.Second) }
	zipped := gzipped(t, archivePage)
	ex := []polite.Exchange{
		{ // a redirect hop
			URL: "http://example.com/a", Addr: netip.MustParseAddrPort("192.0.2.10:80"), Try: 1, RequestHeader: ua, Started: at(0),
			StatusLine: "HTTP/1.1 301 Moved Permanently", Status: 301,
			Header: http.Header{"Location": {"https://example.com/page?x=1"}, "Content-Length": {"0"}},
		},
		{ // where it led: a page sent gzip-encoded, stored so
			URL: "https://example.com/page?x=1", Addr: addr, Try: 1, Hop: 1, RequestHeader: ua, Started: at(1),
			StatusLine: "HTTP/1.1 200 OK", Status: 200,
			Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Etag": {`"v1"`}, "Content-Encoding": {"gzip"},
				"Content-Length": {fmt.Sprint(len(zipped))}},
			Body: zipped,
		},
		{
			URL: "https://example.com/missing", Addr: netip.MustParseAddrPort("[fe80::1%eth0]:443"), Try: 1, RequestHeader: ua, Started: at(2),
			StatusLine: "HTTP/1.1 404 Not Found", Status: 404, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("not found"),
		},
		{ // revalidated
			URL: "https://example.com/old", Addr: addr, Try: 1, Started: at(3),
			RequestHeader: http.Header{"User-Agent": {"polite-test/1.0"}, "If-None-Match": {`"v1"`}},
			StatusLine:    "HTTP/1.1 304 Not Modified", Status: 304,
			Header: http.Header{"Etag": {`"v1"`}, "Date": {"Tue, 01 Dec 2026 08:30:17 GMT"}}, CopyFetched: archiveStart.Add(-24 * time.Hour),
		},
		{
			URL: "https://example.com:8443/big.bin", Addr: netip.MustParseAddrPort("192.0.2.11:8443"), Try: 1, RequestHeader: ua, Started: at(4),
			StatusLine: "HTTP/1.1 200 OK", Status: 200,
			Header: http.Header{"Content-Type": {"application/octet-stream"}, "Content-Length": {"1000"}},
			Body:   []byte("0123456789"), Truncated: "length", Err: polite.ErrBodyTooLarge,
		},
		{ // the server announced more than it sent
			URL: "https://example.com/cut", Addr: addr, Try: 1, RequestHeader: ua, Started: at(5),
			StatusLine: "HTTP/1.1 200 OK", Status: 200, Header: http.Header{"Content-Type": {"text/html"}, "Content-Length": {"10000"}},
			Body: []byte("<p>the first part"), Truncated: "disconnect", Failed: true,
			Err: fmt.Errorf("%w: 17 of 10000 bytes", polite.ErrIncompleteBody),
		},
		{ // a type not read: the body was left unread
			URL: "https://example.com/img.png", Addr: addr, Try: 1, RequestHeader: ua, Started: at(6),
			StatusLine: "HTTP/1.1 200 OK", Status: 200, Header: http.Header{"Content-Type": {"image/png"}, "Content-Length": {"5000"}},
			Truncated: "unspecified", Err: &polite.ContentTypeError{URL: "https://example.com/img.png", Type: "image/png"},
		},
		{ // a failed try, tried again later
			URL: "https://example.com/busy", Addr: addr, Try: 1, RequestHeader: ua, Started: at(7),
			StatusLine: "HTTP/1.1 503 Service Unavailable", Status: 503, Header: http.Header{"Content-Type": {"text/plain"}},
			Body: []byte("busy"), Failed: true,
		},
		{ // no answer
			URL: "https://down.example/", Addr: netip.MustParseAddrPort("192.0.2.12:443"), Try: 2, RequestHeader: ua, Started: at(8),
			Failed: true, Err: errors.New("dial tcp: connection refused"),
		},
		{ // the page again, under another URL: the same payload
			URL: "https://example.com/copy", Addr: addr, Try: 1, RequestHeader: ua, Started: at(9),
			StatusLine: "HTTP/1.1 200 OK", Status: 200,
			Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Content-Encoding": {"gzip"}},
			Body:   zipped,
		},
		{ // sent chunked, stored de-chunked
			URL: "https://example.com/chunked", Addr: addr, Try: 1, RequestHeader: ua, Started: at(10),
			StatusLine: "HTTP/1.1 200 OK", Status: 200, Header: http.Header{"Content-Type": {"text/html"}},
			TransferEncoding: []string{"chunked"}, Body: []byte("<p>streamed"),
		},
	}
	answers := []string{"response", "response", "response", "revisit", "response", "response", "response", "metadata", "metadata", "revisit", "response"}
	return ex, answers
}

// writeArchive writes exchanges to a new archive at path.
func writeArchive(t *testing.T, path string, exchanges []polite.Exchange) *archive {
	t.Helper()
	a, err := createArchive(path, "polite/test")
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range exchanges {
		a.Record(ex)
	}
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return a
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

// Every exchange is a request record and the record of its answer
// (warcexchange.go), read back strictly by gowarc, each seekable by its
// offset, each named in the index at that offset.
func TestArchiveRoundTrip(t *testing.T) {
	for _, name := range []string{"crawl.warc", "crawl.warc.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			exchanges, answers := archiveExchanges(t)
			a := writeArchive(t, path, exchanges)

			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			gz := strings.HasSuffix(name, ".gz")
			if isGzip := bytes.HasPrefix(raw, []byte{0x1f, 0x8b}); isGzip != gz {
				t.Fatalf("file starts with gzip magic: %v, want %v", isGzip, gz)
			}

			recs := readArchive(t, path)
			var types, want []string
			for _, rec := range recs {
				types = append(types, rec.WarcRecord.Type().String())
			}
			want = append(want, "warcinfo")
			for _, answer := range answers {
				want = append(want, "request", answer)
			}
			if got := strings.Join(types, " "); got != strings.Join(want, " ") {
				t.Fatalf("record types\n got %s\nwant %s", got, strings.Join(want, " "))
			}

			info := recs[0].WarcRecord
			checkWarcinfo(t, info, name)
			offsets := map[int64]string{}
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
				offsets[rec.Offset] = rec.WarcRecord.RecordId()
			}
			checkIndex(t, a, recs, offsets)

			for i, ex := range exchanges {
				req, answer := recs[1+2*i].WarcRecord, recs[2+2*i].WarcRecord
				for _, rec := range []gowarc.WarcRecord{req, answer} {
					h := rec.WarcHeader()
					if got := h.Get(gowarc.WarcTargetURI); got != ex.URL {
						t.Errorf("%s %s: WARC-Target-URI %q", rec.Type(), ex.URL, got)
					}
					date, err := rec.Date()
					if err != nil || !date.Equal(ex.Started.Truncate(time.Microsecond)) {
						t.Errorf("%s %s: WARC-Date %q (%v), want %v", rec.Type(), ex.URL, h.Get(gowarc.WarcDate), err, ex.Started.UTC())
					}
					if got, want := h.Get(gowarc.WarcIPAddress), ex.Addr.Addr().WithZone("").String(); got != want {
						t.Errorf("%s %s: WARC-IP-Address %q, want %q", rec.Type(), ex.URL, got, want)
					}
				}
				if got := req.WarcHeader().GetAll(gowarc.WarcConcurrentTo); len(got) != 1 || got[0] != "<"+answer.RecordId()+">" {
					t.Errorf("request %s: WARC-Concurrent-To %q, want <%s>", ex.URL, got, answer.RecordId())
				}
				if got := answer.WarcHeader().GetAll(gowarc.WarcConcurrentTo); len(got) != 1 || got[0] != "<"+req.RecordId()+">" {
					t.Errorf("%s %s: WARC-Concurrent-To %q, want <%s>", answer.Type(), ex.URL, got, req.RecordId())
				}
				checkRequest(t, req, ex)
				switch answers[i] {
				case "metadata":
					checkNote(t, answer, ex)
				case "revisit":
					checkRevisit(t, answer, ex, recs[4].WarcRecord)
				default:
					checkResponse(t, answer, ex)
				}
			}
		})
	}
}

// checkIndex checks the archive's CDXJ: a line for each response and
// revisit record, sorted, each at a record's offset.
func checkIndex(t *testing.T, a *archive, recs []gowarc.Record, offsets map[int64]string) {
	t.Helper()
	var b bytes.Buffer
	if err := a.writeCDXJ(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := 0
	for _, rec := range recs {
		if tp := rec.WarcRecord.Type(); tp == gowarc.Response || tp == gowarc.Revisit {
			want++
		}
	}
	if len(lines) != want || !slices.IsSorted(lines) {
		t.Fatalf("index: %d lines (sorted: %v), want %d:\n%s", len(lines), slices.IsSorted(lines), want, b.String())
	}
	for _, l := range lines {
		key, rest, _ := strings.Cut(l, " ")
		ts, js, _ := strings.Cut(rest, " ")
		var f cdxFields
		if err := json.Unmarshal([]byte(js), &f); err != nil {
			t.Fatalf("index line %q: %v", l, err)
		}
		off, _ := strconv.ParseInt(f.Offset, 10, 64)
		if _, ok := offsets[off]; !ok || key != surt(f.URL) || len(ts) != 14 || f.Filename != filepath.Base(a.path) {
			t.Errorf("index line %q: no record at offset %s, or a wrong key", l, f.Offset)
		}
	}
}

func TestSURT(t *testing.T) {
	for in, want := range map[string]string{
		"https://www.Example.com/a/B?z=1&a=2": "com,example)/a/b?a=2&z=1",
		"http://127.20.0.1:8080/":             "1,0,20,127:8080)/",
		"http://example.com":                  "com,example)/",
		"urn:x":                               "urn:x",
	} {
		if got := surt(in); got != want {
			t.Errorf("surt(%q) = %q, want %q", in, got, want)
		}
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

func checkRequest(t *testing.T, req gowarc.WarcRecord, ex polite.Exchange) {
	t.Helper()
	if got := req.WarcHeader().Get(gowarc.ContentType); got != "application/http;msgtype=request" {
		t.Errorf("request %s: Content-Type %q", ex.URL, got)
	}
	b, ok := req.Block().(gowarc.HttpRequestBlock)
	if !ok {
		t.Fatalf("request %s: block %T", ex.URL, req.Block())
	}
	head := string(b.ProtocolHeaderBytes())
	parsed, err := http.ReadRequest(bufio.NewReader(strings.NewReader(head)))
	if err != nil {
		t.Fatalf("request %s: %v in %q", ex.URL, err, head)
	}
	u := parsed.URL
	u.Scheme, u.Host = strings.SplitN(ex.URL, ":", 2)[0], parsed.Host
	if parsed.Method != "GET" || u.String() != ex.URL {
		t.Errorf("request %s: %s %s (Host %s)", ex.URL, parsed.Method, parsed.RequestURI, parsed.Host)
	}
	for k := range ex.RequestHeader {
		if got := parsed.Header.Get(k); got != ex.RequestHeader.Get(k) {
			t.Errorf("request %s: %s %q, want %q", ex.URL, k, got, ex.RequestHeader.Get(k))
		}
	}
	if len(parsed.Header) != len(ex.RequestHeader) {
		t.Errorf("request %s: header %v, want %v", ex.URL, parsed.Header, ex.RequestHeader)
	}
	if p := payload(t, b); len(p) != 0 {
		t.Errorf("request %s: body %q", ex.URL, p)
	}
}

func checkResponse(t *testing.T, resp gowarc.WarcRecord, ex polite.Exchange) {
	t.Helper()
	h := resp.WarcHeader()
	if resp.Type() != gowarc.Response {
		t.Fatalf("%s: a %s record, want response", ex.URL, resp.Type())
	}
	if got := h.Get(gowarc.ContentType); got != "application/http;msgtype=response" {
		t.Errorf("response %s: Content-Type %q", ex.URL, got)
	}
	b, ok := resp.Block().(gowarc.HttpResponseBlock)
	if !ok {
		t.Fatalf("response %s: block %T", ex.URL, resp.Block())
	}
	if b.HttpStatusCode() != ex.Status || b.HttpStatusLine() != ex.StatusLine[len("HTTP/1.1 "):] && b.HttpStatusLine() != ex.StatusLine {
		t.Errorf("response %s: status %d (%q), want %q", ex.URL, b.HttpStatusCode(), b.HttpStatusLine(), ex.StatusLine)
	}
	for k := range ex.Header {
		if got := b.HttpHeader().Get(k); got != ex.Header.Get(k) {
			t.Errorf("response %s: %s %q, want %q", ex.URL, k, got, ex.Header.Get(k))
		}
	}
	if len(ex.TransferEncoding) > 0 { // stored de-chunked, and said so
		if got := b.HttpHeader().Get("X-Archive-Orig-Transfer-Encoding"); got != "chunked" || b.HttpHeader().Get("Transfer-Encoding") != "" ||
			b.HttpHeader().Get("Content-Length") != fmt.Sprint(len(ex.Body)) {
			t.Errorf("response %s: header %v, want it to say the body is de-chunked", ex.URL, b.HttpHeader())
		}
	}
	if p := payload(t, b); !bytes.Equal(p, ex.Body) {
		t.Errorf("response %s: payload %q, want %q", ex.URL, p, ex.Body)
	}
	if got, want := h.Get(gowarc.WarcPayloadDigest), sha1Base32(ex.Body); got != want {
		t.Errorf("response %s: WARC-Payload-Digest %q, want %q", ex.URL, got, want)
	}
	if got := h.Get(gowarc.WarcTruncated); got != ex.Truncated {
		t.Errorf("response %s: WARC-Truncated %q, want %q", ex.URL, got, ex.Truncated)
	}
}

// checkRevisit checks a 304's revisit record, or a copy's, which points
// at first, the response it repeats.
func checkRevisit(t *testing.T, rev gowarc.WarcRecord, ex polite.Exchange, first gowarc.WarcRecord) {
	t.Helper()
	if rev.Type() != gowarc.Revisit {
		t.Fatalf("%s: a %s record, want revisit", ex.URL, rev.Type())
	}
	ref, err := rev.RevisitRef()
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status == http.StatusNotModified {
		if ref.Profile != gowarc.ProfileServerNotModifiedV1_1 || ref.TargetUri != ex.URL || ref.TargetRecordId != "" {
			t.Errorf("revisit %s: %+v", ex.URL, ref)
		}
		if date, err := time.Parse(time.RFC3339, ref.TargetDate); err != nil || !date.Equal(ex.CopyFetched.Truncate(time.Microsecond)) {
			t.Errorf("revisit %s: WARC-Refers-To-Date %q, want %v", ex.URL, ref.TargetDate, ex.CopyFetched.UTC())
		}
	} else {
		date, _ := first.Date()
		if ref.Profile != gowarc.ProfileIdenticalPayloadDigestV1_1 || ref.TargetRecordId != first.RecordId() ||
			ref.TargetUri != first.WarcHeader().Get(gowarc.WarcTargetURI) || ref.TargetDate != date.Format(time.RFC3339Nano) {
			t.Errorf("revisit %s: %+v, want it to point at %s", ex.URL, ref, first.RecordId())
		}
		if got, want := rev.WarcHeader().Get(gowarc.WarcPayloadDigest), first.WarcHeader().Get(gowarc.WarcPayloadDigest); got != want || got != sha1Base32(ex.Body) {
			t.Errorf("revisit %s: WARC-Payload-Digest %q, want the original's %q", ex.URL, got, want)
		}
	}
	if got := rev.WarcHeader().Get(gowarc.WarcTruncated); got != "" {
		t.Errorf("revisit %s: WARC-Truncated %q", ex.URL, got)
	}
	b, ok := rev.Block().(gowarc.ProtocolHeaderBlock)
	if !ok {
		t.Fatalf("revisit %s: block %T", ex.URL, rev.Block())
	}
	head := b.ProtocolHeaderBytes()
	if n, _ := rev.ContentLength(); n != int64(len(head)) {
		t.Errorf("revisit %s: Content-Length %d, block %q", ex.URL, n, head)
	}
	parsed, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(head)), nil)
	if err != nil {
		t.Fatalf("revisit %s: %v in %q", ex.URL, err, head)
	}
	if parsed.StatusCode != ex.Status {
		t.Errorf("revisit %s: status %q, want %d", ex.URL, parsed.Status, ex.Status)
	}
	for k := range ex.Header {
		if got := parsed.Header.Get(k); got != ex.Header.Get(k) {
			t.Errorf("revisit %s: %s %q, want %q", ex.URL, k, got, ex.Header.Get(k))
		}
	}
}

// checkNote checks the metadata record of a failed try.
func checkNote(t *testing.T, note gowarc.WarcRecord, ex polite.Exchange) {
	t.Helper()
	if got := note.WarcHeader().Get(gowarc.ContentType); got != gowarc.ApplicationWarcFields {
		t.Errorf("note %s: Content-Type %q", ex.URL, got)
	}
	r, err := note.Block().RawBytes()
	if err != nil {
		t.Fatal(err)
	}
	block, _ := io.ReadAll(r)
	want := fmt.Sprintf("try: %d\r\n", ex.Try)
	if ex.Status != 0 {
		want += "hop: 0\r\nfailed-with: " + ex.StatusLine
	} else {
		want += "hop: 0\r\nerror: " + ex.Err.Error()
	}
	if !strings.HasPrefix(string(block), want) {
		t.Errorf("note %s: %q, want it to open with %q", ex.URL, block, want)
	}
}

// An archive that was given nothing with a response is its warcinfo.
func TestArchiveNothingToWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.warc.gz")
	writeArchive(t, path, nil)
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

func TestArchiveRecordAfterClose(t *testing.T) {
	a, err := createArchive(filepath.Join(t.TempDir(), "crawl.warc"), "polite/test")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	ex, _ := archiveExchanges(t)
	a.Record(ex[0])
	if err := a.Err(); err != nil {
		t.Errorf("Err after Close and a Record: %v, want none (Close said so)", err)
	}
	if err := a.Close(); !errors.Is(err, errArchiveClosed) {
		t.Errorf("second Close: %v, want errArchiveClosed", err)
	}
}

// Records from many goroutines keep each exchange's records together.
func TestArchiveConcurrentRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.warc")
	a, err := createArchive(path, "polite/test")
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	exchanges, _ := archiveExchanges(t)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { a.Record(exchanges[i%4]) })
	}
	wg.Wait()
	if err := a.Err(); err != nil {
		t.Fatal(err)
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
