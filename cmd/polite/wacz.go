package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/politecrawler/polite"
)

// output is what crawl -o writes: the Fetcher's Recorder, told of each
// Result as well (a WACZ lists its pages; seed is the index of r's seed
// among the crawl's, -1 for a page that is none), closed at the end of
// the crawl.
type output interface {
	polite.Recorder
	Err() error
	page(r *polite.Result, seed int)
	Close() error
}

// openOutput opens what path names: a WACZ for .wacz, else a WARC file,
// with its CDXJ index beside it when cdxj is set.
func openOutput(path, software string, cdxj bool) (output, error) {
	if strings.HasSuffix(path, ".wacz") {
		return createWACZ(path, software)
	}
	a, err := createArchive(path, software)
	if err != nil {
		return nil, err
	}
	w := &warcOut{archive: a}
	if cdxj {
		w.cdxj = cdxjBeside(path)
	}
	return w, nil
}

// warcOut is a WARC file and, when cdxj is set, its index written there
// at Close.
type warcOut struct {
	*archive
	cdxj string
}

func (w *warcOut) page(*polite.Result, int) {}

// Close closes the WARC, then writes its index.
func (w *warcOut) Close() error {
	err := w.archive.Close()
	if err == nil && w.cdxj != "" {
		err = w.archive.saveCDXJ(w.cdxj)
	}
	return err
}

// WACZ 1.1.1's fixed names (https://specs.webrecorder.net/wacz/1.1.1/).
const (
	waczVersion = "1.1.1"
	waczWARC    = "archive/data.warc.gz"
	waczIndex   = "indexes/index.cdxj"
	waczPages   = "pages/pages.jsonl"
)

// wacz is a WACZ being written: the crawl's WARC in a temporary directory
// beside path, and the pages seen; Close packages them into path (a zip:
// the WARC stored uncompressed, as the spec recommends, so a replay tool
// reads its records by range), then removes the directory.
type wacz struct {
	*archive
	path, dir, software string
	created             time.Time

	mu    sync.Mutex
	pages []waczPage
	// main is the page of the first seed that is one (mainPageURL), and
	// mainSeed that seed's index; -1 until one is seen.
	main     string
	mainSeed int
}

// waczPage is a line of pages.jsonl.
type waczPage struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	TS    string `json:"ts"`
	Title string `json:"title,omitempty"`
}

// createWACZ starts a WACZ at path.
func createWACZ(path, software string) (*wacz, error) {
	dir, err := os.MkdirTemp(filepath.Dir(path), ".wacz-")
	if err != nil {
		return nil, fmt.Errorf("wacz: %w", err)
	}
	a, err := createArchive(filepath.Join(dir, filepath.Base(waczWARC)), software)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &wacz{archive: a, path: path, dir: dir, software: software, created: time.Now(), mainSeed: -1}, nil
}

// page lists r in pages.jsonl when it is a page: an HTML 2xx with no
// error. The first seed's page is the main page.
func (w *wacz) page(r *polite.Result, seed int) {
	if r.Err != nil || r.Status < 200 || r.Status > 299 {
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "text/html" && mt != "application/xhtml+xml" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if seed >= 0 && (w.mainSeed < 0 || seed < w.mainSeed) {
		w.main, w.mainSeed = r.FinalURL, seed
	}
	w.pages = append(w.pages, waczPage{
		ID: fmt.Sprintf("page-%d", len(w.pages)+1), URL: r.FinalURL,
		TS: warcDate(r.Started).Format("2006-01-02T15:04:05.000000Z"),
	})
}

// Close finishes the WARC and writes the package.
func (w *wacz) Close() error {
	defer os.RemoveAll(w.dir)
	if err := w.archive.Close(); err != nil {
		return err
	}
	if err := w.write(); err != nil {
		return fmt.Errorf("wacz %s: %w", w.path, err)
	}
	return nil
}

// waczResource is an entry of datapackage.json's resources.
type waczResource struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Hash  string `json:"hash"`
	Bytes int64  `json:"bytes"`
}

// write builds the zip: the WARC, its CDXJ index, pages.jsonl, then
// datapackage.json (each file's sha256) and datapackage-digest.json
// (datapackage.json's).
func (w *wacz) write() error {
	f, err := os.Create(w.path)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	var resources []waczResource
	add := func(name string, method uint16, fill func(io.Writer) error) error {
		e, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: w.created})
		if err != nil {
			return err
		}
		h := sha256.New()
		n := &countingWriter{w: io.MultiWriter(e, h)}
		if err := fill(n); err != nil {
			return err
		}
		resources = append(resources, waczResource{Name: filepath.Base(name), Path: name,
			Hash: "sha256:" + hex.EncodeToString(h.Sum(nil)), Bytes: n.n})
		return nil
	}
	err = errors.Join(
		add(waczWARC, zip.Store, func(out io.Writer) error {
			in, err := os.Open(w.archive.path)
			if err != nil {
				return err
			}
			defer in.Close()
			_, err = io.Copy(out, in)
			return err
		}),
		add(waczIndex, zip.Deflate, w.archive.writeCDXJ),
		add(waczPages, zip.Deflate, w.writePages),
	)
	if err == nil {
		var pkg []byte
		if pkg, err = w.datapackage(resources); err == nil {
			err = w.digest(zw, pkg)
		}
	}
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writePages writes pages.jsonl: its header line, then a line a page.
func (w *wacz) writePages(out io.Writer) error {
	enc := json.NewEncoder(out)
	if err := enc.Encode(map[string]string{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.pages {
		if err := enc.Encode(p); err != nil {
			return err
		}
	}
	return nil
}

// datapackage is datapackage.json's content.
func (w *wacz) datapackage(resources []waczResource) ([]byte, error) {
	return json.MarshalIndent(map[string]any{
		"profile":      "data-package",
		"wacz_version": waczVersion,
		"title":        filepath.Base(w.path),
		"created":      w.created.UTC().Format(time.RFC3339),
		"software":     w.software,
		"mainPageURL":  w.mainPage(),
		"resources":    resources,
	}, "", "  ")
}

// mainPage is the first seed's page, else the first page listed; ""
// when there is none.
func (w *wacz) mainPage() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.main != "" || len(w.pages) == 0 {
		return w.main
	}
	return w.pages[0].URL
}

// digest writes datapackage.json and datapackage-digest.json, its hash.
func (w *wacz) digest(zw *zip.Writer, pkg []byte) error {
	sum := sha256.Sum256(pkg)
	dig, err := json.MarshalIndent(map[string]string{
		"path": "datapackage.json",
		"hash": "sha256:" + hex.EncodeToString(sum[:]),
	}, "", "  ")
	if err != nil {
		return err
	}
	for _, file := range []struct {
		name string
		b    []byte
	}{{"datapackage.json", pkg}, {"datapackage-digest.json", dig}} {
		e, err := zw.CreateHeader(&zip.FileHeader{Name: file.name, Method: zip.Deflate, Modified: w.created})
		if err != nil {
			return err
		}
		if _, err := io.Copy(e, bytes.NewReader(file.b)); err != nil {
			return err
		}
	}
	return nil
}
