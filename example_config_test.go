package polite_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/politecrawler/polite"
)

// A Config names the crawler and may make it more polite; no field makes
// it less. New refuses a name that is malformed or borrows another's.
func ExampleNew() {
	for _, cfg := range []polite.Config{
		{Name: "acme-indexer"}, // a custom name needs a page saying who runs it
		{Name: "Mozilla", InfoURL: "https://acme.example/bot"},
	} {
		_, err := polite.New(cfg)
		fmt.Println(errors.Is(err, polite.ErrUserAgent), errors.Is(err, polite.ErrImpersonation), errors.Is(err, polite.ErrConfig))
	}
	// Output:
	// true false false
	// false true false
}

// The fields that make a fetcher more polite than the rules, or say what
// it is allowed beyond them. Config.Store keeps pages across runs; APIs
// and Unrestricted name hosts whose robots.txt is not read, and why (R5.5,
// R5.6).
func ExampleConfig() {
	store := polite.NewMemoryStore()
	defer store.Close()
	f, err := polite.New(polite.Config{
		Name:           "acme-indexer",
		Version:        "1.0",
		InfoURL:        "https://acme.example/crawler",
		Store:          store,
		CoolOff:        2 * polite.DefaultCoolOff, // a refusing host is left alone 12 h, then 24 h…
		MinRest:        10 * time.Second,          // above the 3 s floor; below it, raised and logged
		DurationFactor: 10,                        // rest 10× the last request's duration
		MaxBodyBytes:   1 << 20,
		Types:          []string{"application/pdf"}, // read PDFs as well as pages
		APIs:           []polite.API{{Host: "api.acme.example", Terms: "https://acme.example/api-terms", Rate: 2}},
		Unrestricted:   polite.Unrestricted{Hosts: []string{"intranet.acme.example"}, Reason: "our own site"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
}

// What a Result's error says, read with errors.Is and errors.As: every
// accepted URL gets exactly one Result, a page or the reason there is none
// (R11.1).
func ExampleResult_errors() {
	explain := func(r *polite.Result) string {
		var (
			refusal   *polite.RefusalError
			stopped   *polite.StoppedError
			parked    *polite.ParkedError
			trap      *polite.TrapError
			robots    *polite.DisallowedError
			mediaType *polite.ContentTypeError
		)
		switch err := r.Err; {
		case err == nil:
			var hops []polite.Hop = r.Redirects
			var links []polite.Link = r.Links()
			if _, err := r.TextForAI(); errors.Is(err, polite.ErrAIInputRefused) {
				var refused *polite.AIInputRefusedError
				errors.As(err, &refused)
				return "a page whose text the site keeps from AI input: " + refused.Signal.String()
			}
			return fmt.Sprintf("a page, after %d redirects, with %d links", len(hops), len(links))
		case errors.As(err, &robots):
			return "disallowed by robots.txt line " + fmt.Sprint(robots.Decision.Line)
		case errors.As(err, &refusal):
			return "refused, on " + refusal.Verdict.Evidence
		case errors.As(err, &stopped) && errors.Is(err, polite.ErrCoolingOff):
			return stopped.Host + " is cooling off after an earlier stop"
		case errors.As(err, &stopped):
			return stopped.Host + " was stopped: " + stopped.Cause.Error()
		case errors.As(err, &parked):
			return "the server asked to wait until " + parked.Until.String()
		case errors.As(err, &trap) && errors.Is(err, polite.ErrTrap):
			var kind polite.TrapKind = trap.Kind
			return "a " + string(kind) + " trap"
		case errors.As(err, &mediaType) && errors.Is(err, polite.ErrContentType):
			return "a type not read: " + mediaType.Type
		case errors.Is(err, polite.ErrCertificate):
			return "a certificate that does not verify"
		case errors.Is(err, polite.ErrClosed):
			return "the fetcher was closed first"
		}
		return r.Err.Error() // a network failure, a body cut short…
	}
	_ = explain
	// Add refuses a URL already added, in any spelling that normalises
	// the same: no Result comes for it.
	_ = polite.ErrDuplicate
}

// OpenStore keeps pages, robots.txt copies, refusals and host records in
// one file across runs; a second open of the same file is refused while
// the first holds it.
func ExampleOpenStore() {
	dir, err := os.MkdirTemp("", "polite-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "crawl.db")
	store, err := polite.OpenStore(path)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for _, body := range []string{"<p>v1</p>", "<p>v2</p>"} {
		if err := store.SavePage(polite.StoredPage{URL: "https://example.org/", Status: 200, Body: []byte(body), Fetched: at}); err != nil {
			log.Fatal(err)
		}
	}
	if err := store.SaveHost(polite.HostRecord{Host: "refusing.example", Stops: 1, CoolOffUntil: at.Add(polite.DefaultCoolOff)}); err != nil {
		log.Fatal(err)
	}
	robots := polite.StoredRobots{Origin: "https://example.org:443", Status: 200, Body: []byte("User-agent: *\nAllow: /\n"), Fetched: at}
	if err := store.SaveRobots(robots); err != nil {
		log.Fatal(err)
	}
	if err := store.AddRefusal(polite.RefusalRecord{Host: "refusing.example", Status: 403, Kind: polite.StopRefused, At: at}); err != nil {
		log.Fatal(err)
	}
	var pages polite.PageStore = store
	history, _ := pages.PageHistory("https://example.org/")
	refusals, _ := store.Refusals()
	var kind polite.StopKind = refusals[0].Kind
	host, _, _ := store.LoadHost("refusing.example")
	fmt.Println(len(history), "versions, latest", string(history[len(history)-1].Body))
	fmt.Println(host.Host, kind, "and left alone until", host.CoolOffUntil.Format(time.Kitchen))
	_, err = polite.OpenStore(path)
	fmt.Println(errors.Is(err, polite.ErrStoreLocked), errors.Is(err, polite.ErrStore))
	// Output:
	// 2 versions, latest <p>v2</p>
	// refusing.example refused and left alone until 4:00PM
	// true true
}

// The Store's parts come from where they are kept: here pages in a local
// file, and robots.txt copies and host records in a store the crawl's
// processes share (any value with HostStore's and RobotsStore's methods).
func ExampleHostStore() {
	local, err := polite.OpenStore(filepath.Join(os.TempDir(), "pages.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer local.Close()
	var shared interface {
		polite.RobotsStore
		polite.HostStore
	} = polite.NewMemoryStore() // a backend shared by processes, in a real crawl
	f, err := polite.New(polite.Config{Store: local, RobotsStore: shared, HostStore: shared})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
}

// A Verdict says what a response meant and whether it counts as a failure
// toward the five that stop a host (R3.2); a Rest names the term of R2
// that set it.
func ExampleVerdict() {
	v := polite.Classify(503, nil, nil)
	var kind polite.ResponseKind = v.Kind
	fmt.Println(kind, v.Failure())
	rest := polite.Rest{Wait: 8 * time.Second, Term: polite.RestBackoff}
	var term polite.RestTerm = rest.Term
	fmt.Println(rest, term == polite.RestBackoff)
	// Output:
	// server-failure true
	// 8s (backoff) true
}

// Signals weigh every statement a site made about a page: within a
// category the most restrictive wins (R7.1).
func ExampleSignals() {
	s := polite.Signals{All: []polite.Signal{
		{Source: "robots.txt line 3", Name: "train-ai", Value: "n"},
		{Source: "header Content-Signal", Name: "search", Value: "yes"},
		{Source: "meta robots", Name: "noindex"},
	}}
	var p polite.Preference
	p, because := s.Category("train-ai")
	fmt.Println(p, because)
	fmt.Println(len(s.TrainingOptOut()), s.NoIndex(), s.NoFollow())
	// Output:
	// no train-ai=n (robots.txt line 3)
	// 1 true false
}
