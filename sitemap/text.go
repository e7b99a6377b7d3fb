package sitemap

import (
	"bufio"
	"bytes"
	"io"
	"net/url"
	"unicode/utf8"
)

// maxLine bounds a text line: a longer one is skipped unread, as no
// fetcher takes a URL that long (the protocol's bound is 2,048).
const maxLine = 8 << 10

// readText reads the text format, one URL per line. r has had its BOM
// dropped.
func readText(r *bufio.Reader, in *capped) (File, error) {
	f := File{Kind: Text}
	line := make([]byte, 0, 256)
	long := false // the line so far is over maxLine
	for {
		chunk, err := r.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > maxLine {
				long, line = true, line[:0]
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		whole := err == nil || err == io.EOF && !in.over // not cut by the cap or a fault
		if !long && whole {
			if s, ok := pageURL(line); ok {
				if len(f.Locs) == MaxURLs {
					f.Truncated = true
					return f, nil
				}
				f.Locs = append(f.Locs, s)
			}
		}
		line, long = line[:0], false
		if err == io.EOF {
			return f, nil
		}
		if err != nil {
			return f, err
		}
	}
}

// pageURL returns the trimmed line if it is an absolute http or https URL.
func pageURL(line []byte) (string, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || !utf8.Valid(line) || bytes.ContainsAny(line, " \t") {
		return "", false
	}
	s := string(line)
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	return s, true
}
