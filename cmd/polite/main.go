// Command polite is the polite fetcher on the command line: it checks a
// robots.txt, explains what a response means to a polite crawler, fetches
// pages, and crawls a site — every request under the rules of the
// polite library (one request at a time per server address, a rest after
// each, robots.txt first, refusals final, an honest User-Agent).
//
// Install it with
//
//	go install github.com/politecrawler/polite/cmd/polite@latest
//
// Usage:
//
//	polite robots [-agent NAME] FILE|URL PATH...
//	polite explain [-status N] [-header 'Name: value']... [-body FILE | -response FILE]
//	polite get [-json] URL...
//	polite crawl [-max N] [-sitemaps] [-o out.warc.gz|out.wacz] [-cdxj] [-store crawl.db] [-serve ADDR] URL...
//	polite timeline [-o timeline.svg]
//	polite keys new FILE | directory KEYFILE...
//	polite replay [-serve ADDR] [-ui DIR] crawl.wacz
//	polite help [COMMAND]
//
// robots says, for each path, whether the crawler may fetch it and which
// line of robots.txt decided, with the group that applies, its
// Crawl-delay, the Sitemap lines and the content signals; given a URL it
// reads the site's robots.txt politely, and nothing else. Its exit status
// is 0 when every path is allowed, 1 when one is not.
//
// explain prints what a response (a status, headers, a saved body or a
// whole saved response) means: its verdict, the wait it imposes, the
// evidence.
//
// get fetches each URL and prints one line per Result, or with -json one
// JSON object per line.
//
// crawl follows the links of each seed within its site (its host and the
// hosts under it), up to -max URLs. On a terminal it draws a progress
// line; otherwise it prints plain lines. -sitemaps also reads the
// sitemaps robots.txt lists; -o writes every exchange (robots.txt, each
// redirect hop and try, 304s, pages) to a WARC 1.1 file with the bytes as
// the server sent them, or with a .wacz name to a WACZ 1.1.1 package;
// -cdxj writes a WARC's CDXJ index beside it; -store keeps page copies (so a second
// crawl asks conditionally), robots.txt and refusals across runs; -serve
// shows the crawl live on a web page, one row per server address. Its
// exit status is 1 when a seed is no page.
//
// timeline crawls the embedded farm and draws the requests and rests of
// each server address as an SVG.
//
// replay serves a WACZ and ReplayWeb.page (the npm package replaywebpage,
// found with -ui) from loopback, to replay a crawl in a browser offline.
//
// keys new writes a new Ed25519 private key to FILE (mode 0600, never
// over an existing file) and prints its public JWK and thumbprint; keys
// directory prints the key directory (a JWK Set) of the key files given,
// the key that signs first, the next one during a rotation after it.
//
// get and crawl take -sign KEYFILE and -signature-agent URL, which sign
// every request (Web Bot Auth: HTTP Message Signatures) with that key,
// naming the https origin that serves the key directory; a key file open
// to its group or others is refused. They take -demo, which fetches
// from an embedded farm of loopback sites (no internet); and the
// identity flags -name, -version, -info and -contact, which make the
// User-Agent. -allow-private lets them
// reach loopback and private addresses, which are refused by default.
// -timeout (default 60s, at most 10m) bounds each request, and -retries
// (0 to 3, default 3) how often a page that failed for a moment is asked
// again: together they bound how long a server that never answers holds
// the command.
//
// The exit status is 0 on success, 1 when the command ran and something
// failed (a URL that could not be fetched, a disallowed path), and 2 for
// bad usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// env is what a subcommand runs with: its output streams and the
// process's context, which ends on an interrupt.
type env struct {
	ctx         context.Context
	out, errOut io.Writer
}

// command is one subcommand.
type command struct {
	name    string
	args    string // the usage after the name
	summary string // one line for polite help
	flags   func(fs *flag.FlagSet) func(e env, args []string) int
}

// commands lists the subcommands in the order help shows them.
var commands = []command{
	{"robots", "[-agent NAME] FILE|URL PATH...", "what a robots.txt allows, and which line decided", robotsCommand},
	{"explain", "[-status N] [-header 'Name: value']... [-body FILE | -response FILE]", "what a response means to a polite fetcher", explainCommand},
	{"get", "[-json] [-demo] URL...", "fetch URLs politely, one line per result", getCommand},
	{"crawl", "[-max N] [-sitemaps] [-o out.warc.gz|out.wacz] [-cdxj] [-store crawl.db] [-serve ADDR] [-demo] URL...", "crawl sites politely", crawlCommand},
	{"timeline", "[-o timeline.svg]", "draw the requests and rests of a farm crawl as SVG", timelineCommand},
	{"keys", "new FILE | directory KEYFILE...", "make a request-signing key; print the key directory", keysCommand},
	{"replay", "[-serve ADDR] [-ui DIR] crawl.wacz", "replay a crawl's WACZ in ReplayWeb.page, served from loopback", replayCommand},
}

// errUsage marks an error in the command line: exit status 2.
var errUsage = errors.New("usage")

// run runs the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := env{ctx: ctx, out: stdout, errOut: stderr}
	if len(args) == 0 {
		help(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := lookup(args[1]); ok {
				usage(stdout, c, true)
				return 0
			}
			fmt.Fprintf(stderr, "polite help: unknown command %q (polite help lists them)\n", args[1])
			return 2
		}
		help(stdout)
		return 0
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "polite: unknown command %q (polite help lists them)\n", name)
		return 2
	}
	fs := flag.NewFlagSet("polite "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are ours to print, on one line
	body := c.flags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, c, true)
			return 0
		}
		fmt.Fprintf(stderr, "polite %s: %v (polite help %s)\n", c.name, err, c.name)
		return 2
	}
	for _, a := range fs.Args() {
		if len(a) > 1 && a[0] == '-' { // the flag package stops at the first argument
			fmt.Fprintf(stderr, "polite %s: flag %s after the arguments: flags go first (polite help %s)\n", c.name, a, c.name)
			return 2
		}
	}
	return body(e, fs.Args())
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// help lists the subcommands.
func help(w io.Writer) {
	fmt.Fprintln(w, "polite fetches web pages politely: one request at a time per server, a rest after each, robots.txt first.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  polite %s %s\n", c.name, c.args)
	}
	fmt.Fprintln(w, "  polite help [COMMAND]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run polite help COMMAND for its flags.")
}

// usage prints one subcommand's use and, if flags, its flags.
func usage(w io.Writer, c command, flags bool) {
	fmt.Fprintf(w, "usage: polite %s %s\n\n%s.\n", c.name, c.args, c.summary)
	if !flags {
		return
	}
	fs := flag.NewFlagSet("polite "+c.name, flag.ContinueOnError)
	c.flags(fs)
	fmt.Fprintln(w)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// fail prints err as the command's one line and returns status 1, or 2
// for a usage error.
func fail(e env, name string, err error) int {
	fmt.Fprintf(e.errOut, "polite %s: %v\n", name, err)
	if errors.Is(err, errUsage) {
		return 2
	}
	return 1
}
