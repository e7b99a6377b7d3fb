package main

import (
	"bufio"
	"errors"
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

// explainCommand is polite explain: what a response means to the fetcher
// (polite.Classify, R3.5), the wait it imposes, the evidence.
func explainCommand(fs *flag.FlagSet) func(env, []string) int {
	header := headerFlags{}
	status := fs.Int("status", 200, "the response's HTTP status")
	bodyFile := fs.String("body", "", "a file holding the response body (a saved page)")
	respFile := fs.String("response", "", "a file holding a whole saved HTTP response: status line, headers, blank line, body")
	fs.Var(header, "header", "a response header, \"Name: value\" (repeatable)")
	return func(e env, args []string) int {
		if len(args) > 0 {
			return fail(e, "explain", fmt.Errorf("%w: unexpected arguments %q", errUsage, args))
		}
		if *status < 100 || *status > 999 {
			return fail(e, "explain", fmt.Errorf("%w: -status %d: want an HTTP status, 100 to 999", errUsage, *status))
		}
		if *bodyFile != "" && *respFile != "" {
			return fail(e, "explain", fmt.Errorf("%w: -body and -response are two ways to give the body: take one", errUsage))
		}
		var body []byte
		var err error
		switch {
		case *respFile != "":
			*status, header, body, err = readResponse(*respFile)
		case *bodyFile != "":
			body, err = readFile(*bodyFile)
		}
		if err != nil {
			return fail(e, "explain", err)
		}
		explain(e.out, polite.Classify(*status, http.Header(header), body))
		return 0
	}
}

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

// explain prints a verdict for a person: what it means, the wait, the
// evidence and a note.
func explain(w io.Writer, v polite.Verdict) {
	fmt.Fprintf(w, "%s: %s\n", v.Kind, v.Kind.Meaning())
	switch {
	case v.Kind == polite.ResponseRefused:
		fmt.Fprintln(w, "wait: none, the host is not asked again in this run")
	case v.HasRetryAfter && v.RetryAfter > polite.DefaultHorizon:
		fmt.Fprintf(w, "wait: %s from Retry-After, beyond the %v horizon: the address is parked, its URLs come back with a ParkedError\n", seconds(v.RetryAfter), polite.DefaultHorizon)
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
	return fmt.Sprintf("%d s", d.Round(time.Second)/time.Second)
}

func readResponse(path string) (int, headerFlags, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, nil, pathError(path, err)
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

// readFile reads a file named on the command line.
func readFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	return b, pathError(path, err)
}

// pathError says err of the file path in one short line: "x.txt: no
// such file or directory".
func pathError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", path, pe.Err)
	}
	return err
}
