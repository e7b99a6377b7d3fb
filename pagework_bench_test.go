package polite

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// BenchmarkPageWork is what a worker does with a page once its body is
// read: judge the response (R3.5) and read the content signals that apply
// (R7), which for HTML means its meta tags. It runs on the farm's small
// default page, which has no meta tag, and on the same page with the
// head most pages have (charset, viewport, description, robots). The
// links are read only when a caller asks (Result.Links): "links" is that
// cost, paid in the caller's goroutine. The figures are those quoted with
// BenchmarkRequestCost in README.
//
//	go test -run '^$' -bench PageWork -benchmem .
func BenchmarkPageWork(b *testing.B) {
	const raw = "http://c0001.test:8080/page"
	farmPage := "<!doctype html>\n<html><head><title>c0001.test/page</title></head><body>\n" +
		"<h1>c0001.test/page</h1>\n<a href=\"/\">/</a>\n<a href=\"/page/1\">/page/1</a>\n" +
		"<a href=\"/page/2\">/page/2</a>\n<a href=\"/page/3\">/page/3</a>\n</body></html>\n"
	withMeta := strings.Replace(farmPage, "<head>", "<head><meta charset=\"utf-8\">\n"+
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"+
		"<meta name=\"description\" content=\"A page of the farm, with the head most pages have.\">\n"+
		"<meta name=\"robots\" content=\"index, follow\">\n", 1)
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
	t := newTask(raw)
	b.Run("classify", func(b *testing.B) {
		b.ReportAllocs()
		body := []byte(farmPage)
		for b.Loop() {
			classifyAt(http.StatusOK, header, body, time.Now())
		}
	})
	for _, page := range []struct{ name, body string }{{"farm-page", farmPage}, {"page-with-meta", withMeta}} {
		body := []byte(page.body)
		b.Run("signals/"+page.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.readPage(t, &completion{}, u, header, body)
			}
		})
		b.Run("links/"+page.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c := &completion{}
				f.readPage(t, c, u, header, body)
				if len(pageLinks(c.page.get(), c.signals)) != 4 {
					b.Fatal("the page has 4 links")
				}
			}
		})
	}
}
