package polite

import (
	"net/url"
	"sync"

	"github.com/politecrawler/polite/internal/htmlpass"
)

// lazyPage is the HTML pass over a page (text, title, links, meta), made
// once, when first needed: at once for a page with a meta tag, whose
// content signals need it (readPage), and otherwise the first time a
// caller asks, through Result.Links or Result.TextForAI. A caller that
// only keeps the bodies of such pages pays for no pass.
type lazyPage struct {
	once sync.Once
	body []byte   // the page's bytes, until the pass
	url  *url.URL // what relative links resolve against
	page htmlpass.Page
}

func newLazyPage(body []byte, u *url.URL) *lazyPage {
	return &lazyPage{body: body, url: u}
}

// get makes the pass once and returns it; nil for no page. It is safe
// for concurrent use.
func (p *lazyPage) get() *htmlpass.Page {
	if p == nil {
		return nil
	}
	p.once.Do(func() {
		p.page = htmlpass.Parse(p.body, p.url)
		p.body, p.url = nil, nil
	})
	return &p.page
}
