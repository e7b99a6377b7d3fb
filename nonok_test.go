package polite_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
)

// A non-2xx body is read only as far as Classify looks (R3.5), unless it
// is of a type the caller reads (R8.1): an error page cannot make the
// fetcher download megabytes of something it does not want (R10.2).

const (
	// bigErrorBody is an error page nobody should read whole, larger than
	// loopback socket buffers (which take in some 4 MiB of an unread
	// body): the farm sees a dropped connection only beyond them.
	bigErrorBody = 16 << 20
	classifyLen  = 64 << 10 // what Classify reads of a body (R3.5)
)

var octetStream = http.Header{"Content-Type": {"application/octet-stream"}}

// finalVisit is the one visit the farm saw to host's path, once every
// handler has returned: the farm is closed first, so that a handler still
// writing into a connection the client dropped has seen it go. A client
// that read a body whole has had every byte of it written, so closing
// cannot make a drained body look cut.
func finalVisit(t *testing.T, fm *politetest.Farm, host, path string) politetest.Visit {
	t.Helper()
	fm.Close()
	var vs []politetest.Visit
	for _, v := range fm.Audit().VisitsTo(host) {
		if v.Path == path {
			vs = append(vs, v)
		}
	}
	if len(vs) != 1 {
		t.Fatalf("server saw %d requests for %s, want 1: %v", len(vs), path, vs)
	}
	return vs[0]
}

// checkCut fails unless the server saw the client go away well before
// the body's end: the connection was dropped, not drained.
func checkCut(t *testing.T, v politetest.Visit, size int64) {
	t.Helper()
	if !v.Cut || v.Written > size/2 {
		t.Errorf("%s: server wrote %d of %d bytes, cut %v; want the client gone well before the end",
			v.Path, v.Written, size, v.Cut)
	}
}

// R8.1, R3.5, R10.2: a 404 of a type the caller does not read is read only
// as far as Classify looks; it is not a failure, not retried, and the
// next page on the host is fetched.
func TestNonOKBodyOfUnreadTypeIsReadOnlyForClassify(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "blob.test", Pages: map[string]politetest.Page{
		"/blob": {Status: http.StatusNotFound, Header: octetStream, Size: bigErrorBody},
	}})
	r.start(polite.Config{MaxBodyBytes: 2 * bigErrorBody})
	blob, next := r.url(host, "/blob"), r.url(host, "/next")
	r.add(blob, next)
	res := r.results(2)
	got := res[blob]
	if got.Status != http.StatusNotFound || got.Verdict.Kind != polite.ResponseNotFound || got.Attempts != 1 {
		t.Errorf("404: status %d, verdict %v, %d attempts", got.Status, got.Verdict, got.Attempts)
	}
	if errors.Is(got.Err, polite.ErrIncompleteBody) || errors.Is(got.Err, polite.ErrBodyTooLarge) {
		t.Errorf("404: %v; a body cut at the classify prefix is neither incomplete nor too large", got.Err)
	}
	if len(got.Body) > classifyLen || !got.Truncated {
		t.Errorf("404: %d bytes read, truncated %v; want at most %d and truncated", len(got.Body), got.Truncated, classifyLen)
	}
	checkCut(t, finalVisit(t, r.farm, host, "/blob"), bigErrorBody)
	if res[next].Err != nil || res[next].Status != http.StatusOK {
		t.Errorf("next page: status %d, %v", res[next].Status, res[next].Err)
	}
}

// R8.1: a 404 of a type the caller reads (HTML by default) is read whole.
func TestNonOKBodyOfReadTypeIsReadWhole(t *testing.T) {
	const size = 1 << 20
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "gone.test", Pages: map[string]politetest.Page{
		"/gone": {Status: http.StatusNotFound, Size: size}, // generated: text/html
	}})
	r.start(polite.Config{MaxBodyBytes: 2 * bigErrorBody})
	u := r.url(host, "/gone")
	r.add(u)
	got := r.results(1)[u]
	if got.Err != nil || got.Status != http.StatusNotFound || len(got.Body) != size || got.Truncated {
		t.Errorf("404 HTML: status %d, %d bytes, truncated %v, %v; want all %d bytes",
			got.Status, len(got.Body), got.Truncated, got.Err, size)
	}
	if v := finalVisit(t, r.farm, host, "/gone"); v.Cut || v.Written != size {
		t.Errorf("server wrote %d of %d bytes, cut %v", v.Written, size, v.Cut)
	}
}

// R3.1, R3.5: a small challenge page on a 503 is still read and judged a
// refusal: its host is stopped.
func TestNonOKChallengePageIsStillClassified(t *testing.T) {
	body := []byte(`<!DOCTYPE html><html><head><title>Just a moment...</title></head>
<body><noscript>Enable JavaScript and cookies to continue</noscript>
<script>window._cf_chl_opt={cType:'managed'};</script></body></html>`)
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "check.test", Pages: map[string]politetest.Page{
		"/a": {Status: http.StatusServiceUnavailable, Body: body,
			Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}},
	}})
	r.start(polite.Config{MaxBodyBytes: 2 * bigErrorBody})
	a, b := r.url(host, "/a"), r.url(host, "/b")
	r.add(a, b)
	res := r.results(2)
	if v := res[a].Verdict; v.Kind != polite.ResponseRefused || !v.Challenge || !errors.Is(res[a].Err, polite.ErrRefused) {
		t.Errorf("503 challenge: verdict %v, %v; want a refusal", v, res[a].Err)
	}
	if string(res[a].Body) != string(body) || res[a].Truncated {
		t.Errorf("503 challenge: %d of %d bytes, truncated %v", len(res[a].Body), len(body), res[a].Truncated)
	}
	if !errors.Is(res[b].Err, polite.ErrHostStopped) {
		t.Errorf("next URL: %v, want ErrHostStopped", res[b].Err)
	}
	if n := len(pageVisitsOf(r.farm, host)); n != 1 {
		t.Errorf("server saw %d page requests, want 1", n)
	}
}

// R3.1, R8.1: a 403 of a type the caller does not read still stops the
// host, and its body is read only as far as Classify looks.
func TestNonOKRefusalOfUnreadTypeStopsTheHost(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "deny.test", Pages: map[string]politetest.Page{
		"/a": {Status: http.StatusForbidden, Header: octetStream, Size: bigErrorBody},
	}})
	r.start(polite.Config{MaxBodyBytes: 2 * bigErrorBody})
	a, b := r.url(host, "/a"), r.url(host, "/b")
	r.add(a, b)
	res := r.results(2)
	if res[a].Verdict.Kind != polite.ResponseRefused || !errors.Is(res[a].Err, polite.ErrRefused) {
		t.Errorf("403: verdict %v, %v; want a refusal", res[a].Verdict, res[a].Err)
	}
	if len(res[a].Body) > classifyLen || !res[a].Truncated {
		t.Errorf("403: %d bytes read, truncated %v; want at most %d and truncated", len(res[a].Body), res[a].Truncated, classifyLen)
	}
	if !errors.Is(res[b].Err, polite.ErrHostStopped) || !errors.Is(res[b].Err, polite.ErrRefused) {
		t.Errorf("next URL: %v, want ErrHostStopped naming the refusal", res[b].Err)
	}
	checkCut(t, finalVisit(t, r.farm, host, "/a"), bigErrorBody)
	if n := len(pageVisitsOf(r.farm, host)); n != 1 {
		t.Errorf("server saw %d page requests, want 1", n)
	}
}

// R5.2, R8.1, R10.2: a robots.txt answered 404 with a big body of another
// type is read only as far as Classify looks, and means "allow all": the
// page after it is fetched.
func TestNonOKRobotsTxtIsReadOnlyForClassify(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "norobots.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Status: http.StatusNotFound, Header: octetStream, Size: bigErrorBody},
	}})
	f := r.start(polite.Config{MaxBodyBytes: 2 * bigErrorBody})
	u := r.url(host, "/page")
	r.add(u)
	got := r.results(1)[u]
	if got.Err != nil || got.Status != http.StatusOK {
		t.Fatalf("page after a 404 robots.txt: status %d, %v", got.Status, got.Err)
	}
	st, err := f.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if robots := st.Bytes - int64(len(got.Body)); robots > classifyLen {
		t.Errorf("read %d bytes of the 404 robots.txt, want at most %d", robots, classifyLen)
	}
	checkCut(t, finalVisit(t, r.farm, host, politetest.RobotsPath), bigErrorBody)
}
