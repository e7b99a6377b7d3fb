package polite_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/politecrawler/polite"
)

// storeKinds are the implementations every contract test runs against.
var storeKinds = []struct {
	name string
	open func(t *testing.T) polite.Store
}{
	{"memory", func(t *testing.T) polite.Store { return polite.NewMemoryStore() }},
	{"disk", func(t *testing.T) polite.Store {
		s, err := polite.OpenStore(filepath.Join(t.TempDir(), "store.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}},
}

// storeContract is the behaviour both stores must have.
var storeContract = []struct {
	name string
	test func(t *testing.T, s polite.Store)
}{
	{"page round trip", testPageRoundTrip},
	{"normalised values", testNormalised},
	{"history order", testHistoryOrder},
	{"unchanged body", testUnchangedBody},
	{"urls kept apart", testURLsApart},
	{"copies not aliases", testCopies},
	{"missing keys", testMissing},
	{"bad keys", testBadKeys},
	{"robots", testRobots},
	{"refusals order", testRefusals},
	{"host records", testHosts},
	{"concurrent writers", testConcurrent},
	{"closed", testClosed},
}

func TestStoreContract(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			for _, c := range storeContract {
				t.Run(c.name, func(t *testing.T) {
					s := kind.open(t)
					defer s.Close()
					c.test(t, s)
				})
			}
		})
	}
}

// when is a time with nanoseconds in a zone other than UTC.
func when(i int) time.Time {
	return storeTestTime.Add(time.Duration(i)*time.Hour + 123456789)
}

var storeTestTime = time.Date(2026, 5, 17, 14, 3, 7, 1, time.FixedZone("CEST", 2*3600))

func testPage(url string, i int) polite.StoredPage {
	return polite.StoredPage{
		URL:    url,
		Status: 200,
		Header: http.Header{
			"Content-Type":  {"text/html; charset=utf-8"},
			"Etag":          {fmt.Sprintf(`"v%d"`, i)},
			"Last-Modified": {"Mon, 02 Jan 2006 15:04:05 GMT"},
			"Vary":          {"Accept-Encoding", "Accept-Language"},
		},
		Body:    fmt.Appendf(nil, "<html><body>%s version %d</body></html>", url, i),
		Fetched: when(i),
	}
}

// samePage compares a loaded page with the one saved: same instant, in
// UTC.
func samePage(t *testing.T, got, want polite.StoredPage) {
	t.Helper()
	if got.URL != want.URL || got.Status != want.Status || !bytes.Equal(got.Body, want.Body) ||
		!reflect.DeepEqual(got.Header, want.Header) {
		t.Fatalf("page:\n got %q %d %v %q\nwant %q %d %v %q", got.URL, got.Status, got.Header, got.Body,
			want.URL, want.Status, want.Header, want.Body)
	}
	if !got.Fetched.Equal(want.Fetched) || got.Fetched.Location() != time.UTC {
		t.Fatalf("fetched: got %v, want %v in UTC", got.Fetched, want.Fetched)
	}
}

func mustSave(t *testing.T, s polite.Store, p polite.StoredPage) {
	t.Helper()
	if err := s.SavePage(p); err != nil {
		t.Fatal(err)
	}
}

func mustLoad(t *testing.T, s polite.Store, url string) polite.StoredPage {
	t.Helper()
	p, ok, err := s.LoadPage(url)
	if err != nil || !ok {
		t.Fatalf("LoadPage(%q) = %v, %v", url, ok, err)
	}
	return p
}

func mustHistory(t *testing.T, s polite.Store, url string) []polite.StoredPage {
	t.Helper()
	h, err := s.PageHistory(url)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func testPageRoundTrip(t *testing.T, s polite.Store) {
	want := testPage("https://example.org/a", 1)
	mustSave(t, s, want)
	got := mustLoad(t, s, want.URL)
	samePage(t, got, want)
	if got.Fetched != want.Fetched.UTC() {
		t.Errorf("fetched %#v, want %#v (UTC, no monotonic reading)", got.Fetched, want.Fetched.UTC())
	}
	h := mustHistory(t, s, want.URL)
	if len(h) != 1 {
		t.Fatalf("history has %d versions, want 1", len(h))
	}
	samePage(t, h[0], want)

	// A time with a monotonic reading, as time.Now gives.
	now := testPage("https://example.org/now", 2)
	now.Fetched = time.Now()
	mustSave(t, s, now)
	if got := mustLoad(t, s, now.URL); got.Fetched != now.Fetched.Round(0).UTC() {
		t.Errorf("fetched %#v, want %#v", got.Fetched, now.Fetched.Round(0).UTC())
	}

	// Large body, odd statuses and bytes.
	big := polite.StoredPage{URL: "https://example.org/big?q=ü&x=%00", Status: -1, Body: bytes.Repeat([]byte{0, 1, 2, 0xff}, 300_000),
		Header: http.Header{"X-Empty": {""}, "x-lower-case": {"kept as written"}}, Fetched: time.Unix(1<<40, 999_999_999)}
	mustSave(t, s, big)
	samePage(t, mustLoad(t, s, big.URL), big)
}

func testNormalised(t *testing.T, s polite.Store) {
	mustSave(t, s, polite.StoredPage{URL: "https://example.org/empty", Status: 204, Header: http.Header{}, Body: []byte{}})
	got := mustLoad(t, s, "https://example.org/empty")
	if got.Body != nil || got.Header != nil || got.Fetched != (time.Time{}) {
		t.Errorf("empty page loads as %#v, want nil body, nil header, zero time", got)
	}
	mustSave(t, s, polite.StoredPage{URL: "https://example.org/novalues", Header: http.Header{"X-None": {}}})
	got = mustLoad(t, s, "https://example.org/novalues")
	if vs, ok := got.Header["X-None"]; !ok || vs != nil {
		t.Errorf("field without values loads as %#v, %v; want a nil slice", vs, ok)
	}
	for _, at := range []time.Time{{}, time.Unix(0, 0), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.FixedZone("", -7*3600)), time.Date(1600, 2, 29, 0, 0, 0, 0, time.Local)} {
		if err := s.SaveHost(polite.HostRecord{Host: "t.example", CoolOffUntil: at}); err != nil {
			t.Fatal(err)
		}
		h, _, err := s.LoadHost("t.example")
		if err != nil || h.CoolOffUntil != at.UTC() {
			t.Errorf("time %v loads as %v, %v", at, h.CoolOffUntil, err)
		}
	}
}

func testHistoryOrder(t *testing.T, s polite.Store) {
	const url = "https://example.org/news"
	var want []polite.StoredPage
	for i := range 7 {
		p := testPage(url, i)
		if i == 3 {
			p.Status = 500
		}
		want = append(want, p)
		mustSave(t, s, p)
		samePage(t, mustLoad(t, s, url), p)
	}
	h := mustHistory(t, s, url)
	if len(h) != len(want) {
		t.Fatalf("history has %d versions, want %d", len(h), len(want))
	}
	for i := range h {
		samePage(t, h[i], want[i])
	}
}

func testUnchangedBody(t *testing.T, s polite.Store) {
	const url = "https://example.org/same"
	body := bytes.Repeat([]byte("<p>unchanged</p>"), 1000)
	for i := range 5 {
		p := testPage(url, i)
		p.Body = body
		mustSave(t, s, p)
	}
	// Another URL with the same body shares it too (on disk).
	p := testPage("https://example.org/mirror", 0)
	p.Body = body
	mustSave(t, s, p)
	h := mustHistory(t, s, url)
	if len(h) != 5 {
		t.Fatalf("history has %d versions, want 5 (each save is a version)", len(h))
	}
	for i, v := range h {
		if !bytes.Equal(v.Body, body) || v.Header.Get("Etag") != fmt.Sprintf(`"v%d"`, i) {
			t.Fatalf("version %d: body %d bytes, ETag %s", i, len(v.Body), v.Header.Get("Etag"))
		}
	}
	h[0].Body[0] = 'X' // versions sharing a body on disk come back as separate copies
	if h[1].Body[0] == 'X' {
		t.Error("two versions returned share one body slice")
	}
	samePage(t, mustLoad(t, s, "https://example.org/mirror"), p)
}

func testURLsApart(t *testing.T, s polite.Store) {
	urls := []string{"http://a", "http://a/", "http://a/b", "http://a/\x00", "http://a/\x00\x00", "\x01", "\x02\x01", strings.Repeat("x", 200), strings.Repeat("x", 201)}
	for round := range 3 {
		for i, u := range urls {
			p := testPage(u, round*100+i)
			mustSave(t, s, p)
		}
	}
	for i, u := range urls {
		h := mustHistory(t, s, u)
		if len(h) != 3 {
			t.Fatalf("%q: %d versions, want 3", u, len(h))
		}
		for round, v := range h {
			samePage(t, v, testPage(u, round*100+i))
		}
	}
	if h := mustHistory(t, s, "http://a/b/"); len(h) != 0 {
		t.Errorf("a URL never saved has %d versions", len(h))
	}
}

func testCopies(t *testing.T, s polite.Store) {
	p := testPage("https://example.org/c", 1)
	want := testPage("https://example.org/c", 1)
	want.Fetched = p.Fetched
	mustSave(t, s, p)
	// Change the argument after the save.
	p.Body[0] = 'X'
	p.Header["Etag"][0] = "changed"
	p.Header.Set("X-New", "1")
	samePage(t, mustLoad(t, s, p.URL), want)

	// Change what a load returned.
	got := mustLoad(t, s, p.URL)
	got.Body[0] = 'Y'
	got.Header["Etag"][0] = "changed"
	got.Header.Set("X-New", "1")
	h := mustHistory(t, s, p.URL)
	h[0].Body[1] = 'Z'
	h[0].Header["Vary"][0] = "changed"
	samePage(t, mustLoad(t, s, p.URL), want)
	samePage(t, mustHistory(t, s, p.URL)[0], want)

	r := polite.StoredRobots{Origin: "https://example.org:443", Status: 200, Header: http.Header{"Etag": {`"r"`}}, Body: []byte("User-agent: *\n")}
	if err := s.SaveRobots(r); err != nil {
		t.Fatal(err)
	}
	r.Body[0] = 'X'
	r.Header["Etag"][0] = "changed"
	gotR, _, err := s.LoadRobots(r.Origin)
	if err != nil || string(gotR.Body) != "User-agent: *\n" || gotR.Header.Get("Etag") != `"r"` {
		t.Fatalf("robots changed through the argument: %q %v %v", gotR.Body, gotR.Header, err)
	}
	gotR.Body[0] = 'Y'
	gotR.Header["Etag"][0] = "changed"
	gotR, _, _ = s.LoadRobots(r.Origin)
	if string(gotR.Body) != "User-agent: *\n" || gotR.Header.Get("Etag") != `"r"` {
		t.Fatalf("robots changed through a loaded copy: %q %v", gotR.Body, gotR.Header)
	}

	if err := s.AddRefusal(polite.RefusalRecord{Host: "h", URL: "u", Kind: "refused"}); err != nil {
		t.Fatal(err)
	}
	rs, _ := s.Refusals()
	rs[0].Kind = "changed"
	if rs, _ := s.Refusals(); rs[0].Kind != "refused" {
		t.Fatal("refusals changed through a returned slice")
	}
}

func testMissing(t *testing.T, s polite.Store) {
	mustSave(t, s, testPage("https://example.org/present", 0))
	if p, ok, err := s.LoadPage("https://example.org/absent"); err != nil || ok || !reflect.DeepEqual(p, polite.StoredPage{}) {
		t.Errorf("LoadPage(missing) = %v, %v, %v", p, ok, err)
	}
	if h, err := s.PageHistory("https://example.org/absent"); err != nil || len(h) != 0 {
		t.Errorf("PageHistory(missing) = %v, %v", h, err)
	}
	if r, ok, err := s.LoadRobots("https://example.org:443"); err != nil || ok || !reflect.DeepEqual(r, polite.StoredRobots{}) {
		t.Errorf("LoadRobots(missing) = %v, %v, %v", r, ok, err)
	}
	if h, ok, err := s.LoadHost("example.org"); err != nil || ok || h != (polite.HostRecord{}) {
		t.Errorf("LoadHost(missing) = %v, %v, %v", h, ok, err)
	}
	if rs, err := s.Refusals(); err != nil || len(rs) != 0 {
		t.Errorf("Refusals() on a new store = %v, %v", rs, err)
	}
}

func testBadKeys(t *testing.T, s polite.Store) {
	long := "https://example.org/" + strings.Repeat("a", 17<<10)
	for _, k := range []string{"", long} {
		errs := []error{
			s.SavePage(polite.StoredPage{URL: k}),
			s.SaveRobots(polite.StoredRobots{Origin: k}),
			s.SaveHost(polite.HostRecord{Host: k}),
		}
		_, _, err := s.LoadPage(k)
		errs = append(errs, err)
		_, err = s.PageHistory(k)
		errs = append(errs, err)
		_, _, err = s.LoadRobots(k)
		errs = append(errs, err)
		_, _, err = s.LoadHost(k)
		errs = append(errs, err)
		for i, err := range errs {
			if !errors.Is(err, polite.ErrStore) {
				t.Errorf("key of %d bytes, call %d: err = %v, want ErrStore", len(k), i, err)
			}
		}
	}
	if err := s.SavePage(polite.StoredPage{URL: long[:16<<10]}); err != nil {
		t.Errorf("a 16 KiB URL: %v", err)
	}
}
