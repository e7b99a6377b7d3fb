package polite_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/politetest"
	"go.etcd.io/bbolt"
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

// TestStoreReopen: everything saved is there after Close and OpenStore,
// and a reopened store goes on adding versions and refusals after the
// old ones.
func TestStoreReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := polite.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	var pages []polite.StoredPage
	for i := range 40 {
		p := testPage(fmt.Sprintf("https://example.org/%d", i%10), i)
		pages = append(pages, p)
		mustSave(t, s, p)
	}
	r := polite.StoredRobots{Origin: "https://example.org:443", Status: 200, Body: []byte("User-agent: *\nCrawl-delay: 5\n"), Header: http.Header{"Etag": {`"r1"`}}, Fetched: when(0)}
	if err := s.SaveRobots(r); err != nil {
		t.Fatal(err)
	}
	ref := polite.RefusalRecord{Host: "example.org", URL: "https://example.org/x", Status: 403, Kind: "refused", Evidence: "403", At: when(1)}
	if err := s.AddRefusal(ref); err != nil {
		t.Fatal(err)
	}
	host := polite.HostRecord{Host: "example.org", Stops: 3, CoolOffUntil: when(24), LastReason: "refused"}
	if err := s.SaveHost(host); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = polite.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for u := range 10 {
		url := fmt.Sprintf("https://example.org/%d", u)
		h := mustHistory(t, s, url)
		if len(h) != 4 {
			t.Fatalf("%s: %d versions after reopening, want 4", url, len(h))
		}
		for v := range h {
			samePage(t, h[v], pages[v*10+u])
		}
		samePage(t, mustLoad(t, s, url), pages[30+u])
	}
	gotR, ok, err := s.LoadRobots(r.Origin)
	if err != nil || !ok || !bytes.Equal(gotR.Body, r.Body) || gotR.Header.Get("Etag") != `"r1"` || !gotR.Fetched.Equal(r.Fetched) {
		t.Fatalf("robots after reopening: %#v, %v, %v", gotR, ok, err)
	}
	ref.At = ref.At.UTC()
	if rs, err := s.Refusals(); err != nil || len(rs) != 1 || rs[0] != ref {
		t.Fatalf("refusals after reopening: %#v, %v", rs, err)
	}
	host.CoolOffUntil = host.CoolOffUntil.UTC()
	if h, ok, err := s.LoadHost("example.org"); err != nil || !ok || h != host {
		t.Fatalf("host after reopening: %#v, %v, %v", h, ok, err)
	}

	// It goes on after the old records.
	next := testPage("https://example.org/0", 99)
	mustSave(t, s, next)
	if h := mustHistory(t, s, next.URL); len(h) != 5 {
		t.Fatalf("%d versions, want 5", len(h))
	} else {
		samePage(t, h[4], next)
	}
	if err := s.AddRefusal(polite.RefusalRecord{Host: "second"}); err != nil {
		t.Fatal(err)
	}
	if rs, _ := s.Refusals(); len(rs) != 2 || rs[1].Host != "second" {
		t.Fatalf("refusals after adding one: %#v", rs)
	}
}

// TestOpenStoreCreates: a missing path and an empty file become stores.
func TestOpenStoreCreates(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "new.db"), empty} {
		s, err := polite.OpenStore(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		mustSave(t, s, testPage("https://example.org/", 0))
		s.Close()
		s, err = polite.OpenStore(path)
		if err != nil {
			t.Fatalf("%s reopened: %v", path, err)
		}
		mustLoad(t, s, "https://example.org/")
		s.Close()
	}
	if _, err := polite.OpenStore(filepath.Join(dir, "no-such-dir", "x.db")); !errors.Is(err, polite.ErrStore) {
		t.Errorf("a path in a missing directory: %v, want ErrStore", err)
	}
}

// TestOpenStoreRejects: files that are not stores, or damaged ones, are
// a clear error and stay byte for byte as they were.
func TestOpenStoreRejects(t *testing.T) {
	dir := t.TempDir()
	random := func(n int) []byte {
		b := make([]byte, n)
		r := rand.NewChaCha8([32]byte{byte(n)})
		r.Read(b)
		return b
	}
	// A real store with some data, to damage.
	good := filepath.Join(dir, "good.db")
	s, err := polite.OpenStore(good)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		p := testPage(fmt.Sprintf("https://example.org/%d", i), i)
		p.Body = random(20_000 + i)
		mustSave(t, s, p)
	}
	s.Close()
	goodBytes, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := os.Getpagesize()

	foreign := filepath.Join(dir, "foreign.db")
	db, err := bbolt.Open(foreign, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bbolt.Tx) error {
		b, _ := tx.CreateBucket([]byte("widgets"))
		return b.Put([]byte("k"), []byte("v"))
	})
	db.Close()

	newer := filepath.Join(dir, "newer.db")
	os.WriteFile(newer, goodBytes, 0o600)
	db, err = bbolt.Open(newer, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bbolt.Tx) error { return tx.Bucket([]byte("meta")).Put([]byte("format"), []byte{2}) })
	db.Close()

	damage := func(name string, f func(b []byte) []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, f(bytes.Clone(goodBytes)), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := []struct {
		name, path string
		want       string // in the error message
	}{
		{"text file", damage("text.txt", func([]byte) []byte { return []byte("hello, this is not a database\n") }), "not a polite store"},
		{"random 100 bytes", damage("r100", func([]byte) []byte { return random(100) }), "not a polite store"},
		{"random one page", damage("r1p", func([]byte) []byte { return random(pageSize) }), "not a polite store"},
		{"random 64 KiB", damage("r64k", func([]byte) []byte { return random(64 << 10) }), "not a polite store"},
		{"foreign bbolt", foreign, "without polite's meta bucket"},
		{"newer format", newer, "format 2"},
		{"meta pages overwritten", damage("meta", func(b []byte) []byte { copy(b, random(2*pageSize)); return b }), "not a polite store"},
		{"meta checksum", damage("sum", func(b []byte) []byte { b[60]++; b[pageSize+60]++; return b }), "checksum"},
		{"truncated", damage("trunc", func(b []byte) []byte { return b[:len(b)/2] }), "truncated"},
		{"truncated to two pages", damage("trunc2", func(b []byte) []byte { return b[:2*pageSize] }), "damaged"},
		{"data pages overwritten", damage("data", func(b []byte) []byte { copy(b[2*pageSize:], random(len(b)-2*pageSize)); return b }), "damaged"},
		{"directory", dir, "directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before []byte
			if c.path != dir {
				before, err = os.ReadFile(c.path)
				if err != nil {
					t.Fatal(err)
				}
			}
			s, err := polite.OpenStore(c.path)
			if err == nil {
				s.Close()
				t.Fatal("OpenStore accepted it")
			}
			if !errors.Is(err, polite.ErrStore) || errors.Is(err, polite.ErrStoreLocked) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v; want ErrStore saying %q", err, c.want)
			}
			t.Log(err)
			if c.path != dir {
				after, err := os.ReadFile(c.path)
				if err != nil {
					t.Fatal(err)
				}
				if sha256.Sum256(after) != sha256.Sum256(before) || len(after) != len(before) {
					t.Fatalf("the file changed: %d bytes before, %d after", len(before), len(after))
				}
			}
			// A second attempt says the same: nothing was left held.
			if _, err2 := polite.OpenStore(c.path); err2 == nil || errors.Is(err2, polite.ErrStoreLocked) {
				t.Errorf("second attempt: %v", err2)
			}
		})
	}
	// The undamaged original still opens.
	s, err = polite.OpenStore(good)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// TestOpenStoreLockedInProcess: a second OpenStore of a file already
// open returns ErrStoreLocked, not a hang (go test's -timeout would say).
func TestOpenStoreLockedInProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := polite.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s2, err := polite.OpenStore(path)
	if err == nil {
		s2.Close()
		t.Fatal("opened twice")
	}
	if !errors.Is(err, polite.ErrStoreLocked) || !errors.Is(err, polite.ErrStore) {
		t.Fatalf("err = %v, want ErrStoreLocked", err)
	}
	t.Log(err)
	s.Close()
	s2, err = polite.OpenStore(path)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	s2.Close()
}

func openTestStore(t *testing.T, path string) polite.Store {
	t.Helper()
	st, err := polite.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// R6: two runs on one store file. The second asks conditionally (the farm
// sees If-None-Match), gets 304s, and its Results hold the first run's
// bodies, marked not modified. robots.txt, fresh in the store, is not
// asked again (R5.3). The history keeps one version per 200.
func TestStoreTwoRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polite.db")
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "etag.test", Default: func(p string) politetest.Page {
		return politetest.Page{ETag: `"` + p + `-v1"`, Body: []byte("<p>page " + p + "</p>")}
	}})
	urls := r.pages(h, 3)

	st := openTestStore(t, path)
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	r.add(urls...)
	first := r.results(len(urls))
	r.f.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	r.farm.Audit().Reset()
	r.clk.Advance(time.Hour)

	st = openTestStore(t, path)
	defer st.Close()
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	r.add(urls...)
	second := r.results(len(urls))
	for _, u := range urls {
		a, b := first[u], second[u]
		if a.Err != nil || b.Err != nil || a.NotModified || !b.NotModified || !bytes.Equal(a.Body, b.Body) || b.Status != 200 {
			t.Errorf("%s: run 1 %d %v %q; run 2 %d %v not-modified=%v %q", u, a.Status, a.Err, a.Body, b.Status, b.Err, b.NotModified, b.Body)
		}
		if b.Verdict.Kind != polite.ResponseNotModified {
			t.Errorf("%s: run 2 verdict %v", u, b.Verdict.Kind)
		}
	}
	vs := r.farm.Audit().VisitsTo(h)
	if len(vs) != len(urls) {
		t.Errorf("run 2: farm saw %d requests, want %d pages and no robots.txt", len(vs), len(urls))
	}
	for _, v := range vs {
		if want := `"` + v.Path + `-v1"`; v.Header.Get("If-None-Match") != want {
			t.Errorf("run 2: %s asked with If-None-Match %q, want %q", v.Path, v.Header.Get("If-None-Match"), want)
		}
	}
	hist, err := st.PageHistory(urls[0])
	if err != nil || len(hist) != 1 {
		t.Errorf("history of %s: %d versions, %v", urls[0], len(hist), err)
	}
}

// R3.3, R2.6: a refusal in run 1 is honoured by a new Fetcher on the same
// store in run 2: no request reaches the host within the cool-off; after
// it, the host is asked again with its floor doubled.
func TestStoreRefusalAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polite.db")
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "moody.test", Pages: map[string]politetest.Page{"/no": {Status: 403}}})

	st := openTestStore(t, path)
	defer st.Close()
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	no := r.farm.URL(h, "/no")
	r.add(no)
	if res := r.results(1); !isA[*polite.RefusalError](res[no].Err) {
		t.Fatalf("run 1: %v", res[no].Err)
	}
	r.f.Close()
	refusals, err := st.Refusals()
	if err != nil || len(refusals) != 1 || refusals[0].Host != h || refusals[0].Status != 403 || refusals[0].Kind != "refused" {
		t.Errorf("refusals kept: %+v, %v", refusals, err)
	}
	rec, ok, err := st.LoadHost(h)
	if err != nil || !ok || rec.Stops != 1 || !rec.CoolOffUntil.Equal(r.clk.Now().Add(polite.DefaultCoolOff)) {
		t.Errorf("host record %+v %v %v, want 1 stop, cool-off until +6h", rec, ok, err)
	}
	r.farm.Audit().Reset()

	// Run 2, five hours later: still cooling off.
	r.clk.Advance(5 * time.Hour)
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	urls := r.pages(h, 3)
	r.add(urls...)
	for u, res := range r.results(3) {
		if !isA[*polite.StoppedError](res.Err) || !errors.Is(res.Err, polite.ErrCoolingOff) {
			t.Errorf("run 2, %s: %v", u, res.Err)
		}
	}
	r.f.Close()
	if n := len(r.farm.Audit().Visits()); n != 0 {
		t.Errorf("run 2: farm saw %d requests within the cool-off", n)
	}

	// Run 3, after the cool-off: asked again, at twice the floor (its
	// robots.txt, 7 h old in the store, is still fresh: not asked).
	r.clk.Advance(2 * time.Hour)
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	r.add(urls...)
	for u, res := range r.results(3) {
		if res.Err != nil || res.Rest != (polite.Rest{2 * polite.MinRest, polite.RestFloor}) {
			t.Errorf("run 3, %s: %v, rest %v", u, res.Err, res.Rest)
		}
	}
	wantGaps(t, h, r.farm.Audit().VisitsTo(h), 3, 2*polite.MinRest)
}

// 64 workers writing pages to one on-disk store at once (run under -race):
// every page delivered is stored.
func TestStoreManyWorkers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polite.db")
	r := newFarmRig(t)
	var urls []string
	for i := range 64 {
		urls = append(urls, r.pages(r.site(politetest.Site{Name: fmt.Sprintf("w%02d.test", i)}), 1)...)
	}
	st := openTestStore(t, path)
	defer st.Close()
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st, MaxInFlight: 64})
	r.add(urls...)
	for u, res := range r.results(len(urls)) {
		p, ok, err := st.LoadPage(u)
		if res.Err != nil || err != nil || !ok || !bytes.Equal(p.Body, res.Body) {
			t.Errorf("%s: result %v; stored %v %v", u, res.Err, ok, err)
		}
	}
}

// The crash child fetches from a farm into an on-disk store and prints
// each URL whose Result it has been given; the parent kills it.
const fetchChildEnv = "POLITE_FETCH_CHILD"

func TestFetchCrashChild(t *testing.T) {
	path := os.Getenv(fetchChildEnv)
	if path == "" {
		t.Skip("the child of TestFetchCrash")
	}
	st, err := polite.OpenStore(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	r := newFarmRig(t)
	var urls []string
	for i := range 40 {
		urls = append(urls, r.pages(r.site(politetest.Site{Name: fmt.Sprintf("k%02d.test", i)}), 100)...)
	}
	f := r.start(polite.Config{AllowPrivateNetworks: true, Store: st, MaxInFlight: 16})
	r.add(urls...)
	for {
		res, err := f.Next(context.Background())
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		if res.Err == nil {
			fmt.Println("delivered", res.URL)
		}
	}
}

// A fetcher killed with SIGKILL mid-run leaves a store that opens and
// holds every page whose Result had been delivered.
func TestFetchCrash(t *testing.T) {
	skipProcessTests(t)
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFetchCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fetchChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var delivered []string
	for len(delivered) < 300 && lines.Scan() {
		line := lines.Text()
		if strings.HasPrefix(line, "error") {
			t.Fatalf("child: %s", line)
		}
		if u, ok := strings.CutPrefix(line, "delivered "); ok {
			delivered = append(delivered, u)
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if len(delivered) < 300 {
		t.Fatalf("the child delivered only %d results before it stopped", len(delivered))
	}
	checkBolt(t, path)
	st := openTestStore(t, path)
	defer st.Close()
	for _, u := range delivered {
		p, ok, err := st.LoadPage(u)
		if err != nil || !ok || len(p.Body) == 0 {
			t.Errorf("%s was delivered but is not stored: %v %v", u, ok, err)
		}
	}
}

// R5.3: a robots.txt copy keeps what a conditional refresh needs, its
// validators, and no other header of the answer.
func TestRobotsCopyKeepsItsValidators(t *testing.T) {
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "valid.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: {Body: []byte("User-agent: *\nAllow: /\n"), Header: http.Header{
			"Etag": {`"r1"`}, "Last-Modified": {"Sun, 29 Nov 2026 10:00:00 GMT"}, "Set-Cookie": {"id=1"}, "X-Served-By": {"cache-7"},
		}},
	}})
	st := polite.NewMemoryStore()
	r.start(polite.Config{AllowPrivateNetworks: true, Store: st})
	r.add(r.farm.URL(h, "/"))
	r.results(1)
	key := originOf(t, r.farm.URL(h, "/"))
	rec, ok, err := st.LoadRobots(key)
	if err != nil || !ok {
		t.Fatalf("no copy of %s: %v", key, err)
	}
	want := http.Header{"Etag": {`"r1"`}, "Last-Modified": {"Sun, 29 Nov 2026 10:00:00 GMT"}}
	if !reflect.DeepEqual(rec.Header, want) {
		t.Errorf("kept headers %v, want %v", rec.Header, want)
	}
}

// originOf is the key of a URL's robots.txt copy in a RobotsStore:
// "scheme://host:port", the port written even when it is the default.
func originOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port)
}

// R4, R6.1: a Result says what its request carried, as the farm saw it;
// a 304's Result keeps the 304's own header and when the copy it
// confirmed was fetched, for a record of the exchange (a WARC revisit).
func TestResultRecordsTheExchange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polite.db")
	r := newFarmRig(t)
	h := r.site(politetest.Site{Name: "etag.test", Default: func(p string) politetest.Page {
		return politetest.Page{ETag: `"` + p + `-v1"`, Body: []byte("<p>page " + p + "</p>")}
	}})
	u := r.url(h, "/page")
	st := openTestStore(t, path)
	defer st.Close()
	r.start(polite.Config{Store: st, Contact: "ops@example.org"})
	r.add(u)
	first := r.results(1)[u]
	r.f.Close()
	r.clk.Advance(time.Hour)
	r.start(polite.Config{Store: st, Contact: "ops@example.org"})
	r.add(u)
	second := r.results(1)[u]

	vs := pageVisits(r.farm.Audit().VisitsTo(h))
	if len(vs) != 2 {
		t.Fatalf("farm saw %d page requests, want 2", len(vs))
	}
	for i, res := range []*polite.Result{first, second} {
		for _, k := range []string{"User-Agent", "Accept", "From", "If-None-Match"} {
			if got, saw := res.Request.Get(k), vs[i].Header.Get(k); got != saw {
				t.Errorf("run %d: Result.Request %s = %q, the farm saw %q", i+1, k, got, saw)
			}
		}
	}
	if first.NotModified || first.NotModifiedHeader != nil || !first.CopyFetched.IsZero() {
		t.Errorf("run 1: a 200 with NotModifiedHeader %v, CopyFetched %v", first.NotModifiedHeader, first.CopyFetched)
	}
	if !second.NotModified || second.NotModifiedHeader.Get("ETag") != `"/page-v1"` || second.Header.Get("Content-Type") == "" {
		t.Errorf("run 2: NotModified %v, 304 header %v, copy header %v", second.NotModified, second.NotModifiedHeader, second.Header)
	}
	if want := first.Started.Add(first.Duration); !second.CopyFetched.Equal(want) {
		t.Errorf("run 2: CopyFetched %v, want run 1's end %v", second.CopyFetched, want)
	}
}

// heldStore is a memory Store whose calls of one method about one host
// wait until release is closed: a Store on a slow disk or a far network.
// entered is closed when the first such call has begun.
type heldStore struct {
	polite.Store
	method, host string
	entered      chan struct{}
	release      chan struct{}
	once         sync.Once
}

func newHeldStore(method, host string) *heldStore {
	return &heldStore{Store: polite.NewMemoryStore(), method: method, host: host,
		entered: make(chan struct{}), release: make(chan struct{})}
}

func (s *heldStore) hold(method, key string) {
	if method == s.method && strings.Contains(key, s.host) {
		s.once.Do(func() { close(s.entered) })
		<-s.release
	}
}

func (s *heldStore) LoadHost(h string) (polite.HostRecord, bool, error) {
	s.hold("LoadHost", h)
	return s.Store.LoadHost(h)
}

func (s *heldStore) LoadRobots(o string) (polite.StoredRobots, bool, error) {
	s.hold("LoadRobots", o)
	return s.Store.LoadRobots(o)
}

func (s *heldStore) AddRefusal(r polite.RefusalRecord) error {
	s.hold("AddRefusal", r.Host)
	return s.Store.AddRefusal(r)
}

// R1.2, R3.3, R3.4, R5.3: a Store call that takes long holds up only the
// host it is about. The scheduler asks the Store outside the lock every
// worker needs: while slow.test's record, robots.txt copy or refusal is
// being read or written, another host is fetched and answered. Before,
// the call was made with that lock held, and nothing else moved.
func TestSlowStoreHoldsUpOnlyItsHost(t *testing.T) {
	for _, method := range []string{"LoadHost", "LoadRobots", "AddRefusal"} {
		t.Run(method, func(t *testing.T) {
			r := newFarmRig(t)
			slowPages := map[string]politetest.Page{"/a": {Body: []byte("<p>a</p>")}}
			var apis []polite.API
			if method == "AddRefusal" { // its page refuses, and the stop is written
				slowPages["/a"] = politetest.Page{Status: http.StatusForbidden, Body: []byte("no")}
				apis = append(apis, polite.API{Host: "slow.test", Terms: "https://slow.test/terms"})
			}
			slow := r.site(politetest.Site{Name: "slow.test", Pages: slowPages})
			// other.test is a declared API: no robots.txt, no rest before
			// its first request, so its Result needs no time to pass.
			other := r.site(politetest.Site{Name: "other.test", Pages: map[string]politetest.Page{"/b": {Body: []byte("<p>b</p>")}}})
			apis = append(apis, polite.API{Host: "other.test", Terms: "https://other.test/terms"})
			store := newHeldStore(method, "slow.test")
			r.start(polite.Config{Store: store, APIs: apis})

			a, b := r.url(slow, "/a"), r.url(other, "/b")
			r.add(a)
			<-store.entered
			r.add(b)
			first, err := r.f.Next(context.Background())
			if method == "AddRefusal" && err == nil && first.URL == a {
				// The refused page's Result may come before the write ends.
				first, err = r.f.Next(context.Background())
			}
			if err != nil || first.URL != b || first.Err != nil || first.Status != http.StatusOK {
				t.Fatalf("while %s for slow.test waits: got %+v (%v), want other.test's page", method, first, err)
			}
			if n := r.farm.Audit().Count(other); n != 1 {
				t.Errorf("other.test saw %d requests, want 1", n)
			}
			close(store.release)
			if method != "AddRefusal" {
				if res := r.results(1)[a]; res == nil || res.Err != nil {
					t.Fatalf("slow.test's page after the store answered: %+v", res)
				}
				return
			}
			// Close waits for the stop's write: after it, the store has it.
			r.f.Close()
			refs, err := store.Refusals()
			if err != nil || len(refs) != 1 || refs[0].Host != "slow.test" || refs[0].Status != http.StatusForbidden {
				t.Errorf("refusals kept: %+v (%v), want slow.test's 403", refs, err)
			}
			if rec, ok, err := store.LoadHost("slow.test"); err != nil || !ok || rec.Stops != 1 {
				t.Errorf("host record: %+v %v (%v), want one stop", rec, ok, err)
			}
		})
	}
}

// R3.3, R5.3: what the Store answers still holds when it answers late. A
// host cooling off from an earlier run is not asked at all, and a stored
// robots.txt copy still fresh is used without asking for robots.txt.
func TestStoreAnswersStillHold(t *testing.T) {
	r := newFarmRig(t)
	cooling := r.site(politetest.Site{Name: "cooling.test", Pages: map[string]politetest.Page{"/a": {}}})
	known := r.site(politetest.Site{Name: "known.test", Pages: map[string]politetest.Page{"/b": {}, "/private/c": {}}})
	store := polite.NewMemoryStore()
	if err := store.SaveHost(polite.HostRecord{Host: "cooling.test", Stops: 1,
		CoolOffUntil: r.clk.Now().Add(polite.DefaultCoolOff), LastReason: "403"}); err != nil {
		t.Fatal(err)
	}
	b, c := r.url(known, "/b"), r.url(known, "/private/c")
	origin := strings.TrimSuffix(b, "/b")
	if err := store.SaveRobots(polite.StoredRobots{Origin: origin, Status: 200,
		Body: []byte("User-agent: *\nDisallow: /private/\n"), Fetched: r.clk.Now()}); err != nil {
		t.Fatal(err)
	}
	r.start(polite.Config{Store: store})
	a := r.url(cooling, "/a")
	r.add(a, b, c)
	got := r.results(3)
	if !errors.Is(got[a].Err, polite.ErrCoolingOff) {
		t.Errorf("cooling.test: %v, want ErrCoolingOff", got[a].Err)
	}
	if got[b].Err != nil || !isA[*polite.DisallowedError](got[c].Err) {
		t.Errorf("known.test: /b %v, /private/c %v; want /b fetched and /private/c disallowed by the stored copy", got[b].Err, got[c].Err)
	}
	if n := r.farm.Audit().Count(cooling); n != 0 {
		t.Errorf("cooling.test saw %d requests, want none", n)
	}
	for _, v := range r.farm.Audit().VisitsTo(known) {
		if v.Path == politetest.RobotsPath {
			t.Errorf("known.test was asked for robots.txt, with a fresh copy stored")
		}
	}
}

// timedStore is a memory Store that notes the clock at each LoadPage.
type timedStore struct {
	polite.Store
	now   func() time.Time
	mu    sync.Mutex
	loads map[string][]time.Time
}

func (s *timedStore) LoadPage(u string) (polite.StoredPage, bool, error) {
	s.mu.Lock()
	s.loads[u] = append(s.loads[u], s.now())
	s.mu.Unlock()
	return s.Store.LoadPage(u)
}

// R6.1, R1.2: a queued page's stored copy is read while its budget rests,
// so a Store's time does not lengthen the gap the server sees between two
// requests. The request is still conditional on the copy's validators,
// and a 304 still gives the stored page.
func TestStoredCopyIsReadDuringTheRest(t *testing.T) {
	r := newFarmRig(t)
	host := r.site(politetest.Site{Name: "kept.test", Pages: map[string]politetest.Page{
		"/p1": {ETag: `"1"`, Body: []byte("<p>one</p>")},
		"/p2": {ETag: `"2"`, Body: []byte("<p>two</p>")},
	}})
	store := &timedStore{Store: polite.NewMemoryStore(), now: r.clk.Now, loads: map[string][]time.Time{}}
	urls := []string{r.url(host, "/p1"), r.url(host, "/p2")}
	for i, u := range urls {
		p := polite.StoredPage{URL: u, Status: 200, Body: []byte("<p>stored</p>"), Fetched: r.clk.Now(),
			Header: http.Header{"Etag": {fmt.Sprintf(`"%d"`, i+1)}, "Content-Type": {"text/html"}}}
		if err := store.SavePage(p); err != nil {
			t.Fatal(err)
		}
	}
	r.start(polite.Config{Store: store})
	r.add(urls...)
	got := r.results(2)
	visits := map[string]politetest.Visit{}
	for _, v := range r.farm.Audit().VisitsTo(host) {
		visits[v.Path] = v
	}
	for i, u := range urls {
		res, v := got[u], visits[fmt.Sprintf("/p%d", i+1)]
		if res.Err != nil || !res.NotModified || string(res.Body) != "<p>stored</p>" {
			t.Errorf("%s: err %v, NotModified %v, body %q; want the stored copy confirmed", u, res.Err, res.NotModified, res.Body)
		}
		if inm := v.Header.Get("If-None-Match"); inm != fmt.Sprintf(`"%d"`, i+1) {
			t.Errorf("%s: If-None-Match %q", u, inm)
		}
		store.mu.Lock()
		loads := store.loads[u]
		store.mu.Unlock()
		if len(loads) == 0 || !loads[0].Before(v.Start) {
			t.Errorf("%s: copy loaded at %v, request at %v; want it loaded during the rest before", u, loads, v.Start)
		}
	}
}

// R5.3, R3.3, R3.4, R6: with Config.Shared, the robots.txt copies and host
// records are the Shared's, for every run that is given it, while pages are
// kept only in Config.Store.
func TestStorePartsComeFromTheirOwnStores(t *testing.T) {
	r := newFarmRig(t)
	kept := r.site(politetest.Site{Name: "kept.test", Pages: map[string]politetest.Page{
		politetest.RobotsPath: politetest.Robots("User-agent: *\nDisallow: /private\n"),
		"/a":                  {ETag: `"a1"`, Body: []byte("<p>a</p>")},
	}})
	refusing := r.site(politetest.Site{Name: "refusing.test", Pages: map[string]politetest.Page{"/no": {Status: 403}}})
	shared, local := polite.NewMemoryStore(), polite.NewMemoryStore()
	coordinated := &scriptedShared{Store: shared, take: granted}
	page, no := r.url(kept, "/a"), r.url(refusing, "/no")

	// Run 1: pages in local, robots.txt and host records in shared.
	f := r.start(polite.Config{Store: local, Shared: coordinated})
	r.add(page, no)
	got := r.results(2)
	if got[page].Err != nil || !isA[*polite.RefusalError](got[no].Err) {
		t.Fatalf("run 1: page %v, refusing %v", got[page].Err, got[no].Err)
	}
	f.Close() // waits for the stop's writes
	origin := strings.TrimSuffix(page, "/a")
	for _, c := range []struct {
		name  string
		store polite.Store
		want  bool
	}{{"shared", shared, true}, {"local", local, false}} {
		_, robots, err := c.store.LoadRobots(origin)
		refusals, rerr := c.store.Refusals()
		_, host, herr := c.store.LoadHost(refusing)
		if err != nil || rerr != nil || herr != nil {
			t.Fatal(err, rerr, herr)
		}
		if robots != c.want || (len(refusals) == 1) != c.want || host != c.want {
			t.Errorf("%s store: robots.txt kept %v, %d refusals, host record %v; want all %v", c.name, robots, len(refusals), host, c.want)
		}
	}
	if hist, err := local.PageHistory(page); err != nil || len(hist) != 1 {
		t.Errorf("local store: %d versions of %s (%v), want 1", len(hist), page, err)
	}
	if hist, err := shared.PageHistory(page); err != nil || len(hist) != 0 {
		t.Errorf("shared store: %d versions of %s (%v), want none", len(hist), page, err)
	}
	r.farm.Audit().Reset()

	// Run 2, a minute later, with only the shared parts: robots.txt comes
	// from the copy, the refusing host is cooling off, and the page is
	// asked unconditionally since no PageStore holds its copy.
	r.clk.Advance(time.Minute)
	r.start(polite.Config{Shared: coordinated})
	r.add(page, no)
	got = r.results(2)
	if got[page].Err != nil || got[page].NotModified || !errors.Is(got[no].Err, polite.ErrCoolingOff) {
		t.Errorf("run 2: page %v (not modified %v), refusing %v, want the page and ErrCoolingOff", got[page].Err, got[page].NotModified, got[no].Err)
	}
	vs := r.farm.Audit().Visits()
	if len(vs) != 1 || vs[0].Path != "/a" || vs[0].Header.Get("If-None-Match") != "" {
		t.Errorf("run 2: farm saw %v, want only /a, unconditional", vs)
	}
}

// The process tests re-run this test binary as a child that works on a
// store: TestCrashChild does the child's part when storeChildEnv is set.
const (
	storeChildEnv  = "POLITE_STORE_CHILD" // "save" or "hold"
	storePathEnv   = "POLITE_STORE_PATH"
	storeRoundEnv  = "POLITE_STORE_ROUND"
	crashWorkers   = 4
	crashLinesRead = 200
)

// crashBody is the body of a page the crash child saves: large enough to
// take several bbolt pages, distinct per URL.
func crashBody(url string) []byte {
	return bytes.Repeat([]byte("<p>"+url+"</p>\n"), 1+8000/(len(url)+8))
}

// TestCrashChild is the child's side of TestStoreCrash and
// TestStoreLockedByProcess; run directly, it skips.
func TestCrashChild(t *testing.T) {
	mode := os.Getenv(storeChildEnv)
	if mode == "" {
		t.Skip("the child of TestStoreCrash and TestStoreLockedByProcess")
	}
	s, err := polite.OpenStore(os.Getenv(storePathEnv))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	switch mode {
	case "hold":
		fmt.Println("ready")
		for {
			time.Sleep(time.Hour) // until killed
		}
	case "save":
		// Workers save pages in a loop and print each URL once SavePage
		// has returned; the parent kills the process at some point.
		round := os.Getenv(storeRoundEnv)
		var mu sync.Mutex
		for w := range crashWorkers {
			go func() {
				for i := 0; ; i++ {
					p := testPage(fmt.Sprintf("https://r%s-w%d.example/%d", round, w, i), i)
					p.Body = crashBody(p.URL)
					if err := s.SavePage(p); err != nil {
						fmt.Println("error", err)
						os.Exit(2)
					}
					if i%10 == 0 {
						if err := s.AddRefusal(polite.RefusalRecord{Host: p.URL, Kind: "refused"}); err != nil {
							fmt.Println("error", err)
							os.Exit(2)
						}
					}
					mu.Lock()
					fmt.Println("saved", p.URL)
					mu.Unlock()
				}
			}()
		}
		for {
			time.Sleep(time.Hour)
		}
	}
	t.Fatalf("unknown child mode %q", mode)
}

func skipProcessTests(t *testing.T) {
	switch runtime.GOOS {
	case "js", "wasip1", "ios", "android":
		t.Skipf("no child processes on %s", runtime.GOOS)
	}
}

// startStoreChild runs TestCrashChild in a new process and returns its
// stdout lines.
func startStoreChild(t *testing.T, mode, path string, round int) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), storeChildEnv+"="+mode, storePathEnv+"="+path, fmt.Sprintf("%s=%d", storeRoundEnv, round))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, bufio.NewScanner(out)
}

// TestStoreCrash: a child saving pages with four workers is killed with
// SIGKILL; the store opens afterwards, passes bbolt's consistency check
// and holds every page whose save the child reported, with its body.
// Three rounds on one file: each child starts from a store a killed
// child left.
func TestStoreCrash(t *testing.T) {
	skipProcessTests(t)
	path := filepath.Join(t.TempDir(), "crash.db")
	var reported []string
	for round := range 3 {
		cmd, lines := startStoreChild(t, "save", path, round)
		n := 0
		for n < crashLinesRead && lines.Scan() {
			line := lines.Text()
			url, ok := strings.CutPrefix(line, "saved ")
			if !ok {
				t.Fatalf("child: %s", line)
			}
			reported = append(reported, url)
			n++
		}
		if n < crashLinesRead {
			t.Fatalf("round %d: child stopped after %d saves: %v", round, n, lines.Err())
		}
		// Kill it (SIGKILL on Unix) somewhere in a save.
		time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		// What it printed between our last read and its death counts
		// too; Wait closes the pipe, so read first.
		for lines.Scan() {
			if url, ok := strings.CutPrefix(lines.Text(), "saved "); ok {
				reported = append(reported, url)
			}
		}
		var exit *exec.ExitError
		if err := cmd.Wait(); !errors.As(err, &exit) {
			t.Fatalf("round %d: child ended with %v, want killed", round, err)
		}

		checkBolt(t, path)
		s, err := polite.OpenStore(path)
		if err != nil {
			t.Fatalf("round %d: the store does not open after the kill: %v", round, err)
		}
		for _, url := range reported {
			p, ok, err := s.LoadPage(url)
			if err != nil || !ok {
				t.Fatalf("round %d: %s reported saved, LoadPage = %v, %v", round, url, ok, err)
			}
			if !bytes.Equal(p.Body, crashBody(url)) || p.Status != 200 {
				t.Fatalf("round %d: %s: status %d, body of %d bytes", round, url, p.Status, len(p.Body))
			}
		}
		rs, err := s.Refusals()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: %d pages reported saved so far, all there; %d refusals", round, len(reported), len(rs))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkBolt runs bbolt's own consistency check over the file.
func checkBolt(t *testing.T, path string) {
	t.Helper()
	db, err := bbolt.Open(path, 0, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatalf("bbolt cannot open the file: %v", err)
	}
	defer db.Close()
	err = db.View(func(tx *bbolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
	if err != nil {
		t.Fatalf("bbolt check: %v", err)
	}
}

// TestStoreLockedByProcess: while a child process holds the store,
// OpenStore returns ErrStoreLocked within about a second, not a hang;
// once the child is gone, the store opens.
func TestStoreLockedByProcess(t *testing.T) {
	skipProcessTests(t)
	path := filepath.Join(t.TempDir(), "held.db")
	s, err := polite.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	mustSave(t, s, testPage("https://example.org/", 0))
	s.Close()

	cmd, lines := startStoreChild(t, "hold", path, 0)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("child: %q %v", lines.Text(), lines.Err())
	}
	before, _ := os.ReadFile(path)
	start := time.Now()
	s, err = polite.OpenStore(path)
	elapsed := time.Since(start)
	if err == nil {
		s.Close()
		t.Fatal("opened a store another process holds")
	}
	if !errors.Is(err, polite.ErrStoreLocked) || !errors.Is(err, polite.ErrStore) {
		t.Fatalf("err = %v, want ErrStoreLocked", err)
	}
	t.Logf("%v after %v", err, elapsed.Round(time.Millisecond))
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the file changed")
	}

	cmd.Process.Kill()
	cmd.Wait()
	s, err = polite.OpenStore(path)
	if err != nil {
		t.Fatalf("after the child is gone: %v", err)
	}
	mustLoad(t, s, "https://example.org/")
	s.Close()
}
