package polite

import (
	"fmt"
	"net/http"
	"net/url"
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

// follow turns a redirect into the task's next request. The new URL goes
// back through admission: its own host, its own budget and rest, its own
// checks (R8.3). A redirect that is not followed (a loop, a sixth hop, a
// target the fetcher may not fetch) ends the chain: the Result is that
// last response, with the reason, and Redirects holds only the hops
// followed before it.
func (s *scheduler) follow(t *task, r *Result) {
	from := t.url()
	loc := r.Header.Get("Location")
	target, name, err := s.redirectTarget(t, from, loc)
	if err != nil {
		r.Err = err
		s.finish(t, r)
		return
	}
	if t.rare == nil {
		t.rare = &taskRare{}
	}
	t.rare.hops = append(t.rare.hops, Hop{
		URL: from, Status: r.Status, Location: loc,
		Addr: r.Addr, Started: r.Started, Duration: r.Duration, Rest: r.Rest,
	})
	t.setURL(target)
	t.rare.retries = 0   // a new URL: its own tries (R11.3)
	if t.robots == nil { // and its own stored copy (R6.1)
		t.rare.copy, t.rare.haveCopy = copyUnknown, false
		t.rare.ifNoneMatch, t.rare.ifModifiedSince = "", ""
	}
	t.rules = nil // and its own origin's signals, if it has any (R7.1)
	if e := s.trapped(t, name); e != nil {
		s.dropTrap(t, e)
		return
	}
	s.admit(t, name)
}

// redirectTarget resolves a Location against the URL that sent it and
// says whether the chain may go there.
func (s *scheduler) redirectTarget(t *task, from, loc string) (target, name string, err error) {
	if s.closing {
		return "", "", ErrClosed
	}
	if len(t.hops()) >= MaxRedirects {
		return "", "", fmt.Errorf("%w: %s redirected more than %d times", ErrTooManyRedirects, t.raw, MaxRedirects)
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
	target, name, err = checkURL(next.String(), s.f.set.allowPrivate)
	if err != nil {
		return "", "", fmt.Errorf("redirect from %s: %w", from, err)
	}
	loop := target == from
	for _, h := range t.hops() {
		loop = loop || h.URL == target
	}
	if loop {
		return "", "", fmt.Errorf("%w: %s leads back to %s", ErrRedirectLoop, from, target)
	}
	return target, name, nil
}
