package schedule

import "github.com/politecrawler/polite/internal/urltrap"

// trap is why a URL about to be queued is dropped (R9).
type trap struct {
	url    string
	kind   urltrap.Kind
	reason string
}

// repeated is the trap of a URL whose pattern's pages repeat one content.
func repeated(url, pattern string) trap {
	return trap{url: url, kind: urltrap.RepeatedContent, reason: "pages like " + pattern + " repeat the same content"}
}

// trapped checks a URL about to be queued: from Add, or a redirect's
// target.
func (s *Scheduler) trapped(t *Task, host string) (trap, bool) {
	u := t.URL()
	if kind, reason, bad := urltrap.Check(u, s.clk.Now(), s.cfg.Traps); bad {
		return trap{url: u, kind: kind, reason: reason}, true
	}
	if pattern, bad := s.traps.Dropped(host, u); bad {
		return repeated(u, pattern), true
	}
	return trap{}, false
}

// dropTrap answers a trapped task and counts it.
func (s *Scheduler) dropTrap(t *Task, tr trap) {
	if s.counts.traps == nil {
		s.counts.traps = make(map[urltrap.Kind]int)
	}
	s.counts.traps[tr.kind]++
	s.finish(t, End{Err: s.root.Trapped(tr.url, tr.kind, tr.reason)})
}
