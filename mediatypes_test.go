package polite_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R8.1: images, video, fonts and PDFs are not downloaded unless opted in:
// the farm sees each response cut short. An opted-in type is read in full,
// and Accept asks for it.
func TestOnlyPagesAreRead(t *testing.T) {
	typed := func(ct string) politetest.Page {
		return politetest.Page{Size: mediaSize, Header: http.Header{"Content-Type": {ct}}}
	}
	t.Run("html only", func(t *testing.T) { htmlOnly(t, typed) })
	t.Run("opted in", func(t *testing.T) { optedIn(t, typed) })
}

const mediaSize = 16 << 20 // larger than loopback socket buffers: a cut shows

func htmlOnly(t *testing.T, typed func(string) politetest.Page) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "media.test", Pages: map[string]politetest.Page{
		"/photo.jpg":  typed("image/jpeg"),
		"/clip.mp4":   typed("video/mp4"),
		"/font.woff2": typed("font/woff2"),
		"/paper.pdf":  typed("application/pdf"),
		"/sniffed":    {Body: append([]byte("%PDF-1.7\n"), make([]byte, mediaSize)...)}, // no Content-Type: sniffed
		"/page.html":  typed("text/html; charset=utf-8"),
	}})
	r.start(polite.Config{AllowPrivateNetworks: true, MaxBodyBytes: 2 * mediaSize})
	paths := []string{"/photo.jpg", "/clip.mp4", "/font.woff2", "/paper.pdf", "/sniffed", "/page.html"}
	var urls []string
	for _, p := range paths {
		urls = append(urls, r.farm.URL(h, p))
	}
	r.add(urls...)
	res := r.results(len(urls))
	for _, p := range paths[:5] {
		got := res[r.farm.URL(h, p)]
		var te *polite.ContentTypeError
		if !errors.As(got.Err, &te) || !errors.Is(got.Err, polite.ErrContentType) || len(got.Body) != 0 {
			t.Errorf("%s: %v, %d bytes", p, got.Err, len(got.Body))
		}
	}
	if page := res[r.farm.URL(h, "/page.html")]; page.Err != nil || len(page.Body) != mediaSize {
		t.Errorf("page.html: %v, %d bytes", page.Err, len(page.Body))
	}
	for _, v := range pageVisits(r.farm.Audit().VisitsTo(h)) {
		full := v.Path == "/page.html"
		if v.Cut == full || (full && v.Written != mediaSize) {
			t.Errorf("%s: farm wrote %d bytes, cut %v", v.Path, v.Written, v.Cut)
		}
	}

}

// Opted in: PDFs are read whole, images by a wildcard; others still not.
func optedIn(t *testing.T, typed func(string) politetest.Page) {
	r2 := newFarmRig(t)
	h2 := r2.site(politetest.Site{Name: "docs.test", Pages: map[string]politetest.Page{
		"/paper.pdf": typed("application/pdf"),
		"/photo.jpg": typed("image/jpeg"),
		"/clip.mp4":  typed("video/mp4"),
	}})
	r2.start(polite.Config{AllowPrivateNetworks: true, MaxBodyBytes: 2 * mediaSize, Types: []string{"application/pdf", "image/*"}})
	pdf, jpg, mp4 := r2.farm.URL(h2, "/paper.pdf"), r2.farm.URL(h2, "/photo.jpg"), r2.farm.URL(h2, "/clip.mp4")
	r2.add(pdf, jpg, mp4)
	res := r2.results(3)
	if res[pdf].Err != nil || len(res[pdf].Body) != mediaSize || res[jpg].Err != nil || len(res[jpg].Body) != mediaSize {
		t.Errorf("opted in: pdf %v %d bytes, jpg %v %d bytes", res[pdf].Err, len(res[pdf].Body), res[jpg].Err, len(res[jpg].Body))
	}
	if !errors.Is(res[mp4].Err, polite.ErrContentType) {
		t.Errorf("video without opt-in: %v", res[mp4].Err)
	}
	for _, v := range pageVisits(r2.farm.Audit().VisitsTo(h2)) {
		if want := "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,image/*;q=0.8"; v.Header.Get("Accept") != want {
			t.Errorf("Accept %q, want %q", v.Header.Get("Accept"), want)
		}
	}
	if _, err := polite.New(polite.Config{Types: []string{"pdf"}}); !errors.Is(err, polite.ErrConfig) {
		t.Errorf("a malformed type: %v", err)
	}
}
