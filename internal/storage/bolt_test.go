package storage

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"
)

func testPage(url string, i int, body []byte) Page {
	return Page{
		URL:     url,
		Status:  200,
		Header:  map[string][]string{"Etag": {fmt.Sprintf(`"%d"`, i)}, "Content-Type": {"text/html"}},
		Body:    body,
		Fetched: time.Date(2026, 1, 2, 3, 4, 5, i, time.UTC),
	}
}

func openTemp(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// bucketKeys counts the keys of a bucket of a closed store file.
func bucketKeys(t *testing.T, path string, bucket []byte) int {
	t.Helper()
	db, err := bbolt.Open(path, 0, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	db.View(func(tx *bbolt.Tx) error {
		n = tx.Bucket(bucket).Stats().KeyN
		return nil
	})
	return n
}

// TestStoreBodiesDeduplicated: versions with an unchanged body, and
// other URLs with the same body, add no body to the bodies bucket.
func TestStoreBodiesDeduplicated(t *testing.T) {
	db, path := openTemp(t)
	a := bytes.Repeat([]byte("a"), 30_000)
	b := bytes.Repeat([]byte("b"), 30_000)
	for i := range 10 {
		for _, u := range []string{"https://x.example/1", "https://x.example/2"} {
			if err := db.SavePage(testPage(u, i, a)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.SavePage(testPage("https://x.example/1", 10, b)); err != nil {
		t.Fatal(err)
	}
	if err := db.SavePage(testPage("https://x.example/3", 0, nil)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if n := bucketKeys(t, path, bucketBodies); n != 2 {
		t.Errorf("%d bodies kept, want 2", n)
	}
	if n := bucketKeys(t, path, bucketPages); n != 22 {
		t.Errorf("%d page versions kept, want 22", n)
	}
}

// TestStorePageKeys: one URL's versions are exactly the keys under its
// prefix, whatever the URLs' bytes.
func TestStorePageKeys(t *testing.T) {
	urls := []string{"a", "ab", "a\x00", "\x01a", "\x02", strings.Repeat("z", 127), strings.Repeat("z", 128), strings.Repeat("z", 300)}
	for _, u := range urls {
		k := binary.BigEndian.AppendUint64(pagePrefix(u), 42)
		if got, ok := parsePageKey(k); !ok || got != u {
			t.Errorf("parsePageKey(key of %q) = %q, %v", u, got, ok)
		}
		for _, v := range urls {
			kv := binary.BigEndian.AppendUint64(pagePrefix(v), 7)
			if v != u && bytes.HasPrefix(kv, pagePrefix(u)) {
				t.Errorf("a key of %q has the prefix of %q", v, u)
			}
		}
	}
	for _, k := range [][]byte{nil, {5, 'a'}, {0x80}, append(pagePrefix("ab"), 1, 2, 3)} {
		if _, ok := parsePageKey(k); ok {
			t.Errorf("parsePageKey(%x) accepted", k)
		}
	}
}

// TestStoreBlankBoltAdopted: a bbolt file with no bucket (a creation cut
// short) becomes a store; one with any bucket is refused.
func TestStoreBlankBoltAdopted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "blank.db")
	raw, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("blank bbolt file: %v", err)
	}
	if err := db.SavePage(testPage("https://x.example/", 0, []byte("x"))); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := db.LoadPage("https://x.example/"); !ok || err != nil {
		t.Fatalf("LoadPage = %v, %v", ok, err)
	}
	db.Close()
}

// TestOpenUpgradesFormat1: a file of format 1, as the version before the
// rests wrote it (its five data buckets, format 1), opens with its records
// whole, gets the rest buckets and is marked format 2; a format-2 file
// without them is damaged (R1.4).
func TestOpenUpgradesFormat1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "format1.db")
	raw, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	host := Host{Host: "example.org", Stops: 1, CoolOffUntil: when(6).UTC(), LastReason: "403"}
	err = raw.Update(func(tx *bbolt.Tx) error {
		for _, name := range []string{"pages", "bodies", "robots", "refusals", "hosts"} {
			if _, err := tx.CreateBucket([]byte(name)); err != nil {
				return err
			}
		}
		meta, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}
		meta.Put([]byte("magic"), []byte("polite store"))
		meta.Put([]byte("format"), []byte{1})
		return tx.Bucket([]byte("hosts")).Put([]byte(host.Host), encodeHost(host))
	})
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}

	db, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("a format-1 file: %v", err)
	}
	if h, ok, err := db.LoadHost(host.Host); err != nil || !ok || h != host {
		t.Errorf("its host record: %#v, %v, %v", h, ok, err)
	}
	if _, ok, err := db.LoadHostRest(host.Host); err != nil || ok {
		t.Errorf("a rest in a format-1 file: %v, %v", ok, err)
	}
	rest := Rest{Addr: netip.MustParseAddr("192.0.2.1"), Host: host.Host, Until: when(1).UTC(), Rest: 3 * time.Second}
	if err := db.SaveRests([]Rest{rest}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	raw, err = bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw.View(func(tx *bbolt.Tx) error {
		if v, _ := binary.Uvarint(tx.Bucket([]byte("meta")).Get([]byte("format"))); v != FormatVersion {
			t.Errorf("format %d after Open, want %d", v, FormatVersion)
		}
		return nil
	})
	raw.Close()
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok, err := db.LoadAddrRest(rest.Addr); err != nil || !ok || r != rest {
		t.Errorf("the rest after reopening: %#v, %v, %v", r, ok, err)
	}
	db.Close()

	raw, err = bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw.Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket(bucketHostRest) })
	raw.Close()
	if db, err := Open(path, Options{}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "hostrests") {
		if err == nil {
			db.Close()
		}
		t.Errorf("format 2 without its hostrests bucket: %v, want ErrCorrupt naming it", err)
	}
}

// TestStoreLockTimeout: Options.LockTimeout bounds the wait.
func TestStoreLockTimeout(t *testing.T) {
	db, path := openTemp(t)
	_ = db
	start := time.Now()
	_, err := Open(path, Options{LockTimeout: 200 * time.Millisecond})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	// It waited for the lock (bbolt polls it every 50 ms, so it may give
	// up a poll early); how much longer is the machine's, and no bound
	// here.
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Fatalf("waited %v for a 200ms timeout", d)
	}
}

// TestStoreBodyChecked: a body damaged on disk (bbolt has no checksum
// for it) is an error when loaded, not a wrong page.
func TestStoreBodyChecked(t *testing.T) {
	db, path := openTemp(t)
	body := []byte(strings.Repeat("<p>MARKER original body</p>", 500))
	if err := db.SavePage(testPage("https://x.example/", 0, body)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("MARKER"))
	if i < 0 {
		t.Fatal("body not found in the file")
	}
	data[i] = 'm'
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err) // the records are sound; only the body's bytes changed
	}
	defer db.Close()
	if _, _, err := db.LoadPage("https://x.example/"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("LoadPage of a damaged body: %v, want ErrCorrupt", err)
	}
	if _, err := db.PageHistory("https://x.example/"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("PageHistory of a damaged body: %v, want ErrCorrupt", err)
	}
}

// TestStoreTruncatedWhileOpen: a file cut short under an open store (by
// another program) makes loads fail with ErrCorrupt instead of crashing
// the process on a memory fault.
func TestStoreTruncatedWhileOpen(t *testing.T) {
	db, path := openTemp(t)
	for i := range 50 {
		if err := db.SavePage(testPage(fmt.Sprintf("https://x.example/%d", i), i, bytes.Repeat([]byte{byte(i)}, 20_000))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Truncate(path, int64(2*os.Getpagesize())); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for i := range 50 {
		if _, _, err := db.LoadPage(fmt.Sprintf("https://x.example/%d", i)); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("every load succeeded on a truncated file")
	}
	t.Logf("%d of 50 loads failed cleanly", failed)
}

func TestStoreRecordsRoundTrip(t *testing.T) {
	at := time.Date(2026, 5, 17, 14, 3, 7, 999_999_999, time.UTC)
	pages := []pageRecord{
		{},
		{Status: 200, Header: map[string][]string{"A": {"1", "2"}, "B": nil, "C": {""}}, Fetched: at, BodyLen: 3, BodySum: [32]byte{1, 2, 3}},
		{Status: -7, Fetched: time.Unix(-1<<40, 1).UTC()},
	}
	for _, p := range pages {
		got, err := decodePage(encodePage(p))
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Errorf("page %+v → %+v, %v", p, got, err)
		}
	}
	r := Robots{Origin: "https://x.example:443", Status: 200, Header: map[string][]string{"Etag": {"e"}}, Body: []byte("User-agent: *"), Fetched: at}
	if got, err := decodeRobots(r.Origin, encodeRobots(r)); err != nil || !reflect.DeepEqual(got, r) {
		t.Errorf("robots → %+v, %v", got, err)
	}
	ref := Refusal{Host: "h", URL: "u", Status: 403, Kind: "refused", Evidence: "cf-mitigated", At: at}
	if got, err := decodeRefusal(encodeRefusal(ref)); err != nil || got != ref {
		t.Errorf("refusal → %+v, %v", got, err)
	}
	h := Host{Host: "h", Stops: 3, CoolOffUntil: at, LastReason: "403"}
	if got, err := decodeHost("h", encodeHost(h)); err != nil || got != h {
		t.Errorf("host → %+v, %v", got, err)
	}
	for _, rest := range []Rest{
		{Addr: netip.MustParseAddr("192.0.2.1"), Host: "h", Until: at, Rest: 3*time.Second + 1},
		{Addr: netip.MustParseAddr("2001:db8::1"), Host: "h", Until: time.Unix(-1<<40, 1).UTC()},
	} {
		if got, err := decodeRest(encodeRest(rest)); err != nil || got != rest {
			t.Errorf("rest %+v → %+v, %v", rest, got, err)
		}
	}
	// Every strict prefix of a record, and a record with a byte more, is
	// an error.
	full := encodeRobots(r)
	for n := range len(full) {
		if _, err := decodeRobots("o", full[:n]); err == nil {
			t.Errorf("a robots record cut at %d of %d bytes decoded", n, len(full))
		}
	}
	if _, err := decodeRobots("o", append(full, 0)); err == nil {
		t.Error("trailing byte accepted")
	}
}

// FuzzStoreRecords: decoding arbitrary bytes never panics nor allocates
// beyond the input's size, and what decodes encodes back to a record
// that decodes the same.
func FuzzStoreRecords(f *testing.F) {
	at := time.Date(2026, 5, 17, 14, 3, 7, 1, time.UTC)
	f.Add(encodePage(pageRecord{Status: 200, Header: map[string][]string{"A": {"1"}}, Fetched: at, BodyLen: 10}))
	f.Add(encodeRobots(Robots{Status: 404, Body: []byte("x"), Header: map[string][]string{"B": nil}}))
	f.Add(encodeRefusal(Refusal{Host: "h", Kind: "refused", At: at}))
	f.Add(encodeHost(Host{Stops: 2, CoolOffUntil: at}))
	f.Add(encodeRest(Rest{Addr: netip.MustParseAddr("192.0.2.1"), Host: "h", Until: at, Rest: time.Second}))
	f.Add([]byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		if p, err := decodePage(b); err == nil {
			if q, err := decodePage(encodePage(p)); err != nil || !reflect.DeepEqual(p, q) {
				t.Fatalf("page %+v re-decoded as %+v, %v", p, q, err)
			}
		}
		if r, err := decodeRobots("o", b); err == nil {
			if q, err := decodeRobots("o", encodeRobots(r)); err != nil || !reflect.DeepEqual(r, q) {
				t.Fatalf("robots %+v re-decoded as %+v, %v", r, q, err)
			}
		}
		if r, err := decodeRefusal(b); err == nil {
			if q, err := decodeRefusal(encodeRefusal(r)); err != nil || r != q {
				t.Fatalf("refusal %+v re-decoded as %+v, %v", r, q, err)
			}
		}
		if h, err := decodeHost("h", b); err == nil {
			if q, err := decodeHost("h", encodeHost(h)); err != nil || h != q {
				t.Fatalf("host %+v re-decoded as %+v, %v", h, q, err)
			}
		}
		if r, err := decodeRest(b); err == nil {
			if q, err := decodeRest(encodeRest(r)); err != nil || r != q {
				t.Fatalf("rest %+v re-decoded as %+v, %v", r, q, err)
			}
		}
	})
}

// TestStoreReopen: everything saved is there after Close and Open, and a
// reopened store goes on adding versions and refusals after the old ones.
func TestStoreReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pages []Page
	for i := range 40 {
		p := pageVersion(fmt.Sprintf("https://example.org/%d", i%10), i)
		pages = append(pages, p)
		mustSave(t, s, p)
	}
	r := Robots{Origin: "https://example.org:443", Status: 200, Body: []byte("User-agent: *\nCrawl-delay: 5\n"), Header: map[string][]string{"Etag": {`"r1"`}}, Fetched: when(0)}
	if err := s.SaveRobots(r); err != nil {
		t.Fatal(err)
	}
	ref := Refusal{Host: "example.org", URL: "https://example.org/x", Status: 403, Kind: "refused", Evidence: "403", At: when(1)}
	if err := s.AddRefusal(ref); err != nil {
		t.Fatal(err)
	}
	host := Host{Host: "example.org", Stops: 3, CoolOffUntil: when(24), LastReason: "refused"}
	if err := s.SaveHost(host); err != nil {
		t.Fatal(err)
	}
	rest := Rest{Addr: netip.MustParseAddr("192.0.2.1"), Host: "example.org", Until: when(2), Rest: 3*time.Second + 1}
	if err := s.SaveRests([]Rest{rest}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(path, Options{})
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
	if err != nil || !ok || !bytes.Equal(gotR.Body, r.Body) || etag(gotR.Header) != `"r1"` || !gotR.Fetched.Equal(r.Fetched) {
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
	rest.Until = rest.Until.UTC()
	if r, ok, err := s.LoadAddrRest(rest.Addr); err != nil || !ok || r != rest {
		t.Fatalf("address's rest after reopening: %#v, %v, %v", r, ok, err)
	}
	if r, ok, err := s.LoadHostRest("example.org"); err != nil || !ok || r != rest {
		t.Fatalf("host's rest after reopening: %#v, %v, %v", r, ok, err)
	}

	// It goes on after the old records.
	next := pageVersion("https://example.org/0", 99)
	mustSave(t, s, next)
	if h := mustHistory(t, s, next.URL); len(h) != 5 {
		t.Fatalf("%d versions, want 5", len(h))
	} else {
		samePage(t, h[4], next)
	}
	if err := s.AddRefusal(Refusal{Host: "second"}); err != nil {
		t.Fatal(err)
	}
	if rs, _ := s.Refusals(); len(rs) != 2 || rs[1].Host != "second" {
		t.Fatalf("refusals after adding one: %#v", rs)
	}
}

// TestOpenCreates: a missing path and an empty file become stores.
func TestOpenCreates(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "new.db"), empty} {
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		mustSave(t, s, pageVersion("https://example.org/", 0))
		s.Close()
		s, err = Open(path, Options{})
		if err != nil {
			t.Fatalf("%s reopened: %v", path, err)
		}
		mustLoad(t, s, "https://example.org/")
		s.Close()
	}
	if _, err := Open(filepath.Join(dir, "no-such-dir", "x.db"), Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a path in a missing directory: %v, want fs.ErrNotExist", err)
	}
}

// TestOpenRejects: files that are not stores, or damaged ones, are a
// clear error and stay byte for byte as they were.
func TestOpenRejects(t *testing.T) {
	dir := t.TempDir()
	random := func(n int) []byte {
		b := make([]byte, n)
		r := rand.NewChaCha8([32]byte{byte(n)})
		r.Read(b)
		return b
	}
	// A real store with some data, to damage.
	good := filepath.Join(dir, "good.db")
	s, err := Open(good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		p := pageVersion(fmt.Sprintf("https://example.org/%d", i), i)
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
	db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("format"), []byte{FormatVersion + 1})
	})
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
		is         error
		want       string // in the error message
	}{
		{"text file", damage("text.txt", func([]byte) []byte { return []byte("hello, this is not a database\n") }), ErrNotStore, "not a polite store"},
		{"random 100 bytes", damage("r100", func([]byte) []byte { return random(100) }), ErrNotStore, "not a polite store"},
		{"random one page", damage("r1p", func([]byte) []byte { return random(pageSize) }), ErrNotStore, "not a polite store"},
		{"random 64 KiB", damage("r64k", func([]byte) []byte { return random(64 << 10) }), ErrNotStore, "not a polite store"},
		{"foreign bbolt", foreign, ErrNotStore, "without polite's meta bucket"},
		{"newer format", newer, ErrFormat, fmt.Sprintf("format %d", FormatVersion+1)},
		{"meta pages overwritten", damage("meta", func(b []byte) []byte { copy(b, random(2*pageSize)); return b }), ErrNotStore, "not a polite store"},
		{"meta checksum", damage("sum", func(b []byte) []byte { b[60]++; b[pageSize+60]++; return b }), ErrCorrupt, "checksum"},
		{"truncated", damage("trunc", func(b []byte) []byte { return b[:len(b)/2] }), ErrCorrupt, "truncated"},
		{"truncated to two pages", damage("trunc2", func(b []byte) []byte { return b[:2*pageSize] }), ErrCorrupt, "damaged"},
		{"data pages overwritten", damage("data", func(b []byte) []byte { copy(b[2*pageSize:], random(len(b)-2*pageSize)); return b }), ErrCorrupt, "damaged"},
		{"directory", dir, ErrNotStore, "directory"},
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
			s, err := Open(c.path, Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open accepted it")
			}
			if !errors.Is(err, c.is) || errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v; want %v saying %q", err, c.is, c.want)
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
			if _, err2 := Open(c.path, Options{}); err2 == nil || errors.Is(err2, ErrLocked) {
				t.Errorf("second attempt: %v", err2)
			}
		})
	}
	// The undamaged original still opens.
	s, err = Open(good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// TestOpenLockedInProcess: a second Open of a file already open returns
// ErrLocked, not a hang (go test's -timeout would say).
func TestOpenLockedInProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s2, err := Open(path, Options{})
	if err == nil {
		s2.Close()
		t.Fatal("opened twice")
	}
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	t.Log(err)
	s.Close()
	s2, err = Open(path, Options{})
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	s2.Close()
}
