// Command explain says what a response means to a polite fetcher: the
// verdict of polite.Classify (R3.5), the wait before the host is asked
// again, the evidence, and a note.
//
//	go run ./examples/explain -status 429 -header 'Retry-After: 120'
//	go run ./examples/explain -status 403 -body saved-page.html
//	go run ./examples/explain -response testdata/responses/cloudflare-challenge.http
//
// -header may be given several times. -response reads a whole saved
// response (status line, headers, blank line, body) instead.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"time"

	"github.com/politecrawler/polite"
)

// headerFlags collects repeated -header "Name: value" flags.
type headerFlags http.Header

func (h headerFlags) String() string { return "" }

func (h headerFlags) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("want \"Name: value\", got %q", s)
	}
	http.Header(h).Add(textproto.TrimString(name), textproto.TrimString(value))
	return nil
}

func main() {
	header := headerFlags{}
	status := flag.Int("status", 200, "the response's HTTP status")
	bodyFile := flag.String("body", "", "a file holding the response body (a saved page)")
	respFile := flag.String("response", "", "a file holding a whole saved HTTP response")
	flag.Var(header, "header", "a response header, \"Name: value\" (repeatable)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "explain: unexpected arguments:", flag.Args())
		flag.Usage()
		os.Exit(2)
	}

	var body []byte
	var err error
	switch {
	case *respFile != "":
		*status, header, body, err = readResponse(*respFile)
	case *bodyFile != "":
		body, err = os.ReadFile(*bodyFile)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "explain:", err)
		os.Exit(1)
	}

	explain(os.Stdout, polite.Classify(*status, http.Header(header), body))
}

// explain prints a verdict for a person: what it means, the wait, the
// evidence and a note.
func explain(w io.Writer, v polite.Verdict) {
	fmt.Fprintf(w, "%s: %s\n", v.Kind, v.Kind.Meaning())
	switch {
	case v.Kind == polite.KindRefused:
		fmt.Fprintln(w, "wait: none, the host is not asked again in this run")
	case v.HasRetryAfter:
		fmt.Fprintf(w, "wait: %s from Retry-After\n", seconds(v.RetryAfter))
	case v.Failure():
		fmt.Fprintf(w, "wait: a backoff with jitter, growing with each failure in a row (at most %v by default)\n", polite.DefaultMaxBackoff)
	default:
		fmt.Fprintf(w, "wait: the usual rest (at least %v)\n", polite.MinRest)
	}
	if v.Challenge {
		vendor := v.Vendor
		if vendor == "" {
			vendor = "unknown vendor"
		}
		fmt.Fprintf(w, "challenge: yes (%s)\n", vendor)
	}
	fmt.Fprintf(w, "evidence: %s\n", v.Evidence)
	note := v.Note
	if note == "" {
		note = "none"
	}
	fmt.Fprintf(w, "note: %s\n", note)
}

// seconds prints a wait as seed 000 does: "120 s".
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.String()
}

func readResponse(path string) (int, headerFlags, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, nil, err
	}
	defer f.Close()
	resp, err := http.ReadResponse(bufio.NewReader(f), nil)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil && err != io.ErrUnexpectedEOF {
		return 0, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return resp.StatusCode, headerFlags(resp.Header), body, nil
}
