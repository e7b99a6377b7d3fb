// Command robotscheck says what a robots.txt file means for one crawler:
// the group of rules that applies to it, its Crawl-delay, and for each URL
// whether the crawler may fetch it and which line decided (R5.1).
//
//	go run ./examples/robotscheck -agent PoliteCrawler robots.txt https://example.com/private/x /other/public/
//
// URLs may be absolute or paths with a query. -agent is the crawler's
// product token and defaults to PoliteCrawler.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/politecrawler/polite"
)

func main() {
	agent := flag.String("agent", polite.DefaultName, "the crawler's product token, as robots.txt groups name it")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: robotscheck [-agent NAME] FILE URL...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 2 {
		flag.Usage()
		os.Exit(2)
	}
	body, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "robotscheck:", err)
		os.Exit(1)
	}
	check(os.Stdout, polite.ParseRobots(body), *agent, flag.Args()[1:])
}

// check prints, for agent, the group that applies and its Crawl-delay, then
// one line per URL: the verdict and the rule that gave it.
func check(w io.Writer, r *polite.Robots, agent string, urls []string) {
	// The group is the agent's whatever the URL; ask about the root to see it.
	if g := r.Decide(agent, "/").Group; g != nil {
		fmt.Fprintf(w, "group: User-agent: %s\n", strings.Join(g, ", "))
	} else {
		fmt.Fprintln(w, "group: none applies, so no rules")
	}
	fmt.Fprintf(w, "crawl-delay: %s\n", crawlDelay(r.CrawlDelay(agent)))
	for _, u := range urls {
		d := r.Decide(agent, u)
		verdict := "disallowed"
		if d.Allowed {
			verdict = "allowed"
		}
		fmt.Fprintf(w, "%s: %s (%s)\n", u, verdict, reason(d))
	}
}

// reason names the deciding line as it would read in the file.
func reason(d polite.Decision) string {
	if d.Rule == "" {
		return "no rule matched"
	}
	return fmt.Sprintf("line %d: %s%s: %s", d.Line, strings.ToUpper(d.Rule[:1]), d.Rule[1:], d.Pattern)
}

func crawlDelay(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}
