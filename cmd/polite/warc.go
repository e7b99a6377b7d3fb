package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nlnwa/gowarc/v3"
)

// archive writes a crawl's exchanges to one WARC 1.1 file, as the
// Fetcher's Recorder gives them (polite.Exchange): a warcinfo record
// first, then for each exchange a request record and the record of its
// answer, linked both ways by WARC-Concurrent-To (warcexchange.go says
// which record each answer gets). Every record carries the pinned address
// dialled (WARC-IP-Address) and the URL as sent (WARC-Target-URI).
//
// A path ending in .gz gets each record as its own gzip member, the WARC
// convention that lets a reader seek to any record; any other path is
// plain. Every record carries sha1 block digests (base32, what most WARC
// tools expect), and HTTP records their payload digests, over the payload
// as stored (still gzip when the server sent it so).
//
// The archive keeps an index entry (cdxj.go) for each response and
// revisit record, by offset, for a CDXJ index or a WACZ (wacz.go).
//
// An archive is safe for concurrent use; each exchange's records are
// written together and flushed, so a crawl cut short leaves whole
// records. The first error is kept: Record drops what comes after it,
// and Err and Close return it.
type archive struct {
	mu      sync.Mutex
	path    string
	file    *os.File
	written *countingWriter // the file's bytes so far, for offsets
	buf     *bufio.Writer
	gz      *gzip.Writer        // nil for a plain file
	infoID  string              // the warcinfo record's, which every record names
	err     error               // first failure, or errArchiveClosed
	seen    map[string]original // payload digest → the first whole 200 with it
	index   []cdxEntry          // the response and revisit records, in order
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
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
	a := &archive{path: path, file: f, written: &countingWriter{w: f}, seen: map[string]original{}}
	a.buf = bufio.NewWriter(a.written)
	if strings.HasSuffix(path, ".gz") {
		a.gz = gzip.NewWriter(nil)
	}

	building.Lock()
	info, err := a.warcinfo(software)
	building.Unlock()
	if err == nil {
		a.infoID = info.RecordId()
		_, err = a.write(info)
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

// write appends the records to the file (writeLocked).
func (a *archive) write(recs ...gowarc.WarcRecord) ([]span, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.writeLocked(recs...)
}

// span is where a record lies in the file, as an index points at it.
type span struct{ offset, length int64 }

// writeLocked appends the records to the file, each its own gzip member
// when compressed, flushes them, closes them, and says where each lies.
// After a failure the file ends in a partial record, so the error sticks.
func (a *archive) writeLocked(recs ...gowarc.WarcRecord) ([]span, error) {
	defer func() {
		for _, rec := range recs {
			rec.Close()
		}
	}()
	if a.err != nil {
		return nil, a.err
	}
	m := gowarc.NewMarshaler()
	spans := make([]span, 0, len(recs))
	for _, rec := range recs {
		at := a.written.n + int64(a.buf.Buffered())
		if a.gz == nil {
			_, _, a.err = m.Marshal(a.buf, rec, 0)
		} else {
			a.gz.Reset(a.buf)
			if _, _, a.err = m.Marshal(a.gz, rec, 0); a.err == nil {
				a.err = a.gz.Close()
			}
		}
		if a.err != nil {
			return nil, a.err
		}
		spans = append(spans, span{at, a.written.n + int64(a.buf.Buffered()) - at})
	}
	a.err = a.buf.Flush()
	return spans, a.err
}

// Err is the archive's first failure, nil while it has none.
func (a *archive) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err == nil || a.err == errArchiveClosed {
		return nil
	}
	return fmt.Errorf("archive %s: %w", a.path, a.err)
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

// warcDate is t as a WARC 1.1 date keeps it: UTC, to the microsecond,
// the finest most WARC readers parse.
func warcDate(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// oneLine keeps a field value to one line.
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }
