package politetest

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"time"
)

// serveHTTP is the one handler behind every listener. It finds the site
// from the dialled address and the Host header, audits the request, and
// plays the site's script.
func (f *Farm) serveHTTP(w http.ResponseWriter, r *http.Request) {
	addr := localAddr(r)
	host := canonHost(hostOnly(r.Host))

	f.mu.RLock()
	if f.closed {
		f.mu.RUnlock()
		http.Error(w, "farm closed", http.StatusServiceUnavailable)
		return
	}
	f.active.Add(1)
	var site *Site
	if ep := f.addrs[addr]; ep != nil {
		site = ep.sites[host]
	}
	f.mu.RUnlock()
	defer f.active.Done()

	t := f.audit.begin(addr, host, r)
	end := sync.OnceFunc(func() { f.audit.end(t) })
	w = &countingWriter{ResponseWriter: w, wrote: func(n int, cut bool) { f.audit.wrote(t, n, cut) }}
	defer end()

	if site == nil {
		body := []byte("politetest: no site " + strconv.Quote(host) + " on " + addr.String() + "\n")
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusMisdirectedRequest)
		finish(w, body, end)
		return
	}
	p := site.page(r.URL.Path)
	if n := len(p.Sequence); n > 0 {
		p = p.Sequence[min(f.hit(host, r.URL.Path), n-1)]
	}
	f.play(w, r, site, p, end)
}

// hit counts a request to host and path and returns how many came before.
func (f *Farm) hit(host, path string) int {
	f.hitsMu.Lock()
	defer f.hitsMu.Unlock()
	if f.hits == nil {
		f.hits = make(map[string]int)
	}
	n := f.hits[host+path]
	f.hits[host+path] = n + 1
	return n
}

// play writes p as the answer to r. end records the end of the visit; it
// is called just before the last body byte is written (see finish).
func (f *Farm) play(w http.ResponseWriter, r *http.Request, s *Site, p Page, end func()) {
	ctx := r.Context()
	if p.Entered != nil {
		select {
		case p.Entered <- r.URL.Path:
		case <-ctx.Done():
			return
		case <-f.done:
			return
		}
	}
	if p.Gate != nil {
		select {
		case <-p.Gate:
		case <-ctx.Done():
			return
		case <-f.done:
			return
		}
	}
	if !f.wait(ctx, s.Latency+p.Latency) {
		return
	}
	if p.ETag != "" {
		w.Header().Set("ETag", p.ETag)
		if r.Header.Get("If-None-Match") == p.ETag {
			w.WriteHeader(http.StatusNotModified)
			end()
			return
		}
	}

	body, generated := p.Body, false
	if body == nil {
		generated = true
		if p.Size > 0 {
			body = sizedBody(s.Name, r.URL.Path, p.Size)
		} else {
			body = defaultPage(s.Name, r.URL.Path)
		}
	}
	h := w.Header()
	for k, vs := range p.Header {
		h[k] = slices.Clone(vs)
	}
	if generated && h.Get("Content-Type") == "" {
		h.Set("Content-Type", htmlType)
	}
	status := p.Status
	if p.Redirect != "" {
		h.Set("Location", p.Redirect)
		if status == 0 {
			status = http.StatusFound
		}
	}
	if status == 0 {
		status = http.StatusOK
	}
	// A slow or hanging body is sent chunked, as a real server streaming
	// it would, so the client cannot tell in advance how much is coming.
	slow := p.Hang || p.BodyDelay > 0 || p.Chunked
	if !slow && h.Get("Content-Length") == "" {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(status)

	if p.Hang {
		writeFlush(w, body[:len(body)/2])
		select {
		case <-ctx.Done():
		case <-f.done:
		}
		return
	}
	if p.Cut {
		writeFlush(w, body[:len(body)/2])
		end()
		panic(http.ErrAbortHandler) // drops the connection mid-body
	}
	if p.BodyDelay > 0 {
		half := len(body) / 2
		writeFlush(w, body[:half])
		if !f.wait(ctx, p.BodyDelay) {
			return
		}
		body = body[half:]
	}
	finish(w, body, end)
	if p.Drop {
		rc := http.NewResponseController(w)
		_ = rc.Flush() // the whole answer is on the wire before the close
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
	}
}

// finish writes body, recording the end of the visit before the last byte.
// A client therefore cannot have read a whole response before its visit is
// closed in the audit: a crawler's next request can never look like an
// overlap, and a test that has read a body sees its visit's End set.
// (Response bytes still buffered when the handler returns are sent after
// it, so nothing relies on the last Write reaching the wire first.) The
// body goes in chunks, so a client that hangs up stops the writing and the
// audit sees how much was sent.
func finish(w http.ResponseWriter, body []byte, end func()) {
	n := len(body)
	if n == 0 {
		end()
		return
	}
	const chunk = 64 << 10
	for rest := body[:n-1]; len(rest) > 0; {
		k := min(chunk, len(rest))
		if _, err := w.Write(rest[:k]); err != nil {
			end()
			return // the client went away; the audit knows
		}
		rest = rest[k:]
	}
	end()
	_, _ = w.Write(body[n-1:])
}

// countingWriter tells the audit how many body bytes reached the
// connection, and whether the client cut the body short.
type countingWriter struct {
	http.ResponseWriter
	wrote func(n int, cut bool)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.wrote(n, err != nil)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection to flush.
func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// writeFlush writes b and pushes it (and the headers) to the client now.
func writeFlush(w http.ResponseWriter, b []byte) {
	_, _ = w.Write(b)
	_ = http.NewResponseController(w).Flush()
}

// wait lets d pass as the farm's clock sees it. With a fake clock it
// advances the clock, as if the handler had worked for d, and returns at
// once. Otherwise it sleeps on the wall clock, returning false early if
// the request is cancelled or the farm closes.
func (f *Farm) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	if f.fake != nil {
		f.fake.Advance(d)
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-f.done:
		return false
	}
}

// localAddr is the address the client dialled, which picks the endpoint
// since all listeners share one handler.
func localAddr(r *http.Request) netip.Addr {
	switch a := r.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr:
		return a.AddrPort().Addr().Unmap()
	case net.Addr:
		if ap, err := netip.ParseAddrPort(a.String()); err == nil {
			return ap.Addr().Unmap()
		}
	}
	return netip.Addr{}
}
