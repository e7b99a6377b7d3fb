package polite

import (
	"fmt"
	"net/http"
	"net/url"
)

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
// checks (R8.3). The chain is kept; a loop or a sixth hop ends it.
func (s *scheduler) follow(t *task, r *Result) {
	from := t.url()
	loc := r.Header.Get("Location")
	t.hops = append(t.hops, Hop{
		URL: from, Status: r.Status, Location: loc,
		Addr: r.Addr, Started: r.Started, Duration: r.Duration, Rest: r.Rest,
	})
	if s.closing {
		r.Err = ErrClosed
		s.finish(t, r)
		return
	}
	base, err := url.Parse(from)
	if err != nil { // cannot happen: from was admitted
		r.Err = fmt.Errorf("%w: %q", ErrInvalidURL, from)
		s.finish(t, r)
		return
	}
	next, err := base.Parse(loc)
	if err != nil {
		r.Err = fmt.Errorf("%w: redirect from %s to %q: %v", ErrInvalidURL, from, loc, err)
		s.finish(t, r)
		return
	}
	next.Fragment, next.RawFragment = "", ""
	target := next.String()
	if len(t.hops) > MaxRedirects {
		r.Err = fmt.Errorf("%w: %d redirects from %s", ErrTooManyRedirects, len(t.hops), t.raw)
		s.finish(t, r)
		return
	}
	for _, h := range t.hops {
		if h.URL == target {
			r.Err = fmt.Errorf("%w: %s leads back to %s", ErrRedirectLoop, from, target)
			s.finish(t, r)
			return
		}
	}
	name, err := checkURL(target, s.f.set.allowPrivate)
	if err != nil {
		r.Err = fmt.Errorf("redirect from %s: %w", from, err)
		s.finish(t, r)
		return
	}
	t.cur = target
	s.admit(t, name)
}
