// Package sitemap reads sitemaps (sitemaps.org protocol 0.9): <urlset>,
// <sitemapindex>, plain-text lists, gzip-compressed or not.
//
// Parse takes a body as fetched and returns its locations in document
// order. It streams: a file is read once, within the protocol's caps of
// MaxURLs locations and MaxBytes uncompressed bytes, and what lies past a
// cap is not read at all.
package sitemap

import (
	"bufio"
	"errors"
	"fmt"
)

const (
	// MaxURLs is the protocol's cap of locations per file.
	MaxURLs = 50000
	// MaxBytes is the protocol's cap of uncompressed bytes per file
	// (52,428,800).
	MaxBytes = 50 << 20
)

// ErrNotSitemap says the body is XML whose root is neither <urlset> nor
// <sitemapindex> (an HTML page, a feed), or XML unreadable before its root.
var ErrNotSitemap = errors.New("sitemap: not a sitemap")

// Kind is the format of a sitemap file.
type Kind int

const (
	URLSet Kind = iota + 1 // <urlset>: pages
	Index                  // <sitemapindex>: child sitemaps
	Text                   // one URL per line
)

// String returns "urlset", "sitemapindex" or "text".
func (k Kind) String() string {
	switch k {
	case URLSet:
		return "urlset"
	case Index:
		return "sitemapindex"
	case Text:
		return "text"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// File is one parsed sitemap.
type File struct {
	Kind Kind
	// Locs are the <loc> values in document order (pages for URLSet and
	// Text, child sitemaps for Index), whitespace trimmed, empty ones
	// dropped; at most MaxURLs. XML locs are kept as written: check them
	// as any URL from outside.
	Locs []string
	// Truncated: the file went past MaxURLs locations or MaxBytes
	// uncompressed bytes; Locs holds what came before the cap.
	Truncated bool
}

// Parse reads one sitemap body as fetched.
//
// A body that begins with gzip's magic bytes (0x1f 0x8b) is decompressed,
// whatever its Content-Type said; at most MaxBytes of the uncompressed data
// are read, so a gzip bomb stops there, Truncated. A UTF-8 BOM is dropped.
//
// A body whose first byte past white space is '<' is XML, told apart by
// its root element: <urlset> (URLSet) counts each <url><loc>,
// <sitemapindex> (Index) each <sitemap><loc>, where url, sitemap and loc
// are in the root's namespace or in none; extension elements such as
// <image:loc> do not count. Any other root, or XML unreadable before
// its root, is ErrNotSitemap. Only UTF-8 (and US-ASCII) is read, as the
// protocol asks: another declared charset is an error, not ErrNotSitemap.
//
// Any other body is the text format: one URL per line, lines trimmed,
// blank lines skipped, and a line that is not an absolute http or https
// URL (or is over 8 KiB) skipped. A body that holds no URL is an empty Text file, not an
// error.
//
// A corrupt gzip stream, XML malformed past its root, or a megabyte of XML
// without markup returns the File with the locations read before the
// fault and a non-nil error: a crawler may use what was read, or not. The
// cut a cap makes is no fault: the File is Truncated and the error nil.
func Parse(body []byte) (File, error) {
	in, err := open(body)
	if err != nil {
		return File{}, err
	}
	r := bufio.NewReaderSize(in, 64<<10)
	var f File
	if startsXML(r) {
		f, err = readXML(r, in)
	} else {
		f, err = readText(r, in)
	}
	if in.err != nil { // the decoders saw it too, under their own words
		err = fmt.Errorf("sitemap: gzip: %w", in.err)
	}
	f.Truncated = f.Truncated || in.over
	return f, err
}

// startsXML drops a UTF-8 BOM and the white space after it, and reports
// whether what follows opens a tag.
func startsXML(r *bufio.Reader) bool {
	if bom, _ := r.Peek(3); string(bom) == "\xef\xbb\xbf" {
		r.Discard(3)
	}
	for {
		b, err := r.ReadByte()
		if err != nil {
			return false
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		r.UnreadByte()
		return b == '<'
	}
}
