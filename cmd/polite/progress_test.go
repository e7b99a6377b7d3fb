package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
)

// On a terminal the progress is one line, redrawn in place: a bar of the
// URLs answered out of those known, then the counters.
func TestProgressLine(t *testing.T) {
	f, err := polite.New(polite.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	p := &progress{w: &out, term: true, f: f, done: make(chan struct{})}
	p.result(&polite.Result{URL: "http://a.example/", Status: 200})
	p.result(&polite.Result{URL: "http://b.example/", Err: &polite.RefusalError{Host: "b.example", URL: "http://b.example/", Status: 403}})
	p.result(&polite.Result{URL: "http://a.example/x", Err: errors.New("reset")})
	if out.Len() != 0 {
		t.Errorf("a terminal got lines per Result: %q", out.String())
	}
	p.stop()
	want := "\r[####################] 3/3 | pages 1 | queued 0 | resting 0 | refused 1 | errors 1   \n"
	if out.String() != want {
		t.Errorf("got  %q\nwant %q", out.String(), want)
	}
	out.Reset()
	plain := &progress{w: &out, f: f, done: make(chan struct{})}
	plain.result(&polite.Result{URL: "http://a.example/", Status: 200})
	if got := out.String(); !strings.HasPrefix(got, "200 http://a.example/ 0 B in 0s") || strings.Contains(got, "\r") {
		t.Errorf("not a terminal: %q, want a plain line", got)
	}
}

func TestClearingLine(t *testing.T) {
	var out strings.Builder
	n, err := clearingLine{&out}.Write([]byte("level=WARN msg=refused\n"))
	if err != nil || n != 23 || out.String() != "\r\x1b[Klevel=WARN msg=refused\n" {
		t.Errorf("wrote %d, %v: %q", n, err, out.String())
	}
}
