package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/politecrawler/polite/politetest"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

// R8.4: get -json names each HTML page's title, decoded, and its charset
// by WHATWG's name, wherever the page declared it.
func TestGetTitleAndCharset(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	cyrillic, _ := charmap.Windows1251.NewEncoder().String("<title>Новости дня</title><p>текст")
	japaneseMeta, _ := japanese.ShiftJIS.NewEncoder().String(`<meta charset="x-sjis"><title>日本語のページ</title>`)
	pages := map[string]struct {
		page           politetest.Page
		title, charset string
	}{
		"/ru": {politetest.Page{Body: []byte(cyrillic), Header: http.Header{"Content-Type": {"text/html; charset=windows-1251"}}}, "Новости дня", "windows-1251"},
		"/ja": {politetest.Page{Body: []byte(japaneseMeta), Header: http.Header{"Content-Type": {"text/html"}}}, "日本語のページ", "shift_jis"},
		"/pl": {politetest.Page{Body: []byte("<meta http-equiv=Content-Type content='text/html; charset=iso8859-2'><title>\xa3\xf3d\xbc</title>"),
			Header: http.Header{"Content-Type": {"text/html"}}}, "Łódź", "iso-8859-2"},
		"/none": {politetest.Page{Body: []byte("<p>no title"), Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}}, "", "utf-8"},
		"/amp":  {politetest.Page{Body: []byte("<title>Q &amp; A &lt;3</title>"), Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}}, "Q & A <3", "utf-8"},
	}
	var urls []string
	want := map[string]string{}
	for path, p := range pages {
		u := addrSite(t, fm, politetest.Site{Pages: map[string]politetest.Page{path: p.page}}) + path
		urls = append(urls, u)
		want[u] = p.title + "|" + p.charset
	}
	r := runCmd(t, "", append([]string{"get", "-json", "-allow-private"}, urls...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var j struct {
			URL     string  `json:"url"`
			Title   *string `json:"title"`
			Charset string  `json:"charset"`
		}
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatalf("not a JSON line: %q: %v", l, err)
		}
		if j.Title == nil {
			t.Errorf("%s: no title field: %s", j.URL, l)
			continue
		}
		if got := *j.Title + "|" + j.Charset; got != want[j.URL] {
			t.Errorf("%s: title|charset %q, want %q", j.URL, got, want[j.URL])
		}
		delete(want, j.URL)
	}
	if len(want) != 0 {
		t.Errorf("no line for %v", want)
	}
	if !strings.Contains(r.stdout, `"title":"Q & A <3"`) {
		t.Errorf("a title's & and < are escaped:\n%s", r.stdout)
	}
}
