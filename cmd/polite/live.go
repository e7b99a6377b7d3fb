package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/politecrawler/polite"
)

// The page keeps a bounded history, so a week-long crawl watched or not
// costs the same memory: the last liveKept requests and liveRefusalsKept
// refusals, here and in each browser.
const (
	liveKept         = 5000
	liveRefusalsKept = 500
)

//go:embed live.html
var liveHTML string

var livePage = template.Must(template.New("live.html").Parse(liveHTML))

// live is the state behind the -serve page: requests, stats, refusals;
// safe for concurrent use. The requests are a ring of the last liveKept,
// numbered from 0 as they come; each client of /events is a cursor into
// it, sent what it has not seen, so the fetcher never waits for a browser:
// a client that falls a ring behind skips what was overwritten.
type live struct {
	title string
	run   string // tells this process's numbering from an earlier one's on reconnect

	mu        sync.Mutex
	reqs      []liveRequest // the i-th request at reqs[i%liveKept]
	n         int           // requests observed
	first     time.Time     // when the first request started: the axis's zero
	refusals  []liveRefusal // ring like reqs
	nRefusals int
	stats     []byte // the last Stats, as JSON
	statsGen  int
	summary   string
	done      bool
	changed   chan struct{} // closed when anything above changes, if a client waits
	waiting   bool
}

// liveRequest is a RequestEvent as the page draws it: times in unix
// milliseconds, durations in milliseconds.
type liveRequest struct {
	Seq     int     `json:"seq"`
	Addr    string  `json:"addr"`
	Host    string  `json:"host"`
	URL     string  `json:"url"`
	Status  int     `json:"status"`
	Robots  bool    `json:"robots,omitempty"`
	Started float64 `json:"started"`
	Dur     float64 `json:"dur"`
	Wait    float64 `json:"wait"` // the rest after it (R2)
	Term    string  `json:"term"`
	Err     string  `json:"err,omitempty"`
}

// liveRefusal is a URL of a refused or stopped host (R3.4).
type liveRefusal struct {
	Seq  int     `json:"seq"`
	At   float64 `json:"at"`
	Host string  `json:"host"`
	URL  string  `json:"url"`
	Err  string  `json:"err"`
}

// liveStats is the part of polite.Stats the page shows.
type liveStats struct {
	Hosts       int                     `json:"hosts"`
	Active      int                     `json:"active"`
	Resting     int                     `json:"resting"`
	Stopped     int                     `json:"stopped"`
	Parked      int                     `json:"parked"`
	Queued      int                     `json:"queued"`
	InFlight    int                     `json:"inFlight"`
	MaxInFlight int                     `json:"maxInFlight"`
	Requests    int                     `json:"requests"`
	Bytes       int64                   `json:"bytes"`
	Refusals    map[polite.StopKind]int `json:"refusals,omitempty"`
	Traps       map[polite.TrapKind]int `json:"traps,omitempty"`
	Forgotten   int                     `json:"forgotten"`
	SharedDown  bool                    `json:"sharedDown,omitempty"`
	Withheld    int                     `json:"withheld,omitempty"`
}

// liveHello opens each stream: which numbering it speaks, and the axis's zero.
type liveHello struct {
	Run   string  `json:"run"`
	First float64 `json:"first"` // 0 before the first request
	Kept  int     `json:"kept"`
}

// newLive returns the page's state; title heads the page.
func newLive(title string) *live {
	return &live{title: title, run: strconv.FormatInt(time.Now().UnixNano(), 36),
		reqs: make([]liveRequest, 0, 64), changed: make(chan struct{})}
}

// observe records a request. It is Config.OnRequest, called with the
// fetcher's lock held: it takes l's lock only to copy, and wakes the
// clients, which send on their own goroutines.
func (l *live) observe(ev polite.RequestEvent) {
	q := liveRequest{Addr: ev.Addr.String(), URL: ev.URL, Status: ev.Status, Robots: ev.Robots,
		Started: unixMilli(ev.Started), Dur: millis(ev.Duration), Wait: millis(ev.Rest.Wait), Term: ev.Rest.Term.String()}
	if u, err := url.Parse(ev.URL); err == nil {
		q.Host = u.Hostname()
	}
	if ev.Err != nil {
		q.Err = ev.Err.Error()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		l.first = ev.Started
	}
	q.Seq = l.n
	l.reqs = putRing(l.reqs, l.n, liveKept, q)
	l.n++
	l.wakeLocked()
}

// setStats shows st; the crawl calls it about twice a second.
func (l *live) setStats(st polite.Stats) {
	b, err := json.Marshal(liveStats{Hosts: st.Hosts, Active: st.Active, Resting: st.Resting, Stopped: st.Stopped,
		Parked: st.Parked, Queued: st.Queued, InFlight: st.InFlight, MaxInFlight: st.MaxInFlight,
		Requests: st.Requests, Bytes: st.Bytes, Refusals: st.Refusals, Traps: st.Traps,
		Forgotten: st.Forgotten, SharedDown: st.SharedDown, Withheld: st.Withheld})
	if err != nil {
		return // maps of strings to ints: cannot fail
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stats = b
	l.statsGen++
	l.wakeLocked()
}

// logRefusal adds a URL of a refused or stopped host to the refusal log.
func (l *live) logRefusal(rawURL string, err error) {
	r := liveRefusal{At: unixMilli(time.Now()), URL: polite.DisplayURL(rawURL)}
	if u, perr := url.Parse(rawURL); perr == nil {
		r.Host = u.Hostname()
	}
	if err != nil {
		r.Err = err.Error()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r.Seq = l.nRefusals
	l.refusals = putRing(l.refusals, l.nRefusals, liveRefusalsKept, r)
	l.nRefusals++
	l.wakeLocked()
}

// finish tells the clients the crawl ended, with its summary; the page
// stays served.
func (l *live) finish(summary string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.summary, l.done = summary, true
	l.wakeLocked()
}

func (l *live) wakeLocked() {
	if l.waiting {
		close(l.changed)
		l.changed, l.waiting = make(chan struct{}), false
	}
}

// putRing stores the i-th item of a ring of size kept.
func putRing[T any](ring []T, i, kept int, v T) []T {
	if len(ring) < kept {
		return append(ring, v)
	}
	ring[i%kept] = v
	return ring
}

// ServeHTTP serves the page at "/" and its server-sent events at
// "/events".
func (l *live) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/":
		l.servePage(w, r)
	case "/events":
		l.serveEvents(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (l *live) servePage(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var b bytes.Buffer
	if err := livePage.Execute(&b, struct {
		Title              string
		Kept, RefusalsKept int
	}{l.title, liveKept, liveRefusalsKept}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// The page shows URLs written by strangers: nothing but its own inline
	// code runs, and it loads nothing from elsewhere.
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	w.Write(b.Bytes())
}

// liveCursor is what one client has been sent.
type liveCursor struct {
	req, ref int // the next request and refusal to send
	statsGen int
	hello    bool // sent, with the first request's time if there was one
	first    bool
	summary  bool
}

// serveEvents streams the kept history, then each change as it comes,
// until the client goes. Each request and refusal carries an id, so a
// reconnecting EventSource resumes where it was (Last-Event-ID).
func (l *live) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives a server's WriteTimeout
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	c := l.resume(r.Header.Get("Last-Event-ID"))
	var b bytes.Buffer
	b.WriteString("retry: 2000\n\n")
	for {
		changed := l.pending(&c, &b)
		if _, err := w.Write(b.Bytes()); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		b.Reset()
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// resume reads a Last-Event-ID, "run.request.refusal", into a cursor; an
// id of another run (the page outlived a process) starts from the start.
func (l *live) resume(id string) liveCursor {
	c := liveCursor{statsGen: -1}
	parts := strings.Split(id, ".")
	if len(parts) != 3 || parts[0] != l.run {
		return c
	}
	req, err1 := strconv.Atoi(parts[1])
	ref, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || req < 0 || ref < 0 {
		return c
	}
	c.req, c.ref = req, ref
	return c
}

// pending writes to b what c has not been sent, moves c on, and returns
// the channel that will say when there is more. It copies under the lock
// and encodes outside it.
func (l *live) pending(c *liveCursor, b *bytes.Buffer) <-chan struct{} {
	l.mu.Lock()
	var hello *liveHello
	if !c.hello || (!c.first && l.n > 0) {
		hello = &liveHello{Run: l.run, Kept: liveKept}
		if l.n > 0 {
			hello.First = unixMilli(l.first)
		}
		c.hello, c.first = true, l.n > 0
	}
	c.req = min(max(c.req, l.n-len(l.reqs)), l.n) // what was overwritten is skipped
	reqs := make([]liveRequest, 0, l.n-c.req)
	for ; c.req < l.n; c.req++ {
		reqs = append(reqs, l.reqs[c.req%liveKept])
	}
	c.ref = min(max(c.ref, l.nRefusals-len(l.refusals)), l.nRefusals)
	refs := make([]liveRefusal, 0, l.nRefusals-c.ref)
	for ; c.ref < l.nRefusals; c.ref++ {
		refs = append(refs, l.refusals[c.ref%liveRefusalsKept])
	}
	var stats []byte
	if c.statsGen != l.statsGen && l.stats != nil {
		stats, c.statsGen = l.stats, l.statsGen
	}
	summary := ""
	sendSummary := l.done && !c.summary
	if sendSummary {
		summary, c.summary = l.summary, true
	}
	changed := l.changed
	l.waiting = true
	l.mu.Unlock()

	// Each event's id is the cursor just after it, so a stream cut in
	// the middle of a batch resumes at the first event not received.
	if hello != nil {
		liveEvent(b, "hello", "", hello)
	}
	refStart := c.ref - len(refs)
	for _, q := range reqs {
		liveEvent(b, "request", fmt.Sprintf("%s.%d.%d", l.run, q.Seq+1, refStart), q)
	}
	for _, r := range refs {
		liveEvent(b, "refusal", fmt.Sprintf("%s.%d.%d", l.run, c.req, r.Seq+1), r)
	}
	if stats != nil {
		fmt.Fprintf(b, "event: stats\ndata: %s\n\n", stats)
	}
	if sendSummary {
		liveEvent(b, "summary", "", map[string]string{"summary": summary})
	}
	return changed
}

// liveEvent writes one server-sent event of v as JSON (one line: JSON
// escapes newlines in strings).
func liveEvent(b *bytes.Buffer, name, id string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	fmt.Fprintf(b, "event: %s\n", name)
	if id != "" {
		fmt.Fprintf(b, "id: %s\n", id)
	}
	fmt.Fprintf(b, "data: %s\n\n", data)
}

// listenLive binds addr for the page. An addr without a host (":8080",
// "8080") binds loopback only: the page shows what is crawled, and is for
// the network only when the user names a host.
func listenLive(addr string) (net.Listener, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("-serve %s: %w", addr, liveCause(err))
	}
	if host == "" {
		host = "127.0.0.1"
	}
	addr = net.JoinHostPort(host, port)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-serve %s: %w", addr, liveCause(err))
	}
	return ln, nil
}

// liveCause is the last word of a listen error ("address already in use"),
// without the operation and address around it, which the caller says once.
func liveCause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		err = op.Err
	}
	var sc *os.SyscallError
	if errors.As(err, &sc) {
		err = sc.Err
	}
	var ae *net.AddrError
	if errors.As(err, &ae) {
		return errors.New(ae.Err)
	}
	return err
}

func unixMilli(t time.Time) float64 { return float64(t.UnixMicro()) / 1e3 }

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
