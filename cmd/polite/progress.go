package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/politecrawler/polite"
)

// progress tells how a crawl goes. On a terminal it redraws one line
// twice a second: a bar of the URLs answered out of those known, then
// pages, queued, resting, refused and errors. Elsewhere (a pipe, a file)
// it prints one plain line per Result. It also hands the Fetcher's Stats
// to the live page, when there is one.
//
// The line is a few lines of code, not a progress-bar library: the
// crawl's total is unknown until its end (each page adds links), so what
// is drawn is counters with a bar of done ÷ (done + queued), which both
// libraries served here (schollz/progressbar, vbauerster/mpb) would
// draw as a spinner with a description we format ourselves anyway; and
// the one terminal check needed is os.ModeCharDevice.
type progress struct {
	w    io.Writer
	term bool
	f    *polite.Fetcher
	live *live

	mu                      sync.Mutex
	answered, pages, errors int
	refused                 int

	done chan struct{}
	wg   sync.WaitGroup
}

// newProgress starts the redraws.
func newProgress(w io.Writer, f *polite.Fetcher, l *live) *progress {
	p := &progress{w: w, term: isTerminal(w), f: f, live: l, done: make(chan struct{})}
	if p.term || l != nil {
		p.wg.Add(1)
		go p.tick()
	}
	return p
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// result counts r, and prints its line when not on a terminal.
func (p *progress) result(r *polite.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answered++
	switch {
	case isRefusal(r.Err):
		p.refused++
	case r.Err != nil:
		p.errors++
	default:
		p.pages++
	}
	if !p.term {
		printResult(p.w, r)
	}
}

func (p *progress) tick() {
	defer p.wg.Done()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			p.draw(false)
		}
	}
}

// draw reads the Stats once, for the line and the live page.
func (p *progress) draw(last bool) {
	st, err := p.f.Stats(context.Background())
	if err != nil {
		return
	}
	if p.live != nil {
		p.live.setStats(st)
	}
	if !p.term {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	const cells = 20
	known := p.answered + st.Queued + st.InFlight
	full := cells
	if known > 0 {
		full = cells * p.answered / known
	}
	end := ""
	if last {
		end = "\n"
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d | pages %d | queued %d | resting %d | refused %d | errors %d   %s",
		strings.Repeat("#", full), strings.Repeat("-", cells-full), p.answered, known,
		p.pages, st.Queued, st.Resting, p.refused, p.errors, end)
}

// stop ends the redraws, with a last one.
func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
	p.draw(true)
}

// clearingLine writes to a terminal whose current line holds the progress
// line: it clears that line first, so what it writes (a log line) stands
// alone, and the next redraw puts the progress line back under it.
type clearingLine struct{ w io.Writer }

func (c clearingLine) Write(p []byte) (int, error) {
	if _, err := io.WriteString(c.w, "\r\x1b[K"); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
