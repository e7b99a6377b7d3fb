package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/politecrawler/polite"
)

// robotsCommand is polite robots: what a robots.txt, a file or a site's,
// means for one crawler (R5).
func robotsCommand(fs *flag.FlagSet) func(env, []string) int {
	agent := fs.String("agent", "", "the crawler's product token, as robots.txt groups name it (default the -name, else "+polite.DefaultName+")")
	var ff fetcherFlags
	ff.register(fs, false)
	return func(e env, args []string) int {
		if len(args) == 0 {
			return fail(e, "robots", fmt.Errorf("%w: want a robots.txt FILE or a site's URL, then the paths to check", errUsage))
		}
		if *agent == "" {
			*agent = polite.DefaultName
			if ff.name != "" {
				*agent = ff.name
			}
		}
		source, paths := args[0], args[1:]
		for _, p := range paths {
			if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "http://") && !strings.HasPrefix(p, "https://") {
				return fail(e, "robots", fmt.Errorf("%w: %q: a path starts with / (or give an http or https URL)", errUsage, p))
			}
		}
		rules, err := readRobots(e, &ff, source)
		if err != nil {
			return fail(e, "robots", err)
		}
		if !report(e.out, rules, *agent, paths) {
			return 1
		}
		return 0
	}
}

// readRobots reads the rules of source: a site's, fetched politely when
// it is an http or https URL (robots.txt only, no page), else a file's.
func readRobots(e env, ff *fetcherFlags, source string) (*polite.Robots, error) {
	if !strings.HasPrefix(source, "http://") && !strings.HasPrefix(source, "https://") {
		body, err := readFile(source)
		if err != nil {
			return nil, err
		}
		return polite.ParseRobots(body), nil
	}
	if err := ff.check(); err != nil {
		return nil, err
	}
	cfg, err := ff.config(e.errOut)
	if err != nil {
		return nil, err
	}
	f, err := polite.New(cfg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rules, err := f.FetchRobots(e.ctx, source)
	if err != nil {
		return nil, hint(err)
	}
	if rules == nil {
		return nil, fmt.Errorf("%s: robots.txt is not read for this host", source)
	}
	return rules, nil
}

// report prints, for agent, the group that applies, its Crawl-delay and
// the Sitemap lines, then one line per path: the verdict, the rule that
// gave it and the content signals robots.txt states for it. It returns
// whether every path is allowed.
func report(w io.Writer, r *polite.Robots, agent string, paths []string) bool {
	// The group is the agent's whatever the path; ask about the root to see it.
	if g := r.Decide(agent, "/").Group; g != nil {
		fmt.Fprintf(w, "group: User-agent: %s\n", strings.Join(g, ", "))
	} else {
		fmt.Fprintln(w, "group: none applies, so no rules")
	}
	fmt.Fprintf(w, "crawl-delay: %s\n", crawlDelay(r.CrawlDelay(agent)))
	if sm := r.Sitemaps(); len(sm) > 0 {
		fmt.Fprintf(w, "sitemaps: %s\n", strings.Join(sm, " "))
	} else {
		fmt.Fprintln(w, "sitemaps: none")
	}
	all := true
	for _, p := range paths {
		d := r.Decide(agent, p)
		verdict := "disallowed"
		if d.Allowed {
			verdict = "allowed"
		}
		all = all && d.Allowed
		fmt.Fprintf(w, "%s: %s (%s)\n", p, verdict, reason(d))
		if sig := r.Signals(agent, p); len(sig.All) > 0 {
			fmt.Fprintf(w, "  signals: %s\n", joinSignals(sig.All))
		}
	}
	return all
}

// reason names the deciding line as it reads in the file.
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

// joinSignals lists signals as "ai-input=no (robots.txt line 4), …".
func joinSignals(all []polite.Signal) string {
	s := make([]string, len(all))
	for i, sig := range all {
		s[i] = sig.String()
	}
	return strings.Join(s, ", ")
}
