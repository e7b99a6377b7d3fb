package polite_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// R10.2: response headers beyond 64 KiB are not read: the request fails,
// named, as a failure of the host, and the host's next page is fetched.
func TestHugeResponseHeaders(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "fat.test", Pages: map[string]politetest.Page{
		"/fat": {Header: http.Header{"X-Padding": {strings.Repeat("x", 100<<10)}}},
	}})
	r.start(polite.Config{Retries: -1})
	fat, next := r.url(host, "/fat"), r.url(host, "/next")
	r.add(fat, next)
	res := r.results(2)
	if err := res[fat].Err; err == nil || res[fat].Status != 0 || !strings.Contains(err.Error(), "exceeded") || !strings.Contains(err.Error(), fat) {
		t.Errorf("fat headers: status %d, %v; want no response and an error naming the URL and the cap", res[fat].Status, err)
	}
	if res[next].Err != nil {
		t.Errorf("the next page: %v", res[next].Err)
	}
}
