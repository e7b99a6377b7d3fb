package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/politecrawler/polite"
)

// getCommand is polite get: each URL fetched under every rule, one line
// per Result. The exit status is 1 when a URL could not be fetched or
// answered with a status of 400 or more.
func getCommand(fs *flag.FlagSet) func(env, []string) int {
	asJSON := fs.Bool("json", false, "print one JSON object per Result: status, title and charset, rest, verdict, signals, error")
	var ff fetcherFlags
	ff.register(fs, true)
	return func(e env, urls []string) int {
		cfg, urls, done, err := ff.prepare(e.errOut, urls)
		if err != nil {
			return fail(e, "get", err)
		}
		defer done()
		if len(urls) == 0 {
			return fail(e, "get", fmt.Errorf("%w: want one URL or more (or -demo)", errUsage))
		}
		f, err := polite.New(cfg)
		if err != nil {
			return fail(e, "get", err)
		}
		defer f.Close()
		failed := false
		for _, u := range urls {
			if err := f.Add(e.ctx, u); err != nil { // this URL is never fetchable; the others go on
				fail(e, "get", hint(err))
				failed = true
			}
		}
		for r, err := range f.Results(e.ctx) {
			if err != nil {
				return fail(e, "get", err)
			}
			failed = failed || r.Err != nil || r.Status >= 400
			if *asJSON {
				enc := json.NewEncoder(e.out)
				enc.SetEscapeHTML(false) // a title's "&" and "<" as written
				err = enc.Encode(resultJSON(r))
			} else {
				err = printResult(e.out, r)
			}
			if err != nil {
				return fail(e, "get", err)
			}
		}
		if failed {
			return 1
		}
		return 0
	}
}

// printResult prints one line: status, URL (as a person reads it), size,
// time and rest, or the error.
func printResult(w io.Writer, r *polite.Result) error {
	if r.Err != nil {
		_, err := fmt.Fprintf(w, "ERR %s: %v\n", polite.DisplayURL(r.URL), r.Err)
		return err
	}
	note := ""
	if r.NotModified {
		note = ", not modified"
	}
	if len(r.Redirects) > 0 {
		note += ", at " + polite.DisplayURL(r.FinalURL)
	}
	if ok, because := r.Signals.AIInput(); !ok {
		note += ", no AI input: " + because.String()
	}
	_, err := fmt.Fprintf(w, "%d %s %d B in %v, then rest %v%s\n",
		r.Status, polite.DisplayURL(r.URL), len(r.Body), r.Duration.Round(time.Millisecond), r.Rest, note)
	return err
}

// jsonResult is a Result as polite get -json prints it.
type jsonResult struct {
	URL        string       `json:"url"`
	FinalURL   string       `json:"final_url,omitempty"`
	Status     int          `json:"status,omitempty"`
	Bytes      int          `json:"bytes"`
	Title      *string      `json:"title,omitempty"`   // an HTML page's, decoded ("" when it has none)
	Charset    string       `json:"charset,omitempty"` // an HTML page's encoding, WHATWG's name in lower case
	Started    *time.Time   `json:"started,omitempty"`
	DurationMS int64        `json:"duration_ms"`
	Rest       *jsonRest    `json:"rest,omitempty"`
	Verdict    *jsonVerdict `json:"verdict,omitempty"`
	Signals    []jsonSignal `json:"signals,omitempty"`
	AIInput    bool         `json:"ai_input_allowed"`
	Error      string       `json:"error,omitempty"`
}

type jsonRest struct {
	WaitMS int64  `json:"wait_ms"`
	Term   string `json:"term"`
}

type jsonVerdict struct {
	Kind     string `json:"kind"`
	Evidence string `json:"evidence,omitempty"`
	Note     string `json:"note,omitempty"`
}

type jsonSignal struct {
	Source string `json:"source"`
	Name   string `json:"name"`
	Value  string `json:"value,omitempty"`
}

// resultJSON is r for JSON: what a response there was, and the error.
func resultJSON(r *polite.Result) jsonResult {
	j := jsonResult{URL: r.URL, Status: r.Status, Bytes: len(r.Body), DurationMS: r.Duration.Milliseconds()}
	if cs := r.Charset(); cs.Name != "" {
		title := r.Title()
		j.Title, j.Charset = &title, cs.Name
	}
	if len(r.Redirects) > 0 {
		j.FinalURL = r.FinalURL
	}
	j.AIInput, _ = r.Signals.AIInput()
	if !r.Started.IsZero() {
		j.Started = &r.Started
		j.Rest = &jsonRest{WaitMS: r.Rest.Wait.Milliseconds(), Term: r.Rest.Term.String()}
		j.Verdict = &jsonVerdict{Kind: r.Verdict.Kind.String(), Evidence: r.Verdict.Evidence, Note: r.Verdict.Note}
	}
	for _, s := range r.Signals.All {
		j.Signals = append(j.Signals, jsonSignal(s))
	}
	if r.Err != nil {
		j.Error = r.Err.Error()
	}
	return j
}
