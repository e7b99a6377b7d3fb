package polite_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"strings"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// printExchanges is a Recorder that prints what each exchange was on the
// wire.
type printExchanges struct{}

func (printExchanges) Record(e polite.Exchange) {
	path := e.URL[strings.LastIndex(e.URL, "/"):]
	fmt.Printf("%s try %d: %s, Content-Encoding %q, %d bytes as sent\n",
		path, e.Try, e.StatusLine, e.Header.Get("Content-Encoding"), len(e.Body))
}

// A Recorder is given every exchange as it was on the wire — robots.txt
// first (R5.1), then the page — with the body still gzip as the server
// sent it, while the Result carries the page decoded.
func ExampleRecorder() {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte("<p>hello, archivist"))
	zw.Close()
	farm, cfg := farmOf(politetest.Site{Name: "archive.example", Pages: map[string]politetest.Page{
		"/page": {Body: zipped.Bytes(), Header: http.Header{"Content-Type": {"text/html"}, "Content-Encoding": {"gzip"}}},
	}})
	defer farm.Close()
	cfg.Recorder = printExchanges{}
	f := fetch(cfg, farm.URL("archive.example", "/page"))
	defer f.Close()
	for _, r := range readAll(f) {
		fmt.Printf("Result: %d, %q\n", r.Status, r.Body)
	}
	// Output:
	// /robots.txt try 1: HTTP/1.1 404 Not Found, Content-Encoding "", 19 bytes as sent
	// /page try 1: HTTP/1.1 200 OK, Content-Encoding "gzip", 43 bytes as sent
	// Result: 200, "<p>hello, archivist"
}
