package redisshare_test

import (
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/internal/redistest"
)

// R1.4, R12.1: a rest outlives the process that earned it on a shared
// coordinator as on a Store. A fetcher process asks a host for a page and
// ends; the next process on the same Redis, started at once, asks the
// host for another page. Its first request (the page: the robots.txt copy
// is in Redis) comes a full rest (3 s, R2.1) after the first process's
// last response ended, as the farm saw it.
func TestRestOutlivesTheProcess(t *testing.T) {
	srv := redistest.Start(t)
	fc := startFarm(t, 1, 0)
	urls := []string{fc.url(0, "/page")}
	answered(t, startFetcher(t, srv.Addr(), fc, urls, faultTimeout).wait(t), urls)
	first := fc.visits(t)
	urls = []string{fc.url(0, "/next")}
	answered(t, startFetcher(t, srv.Addr(), fc, urls, faultTimeout).wait(t), urls)
	vs := fc.visits(t)
	if len(first) == 0 || len(vs) <= len(first) {
		t.Fatalf("farm saw %d requests of the first process, %d of the next", len(first), len(vs)-len(first))
	}
	last, next := first[len(first)-1], vs[len(first)]
	if next.Path != "/next" {
		t.Errorf("the next process began with %s, want its page (the robots.txt copy is in Redis)", next.Path)
	}
	gap := next.Start.Sub(last.End)
	if gap < polite.MinRest {
		t.Errorf("the next process asked %v after the first one's last response ended, want at least the rest, %v", gap, polite.MinRest)
	}
	t.Logf("the next process asked %v after the first one's last response ended", gap)
}
