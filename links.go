package polite

import (
	"github.com/politecrawler/polite/internal/htmlpass"
	"github.com/politecrawler/polite/internal/signals"
)

// Link is a link found on a page.
type Link struct {
	// URL is absolute, http or https, without fragment; relative links are
	// resolved against the page's URL and its <base href>.
	URL string
	// NoFollow is set when the site asks crawlers not to follow the link:
	// every link on the page carries rel="nofollow", or the page as a whole
	// says nofollow (robots meta, the crawler's own meta name, or
	// X-Robots-Tag).
	NoFollow bool
}

// Links returns the page's links, each once, in document order (at most
// 10,000): <a> and <area> href, and <link rel="alternate|next|prev">. It
// is nil for a result without an HTML page. A polite caller does not
// follow those marked NoFollow.
//
// A page without a meta tag is read the first time Links or TextForAI is
// called, from the bytes Body holds then: change Body's bytes only after
// that, or the links and text come from the changed bytes.
func (r *Result) Links() []Link {
	return pageLinks(r.page.get(), r.Signals)
}

// pageLinks is Links on its parts: the page's links, all NoFollow when the
// signals say nofollow for the page.
func pageLinks(page *htmlpass.Page, sig Signals) []Link {
	if page == nil || len(page.Links) == 0 {
		return nil
	}
	// The page's own robots meta counts even if the signals were read
	// without it.
	all := sig.NoFollow()
	for _, d := range signals.Directives(page.Meta["robots"], "", false) {
		all = all || d.Name == "nofollow" || d.Name == "none"
	}
	out := make([]Link, len(page.Links))
	for i, l := range page.Links {
		out[i] = Link{URL: l.URL, NoFollow: l.NoFollow || all}
	}
	return out
}
