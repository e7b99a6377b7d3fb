package polite

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/politecrawler/polite/internal/schedule"
)

// isRedirect says whether a status is a redirect the fetcher follows
// when it has a Location (R8.3): 301, 302, 303, 307 and 308.
func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// redirectTarget resolves a redirect's Location against the URL that sent
// it and says whether the chain may go there, in the worker: the
// scheduler then follows it, each hop through admission again, its own
// host, budget and rest, its own checks (R8.3), or ends the chain with
// the reason. A chain ends at a loop, a sixth hop, or a target the
// fetcher may not fetch.
func (f *Fetcher) redirectTarget(t *schedule.Task, loc string) (target, name string, err error) {
	from := t.URL()
	if len(t.Hops()) >= MaxRedirects {
		return "", "", fmt.Errorf("%w: %s redirected more than %d times", ErrTooManyRedirects, t.Raw(), MaxRedirects)
	}
	base, err := url.Parse(from)
	if err != nil { // cannot happen: from was admitted
		return "", "", fmt.Errorf("%w: %q", ErrInvalidURL, from)
	}
	next, err := base.Parse(loc)
	if err != nil {
		return "", "", fmt.Errorf("%w: redirect from %s to %q: %v", ErrInvalidURL, from, loc, err)
	}
	next.Fragment, next.RawFragment = "", ""
	// The hop is admitted as Add admits a URL: normalised, and keyed on
	// the host of the URL it will request (R1.1), so a stopped host is
	// stopped under every spelling of its name, and a loop is seen
	// whatever the spelling of the URL it leads back to.
	target, name, err = checkURL(next.String(), f.set.allowPrivate)
	if err != nil {
		return "", "", fmt.Errorf("redirect from %s: %w", from, err)
	}
	loop := target == from
	for _, h := range t.Hops() {
		loop = loop || h.URL == target
	}
	if loop {
		return "", "", fmt.Errorf("%w: %s leads back to %s", ErrRedirectLoop, from, target)
	}
	return target, name, nil
}
