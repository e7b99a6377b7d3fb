package sitemap

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxRun bounds the bytes between two '<'. The decoder holds a token whole:
// unbounded, 50 MiB of white space inside <urlset> (60 KB gzipped) would
// cost 128 MiB, where a sitemap's longest text is a loc of 2,048 bytes. A
// comment or CDATA section full of '<' still passes, up to MaxBytes.
const maxRun = 1 << 20

// readXML reads a <urlset> or a <sitemapindex> token by token: only the
// locs are kept.
func readXML(r io.Reader, in *capped) (File, error) {
	d := xml.NewDecoder(&runGuard{r: r})
	d.CharsetReader = utf8Only
	var (
		f      File
		root   xml.Name
		entry  string // "url" or "sitemap"
		depth  int    // of the element open now: 1 is the root
		inEnt  bool   // in an entry, a child of the root
		inLoc  bool   // in its loc, a child of the entry
		loc    []byte
		broken = func(err error) error { // err is the decoder's
			var se *xml.SyntaxError
			if in.over && errors.As(err, &se) && strings.HasPrefix(se.Msg, "unexpected EOF") {
				return nil // the cap cut it
			}
			if f.Kind == 0 && !errors.Is(err, errCharset) {
				return fmt.Errorf("%w: %w", ErrNotSitemap, err)
			}
			return fmt.Errorf("sitemap: %w", err)
		}
	)
	ours := func(n xml.Name) bool { return n.Space == "" || n.Space == root.Space }
	for {
		tok, err := d.Token()
		if err != nil {
			if err == io.EOF { // no root at all: comments, a prolog
				return f, fmt.Errorf("%w: no root element", ErrNotSitemap)
			}
			return f, broken(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 1:
				root = t.Name
				switch root.Local {
				case "urlset":
					f.Kind, entry = URLSet, "url"
				case "sitemapindex":
					f.Kind, entry = Index, "sitemap"
				default:
					return f, fmt.Errorf("%w: root element <%s>", ErrNotSitemap, root.Local)
				}
			case depth == 2:
				inEnt = t.Name.Local == entry && ours(t.Name)
			case depth == 3 && inEnt:
				inLoc = t.Name.Local == "loc" && ours(t.Name)
				loc = loc[:0]
			}
		case xml.CharData:
			if inLoc && depth == 3 {
				loc = append(loc, t...)
			}
		case xml.EndElement:
			if inLoc && depth == 3 {
				inLoc = false
				if s := strings.TrimSpace(string(loc)); s != "" {
					if len(f.Locs) == MaxURLs {
						f.Truncated = true
						return f, nil
					}
					f.Locs = append(f.Locs, s)
				}
			}
			depth--
			if depth == 0 { // past the root nothing counts; drain for gzip's checksum
				io.Copy(io.Discard, r)
				return f, nil
			}
		}
	}
}

// runGuard fails a read once more than maxRun bytes pass without a '<'.
type runGuard struct {
	r   io.Reader
	run int // bytes since the last '<'
}

func (g *runGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if i := bytes.LastIndexByte(p[:n], '<'); i >= 0 {
		g.run = n - 1 - i
	} else {
		g.run += n
	}
	if g.run > maxRun {
		return 0, fmt.Errorf("over %d bytes without markup", maxRun)
	}
	return n, err
}

// errCharset: a sitemap in another charset is still a sitemap, not read.
var errCharset = errors.New("only UTF-8 is read, as the protocol asks")

// utf8Only is the decoder's CharsetReader: the protocol asks for UTF-8,
// of which US-ASCII is a part; any other charset is refused, not guessed.
func utf8Only(charset string, input io.Reader) (io.Reader, error) {
	if strings.EqualFold(charset, "us-ascii") {
		return input, nil
	}
	return nil, errCharset
}
