package polite

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

// BenchmarkPageWork is what a worker does with a page once its body is
// read, on the farm's small default page: judge the response (R3.5), and
// make the HTML pass with the signals that apply (R7). The figures are
// those quoted with BenchmarkRequestCost in README.
//
//	go test -run '^$' -bench PageWork -benchmem .
func BenchmarkPageWork(b *testing.B) {
	const raw = "http://c0001.test:8080/page"
	body := []byte("<!doctype html>\n<html><head><title>c0001.test/page</title></head><body>\n" +
		"<h1>c0001.test/page</h1>\n<a href=\"/\">/</a>\n<a href=\"/page/1\">/page/1</a>\n" +
		"<a href=\"/page/2\">/page/2</a>\n<a href=\"/page/3\">/page/3</a>\n</body></html>\n")
	header := http.Header{
		"Content-Type": {"text/html; charset=utf-8"},
		"Date":         {time.Now().UTC().Format(http.TimeFormat)},
	}
	f, err := New(Config{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	u, err := url.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	t := &task{raw: raw}
	b.Run("classify", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			classifyAt(http.StatusOK, header, body, time.Now())
		}
	})
	b.Run("html+signals", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.readPage(t, &completion{task: t}, u, header, body)
		}
	})
}
