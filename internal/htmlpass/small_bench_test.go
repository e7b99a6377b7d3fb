package htmlpass

import "testing"

func BenchmarkSmallPage(b *testing.B) {
	body := []byte("<!doctype html>\n<html><head><title>c0001.test/page</title></head><body>\n<h1>c0001.test/page</h1>\n<a href=\"/\">/</a>\n<a href=\"/page/1\">/page/1</a>\n<a href=\"/page/2\">/page/2</a>\n<a href=\"/page/3\">/page/3</a>\n</body></html>\n")
	page := mustURL(b, "http://c0001.test:8080/page")
	b.ReportAllocs()
	for b.Loop() {
		Parse(body, "", page)
	}
}
