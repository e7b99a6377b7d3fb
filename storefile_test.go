package polite_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/politecrawler/polite"
	"go.etcd.io/bbolt"
)

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
