package polite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// acceptHTML asks for web pages (R8.1).
const acceptHTML = "text/html,application/xhtml+xml;q=0.9"

// fetch makes one GET request for a task on its budget's pinned address
// and reads the body within the caps. It never follows a redirect itself.
func (f *Fetcher) fetch(t *task, b *budget) *completion {
	c := &completion{task: t, budget: b}
	ctx, cancel := context.WithTimeout(withPin(f.ctx, b.addr), f.set.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url(), nil)
	if err != nil {
		c.start = f.clk.Now()
		c.end = c.start
		c.err = fmt.Errorf("%w: %v", ErrInvalidURL, err)
		return c
	}
	// Only these headers, set here: no cookies, no Authorization (R8.2).
	req.Header.Set("User-Agent", f.ua)
	if from := f.set.ua.From(); from != "" {
		req.Header.Set("From", from)
	}
	req.Header.Set("Accept", acceptHTML)

	c.start = f.clk.Now()
	resp, err := f.client.Do(req)
	if err != nil {
		c.end = f.clk.Now()
		c.err = f.requestError(err)
		return c
	}
	c.status, c.header = resp.StatusCode, resp.Header
	c.body, c.truncated, err = readCapped(resp.Body, f.set.maxBody)
	// Closing an unread body drops the connection rather than draining
	// it: an over-long or endless body is not read on.
	resp.Body.Close()
	c.end = f.clk.Now()
	switch {
	case err != nil:
		c.err = f.requestError(err)
	case c.truncated:
		c.err = fmt.Errorf("%w: more than %d bytes from %s", ErrBodyTooLarge, f.set.maxBody, t.url())
	}
	return c
}

// readCapped reads at most max bytes, and says whether there was more.
func readCapped(r io.Reader, max int64) ([]byte, bool, error) {
	body, err := io.ReadAll(io.LimitReader(r, max+1))
	if int64(len(body)) > max {
		return body[:max], true, nil
	}
	return body, false, err
}

// requestError names a failure; one caused by Close is ErrClosed.
func (f *Fetcher) requestError(err error) error {
	if f.ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return fmt.Errorf("polite: %w", err)
}
