package polite

import (
	"github.com/politecrawler/polite/internal/robotstxt"
	"github.com/politecrawler/polite/internal/schedule"
)

// The scheduler asks the Store as jobs, run by store workers of their own
// outside its lock (R1.2; see internal/schedule's store.go): a new host's
// record, a new origin's robots.txt copy, a queued page's validators, a
// stop to keep. The store workers run them here, where the Store is.

// workStore is one store worker.
func (f *Fetcher) workStore() {
	defer f.workers.Done()
	for j := range f.sched.StoreJobs() {
		for more := true; more; {
			j, more = f.sched.StoreDone(f.doStore(j))
		}
	}
}

// doStore runs one store job, without the scheduler's lock.
func (f *Fetcher) doStore(j schedule.StoreJob) *schedule.StoreAnswer {
	a := &schedule.StoreAnswer{Job: j}
	switch {
	case j.Host() != "":
		var rec HostRecord
		rec, a.Found, a.Err = f.set.hosts.LoadHost(j.Host())
		a.Host = schedule.HostRecord{Stops: rec.Stops, CoolOffUntil: rec.CoolOffUntil, LastReason: rec.LastReason}
	case j.Origin() != "":
		var rec StoredRobots
		rec, a.Found, a.Err = f.set.robotsStore.LoadRobots(j.Origin())
		if a.Err == nil && a.Found {
			body := rec.Body
			if rec.Status < 200 || rec.Status > 299 {
				body = nil // a 4xx was kept: no robots.txt, everything allowed
			}
			a.Robots = schedule.RobotsCopy{Rules: robotstxt.Parse(body), Fetched: rec.Fetched,
				ETag: rec.Header.Get("ETag"), Modified: rec.Header.Get("Last-Modified")}
		}
	case j.Page() != "":
		var p StoredPage
		p, a.Found, a.Err = f.set.pages.LoadPage(j.Page())
		if a.Found {
			a.Page = schedule.PageCopy{Have: true, IfNoneMatch: p.Header.Get("ETag"), IfModifiedSince: p.Header.Get("Last-Modified")}
		}
	case j.Stop() != nil:
		a.Err = f.keepStop(j.Stop())
	}
	return a
}
