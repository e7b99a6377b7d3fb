package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite/politetest"
	"golang.org/x/text/encoding/charmap"
)

// R8.4: crawl requests a windows-1251 page's links as chromium does (the
// path in UTF-8, the query in windows-1251) and prints them as a person
// reads them.
func TestCrawlLegacyPageLinks(t *testing.T) {
	t.Parallel()
	fm := politetest.Start(t)
	page, _ := charmap.Windows1251.NewEncoder().String(`<title>Главная</title>` +
		`<a href="/путь?q=слово">путь</a> <a href="/каталог/каталог/каталог/товар">каталог</a>`)
	base := addrSite(t, fm, politetest.Site{Pages: map[string]politetest.Page{
		"/":     {Body: []byte(page), Header: http.Header{"Content-Type": {"text/html; charset=windows-1251"}}},
		"/путь": {Body: []byte("<p>ok"), Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}},
	}})
	r := runCmd(t, "", "crawl", "-allow-private", base+"/")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := []string{politetest.RobotsPath, "/", "/%D0%BF%D1%83%D1%82%D1%8C?q=%F1%EB%EE%E2%EE"}
	if got := paths(fm, hostOf(base)); !slices.Equal(got, want) {
		t.Errorf("the site saw %q, want %q (chromium's requests)", got, want)
	}
	if !strings.Contains(r.stdout, "200 "+base+"/путь?q=%F1%EB%EE%E2%EE ") {
		t.Errorf("the page's line does not show its path as a person reads it:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "/каталог/каталог/каталог/товар") {
		t.Errorf("the trap's URL is not printed as a person reads it:\n%s", r.stdout)
	}
	if rep := fm.Audit().Report(politetest.AtLeast(3 * time.Second)); !rep.Polite() {
		t.Error(rep)
	}
}
