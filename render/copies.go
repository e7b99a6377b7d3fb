package render

import (
	"context"
	"errors"
	"sync"

	"github.com/politecrawler/polite"
)

// The pages of a site share their scripts and data: the Fetcher fetches a
// URL once a run (a second Fetch is ErrDuplicate), so the Renderer keeps
// what it fetched for one page and hands it to the next, up to
// maxCopyBytes of bodies. A URL being fetched for one page is waited for
// by another that asks for it meanwhile.

// maxCopyBytes bounds the bodies the Renderer keeps for later pages.
const maxCopyBytes = 64 << 20

// copies are the subrequests' Results the Renderer fetched, by URL.
type copies struct {
	mu    sync.Mutex
	byURL map[string]*copyEntry
	bytes int
}

type copyEntry struct {
	done chan struct{} // closed once res is set
	res  *polite.Result
	err  error
}

// fetch returns url's Result: the one fetched for an earlier page, or a
// Fetch of it now.
func (r *Renderer) fetch(ctx context.Context, url string) (*polite.Result, error) {
	c := &r.copies
	c.mu.Lock()
	if c.byURL == nil {
		c.byURL = make(map[string]*copyEntry)
	}
	if e, ok := c.byURL[url]; ok {
		c.mu.Unlock()
		select {
		case <-e.done:
			return e.res, e.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e := &copyEntry{done: make(chan struct{})}
	c.byURL[url] = e
	c.mu.Unlock()

	e.res, e.err = r.f.Fetch(ctx, url)
	c.mu.Lock()
	switch {
	case e.err != nil && !errors.Is(e.err, polite.ErrDuplicate):
		delete(c.byURL, url) // a render's ctx ended: a later page may ask again
	case e.res != nil && c.bytes+len(e.res.Body) > maxCopyBytes:
		delete(c.byURL, url) // kept for the pages waiting now, not later ones
	case e.res != nil:
		c.bytes += len(e.res.Body)
	}
	c.mu.Unlock()
	close(e.done)
	return e.res, e.err
}
