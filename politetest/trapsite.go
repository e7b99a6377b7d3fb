package politetest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TrapPages are the trap site's pages worth having, on its main host
// traps.test: a crawl must fetch every one of them.
var TrapPages = []string{"/", "/about", "/blog/", "/blog/first-post", "/blog/second-post", "/contact"}

// AddTrapSite serves a small site, traps.test, whose links lead into every
// common crawler trap (R9), each trap on a host of its own so that they
// are crawled side by side: an endless calendar, a session id minted in
// every link, a relative link that deepens every path, and one listing
// under ever more page numbers. It returns the home page's URL.
func (fm *Farm) AddTrapSite() (string, error) {
	page := func(title string, links ...string) Page {
		var b strings.Builder
		b.WriteString("<!doctype html><html><head><title>" + title + "</title></head><body><h1>" + title + "</h1>\n")
		for _, l := range links {
			b.WriteString(`<a href="` + l + `">` + l + "</a>\n")
		}
		b.WriteString("</body></html>\n")
		return Page{Body: []byte(b.String())}
	}
	thisYear := fm.clk.Now().Year() // the farm's clock: a fake one in tests
	traps := []Site{
		// An endless calendar: every January links to the next year's.
		{Name: "calendar.traps.test", Default: func(path string) Page {
			y, _ := strconv.Atoi(strings.Split(strings.Trim(path, "/"), "/")[0])
			return page(fmt.Sprintf("Events in January %d", y), fmt.Sprintf("/%d/01/", y+1))
		}},
		// A session id in every link: each visit mints a new one.
		{Name: "shop.traps.test", Default: func(string) Page {
			return page("Shop", fmt.Sprintf("/;jsessionid=%X/item", time.Now().UnixNano()))
		}},
		// A relative link that makes every path one level deeper.
		{Name: "docs.traps.test", Default: func(string) Page { return page("Docs", "docs/") }},
		// One listing served under ever more page numbers.
		{Name: "archive.traps.test", Default: func(string) Page {
			return page("Archive", "?page=1", "?page=2", "?page=3", "?page=4", "?page=5", "?page=6", "?page=7", "?page=8")
		}},
	}
	for _, s := range traps {
		if _, err := fm.AddSite(s); err != nil {
			return "", err
		}
	}
	home := []string{
		fm.URL("calendar.traps.test", fmt.Sprintf("/%d/01/", thisYear)),
		fm.URL("shop.traps.test", "/"),
		fm.URL("docs.traps.test", "/docs/"),
		fm.URL("archive.traps.test", "/"),
	}
	main := Site{Name: "traps.test", Pages: map[string]Page{}}
	main.Pages["/"] = page("Home", append(home, TrapPages[1:]...)...)
	for _, p := range TrapPages[1:] {
		main.Pages[p] = page(strings.Trim(p, "/"), TrapPages...)
	}
	if _, err := fm.AddSite(main); err != nil {
		return "", err
	}
	return fm.URL("traps.test", "/"), nil
}
