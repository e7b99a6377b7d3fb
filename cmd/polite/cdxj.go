package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nlnwa/gowarc/v3"

	"github.com/politecrawler/polite"
)

// cdxEntry is one line of a CDXJ index: a response or revisit record by
// its URL's SURT and date, and where it lies in the WARC.
type cdxEntry struct {
	key, timestamp string
	fields         cdxFields
}

// cdxFields are the JSON fields of a CDXJ line, as pywb's and
// ReplayWeb.page's indexers write them: numbers as strings.
type cdxFields struct {
	URL      string `json:"url"`
	Mime     string `json:"mime"`
	Status   string `json:"status"`
	Digest   string `json:"digest,omitempty"`
	Length   string `json:"length"`
	Offset   string `json:"offset"`
	Filename string `json:"filename"`
}

// indexLocked keeps the index entry of ex's answer record, written at
// where; metadata notes are not indexed (nothing replays them).
func (a *archive) indexLocked(ex polite.Exchange, answer gowarc.WarcRecord, where span) {
	t := answer.Type()
	if t != gowarc.Response && t != gowarc.Revisit {
		return
	}
	mt := "warc/revisit"
	if t == gowarc.Response {
		mt, _, _ = mime.ParseMediaType(ex.Header.Get("Content-Type"))
		if mt == "" {
			mt = "unk"
		}
	}
	a.index = append(a.index, cdxEntry{
		key:       surt(ex.URL),
		timestamp: warcDate(ex.Started).Format("20060102150405"),
		fields: cdxFields{
			URL: ex.URL, Mime: mt, Status: strconv.Itoa(ex.Status),
			Digest: answer.WarcHeader().Get(gowarc.WarcPayloadDigest),
			Length: strconv.FormatInt(where.length, 10), Offset: strconv.FormatInt(where.offset, 10),
			Filename: filepath.Base(a.path),
		},
	})
}

// writeCDXJ writes the index, sorted as CDXJ readers search it.
func (a *archive) writeCDXJ(w io.Writer) error {
	a.mu.Lock()
	lines := make([]string, 0, len(a.index))
	for _, e := range a.index {
		j, err := json.Marshal(e.fields)
		if err != nil {
			a.mu.Unlock()
			return err
		}
		lines = append(lines, e.key+" "+e.timestamp+" "+string(j))
	}
	a.mu.Unlock()
	slices.Sort(lines)
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		bw.WriteString(l + "\n")
	}
	return bw.Flush()
}

// saveCDXJ writes the index to path.
func (a *archive) saveCDXJ(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if err := a.writeCDXJ(f); err != nil {
		f.Close()
		return fmt.Errorf("index %s: %w", path, err)
	}
	return f.Close()
}

// cdxjBeside is where the CDXJ index of the WARC at path goes:
// crawl.warc.gz → crawl.cdxj.
func cdxjBeside(path string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(path, ".gz"), ".warc")
	return base + ".cdxj"
}

// leadingWWW is the host prefix a SURT drops.
var leadingWWW = regexp.MustCompile(`^www\d*\.`)

// surt is u's Sort-friendly URI Reordering Transform, as ReplayWeb.page
// computes it to look a URL up: lower case, host labels reversed and
// comma-joined (a leading www dropped), the port kept, ")", the path,
// the query's parameters sorted. A URL it cannot read is its own key.
func surt(u string) string {
	lower := strings.ToLower(u)
	if !strings.HasPrefix(lower, "http:") && !strings.HasPrefix(lower, "https:") {
		return u
	}
	p, err := url.Parse(lower)
	if err != nil {
		return u
	}
	labels := strings.Split(leadingWWW.ReplaceAllString(p.Hostname(), ""), ".")
	slices.Reverse(labels)
	key := strings.Join(labels, ",")
	if port := p.Port(); port != "" {
		key += ":" + port
	}
	path := p.EscapedPath()
	if path == "" {
		path = "/"
	}
	key += ")" + path
	if p.RawQuery != "" {
		params := strings.Split(p.RawQuery, "&")
		slices.Sort(params)
		key += "?" + strings.Join(params, "&")
	}
	return key
}
