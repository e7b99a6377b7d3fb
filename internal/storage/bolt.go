// Package storage keeps polite's store records: page versions, robots.txt
// copies, refusal records, host records and rests, in one go.etcd.io/bbolt
// file (DB) or in memory for one run (Memory), normalised alike.
//
// The model: a bbolt file is a B+tree of buckets with one writer at a time
// and any number of readers, each in its own transaction. Every Save or Add
// here is one read-write transaction, committed with fsync before it
// returns, so a saved record survives a crash of the process or the
// machine; a transaction cut short by a crash is not seen at all. Loads are
// read-only transactions that copy what they return out of the mapped file.
//
// The file's layout (format 2):
//
//	meta       "magic" → "polite store", "format" → uvarint FormatVersion
//	pages      uvarint(len(url)) ‖ url ‖ uint64be(seq) → page version record
//	bodies     sha256(body) → body (content-addressed: a body saved again costs nothing)
//	robots     origin → robots record (the latest copy only)
//	refusals   uint64be(seq) → refusal record (in the order added)
//	hosts      host → host record
//	addrrests  server address, as text → rest record (the one that ends last)
//	hostrests  host → rest record (the one that ends last)
//
// Format 1 is format 2 without the two rest buckets; Open adds them to a
// format-1 file and marks it format 2, which older versions refuse
// (ErrFormat) rather than fetch from it without its rests.
//
// A page key starts with the URL's length and the URL, a prefix no other
// URL's key starts with (a uvarint ends where it says), so one URL's
// versions are one contiguous run of keys in the order saved; the latest
// is the last of the run. The records are
// in codec.go.
//
// Open never writes to a file it rejects: an existing file is first opened
// read-only and checked (bbolt's meta pages, the file's length against its
// pages, our meta bucket and format version, every record decodable) and
// only then opened for writing.
package storage

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// FormatVersion is the version of the file's layout written in the meta
// bucket. Open refuses files with a newer version, and brings an older
// one up to it.
const FormatVersion = 2

// DefaultLockTimeout is how long Open waits for the file's lock when
// Options.LockTimeout is zero.
const DefaultLockTimeout = time.Second

// MaxKeyLength is the longest URL, origin or host a store accepts, in
// bytes (bbolt's own limit is 32 KiB per key).
const MaxKeyLength = 16 << 10

// Errors of Open and of the store's methods; each is matched with
// errors.Is and the error itself names the file and the cause.
var (
	// ErrLocked: the file is held by another process (or another open
	// store in this one) and was not let go within the lock timeout.
	ErrLocked = errors.New("held by another process or another open store")

	// ErrNotStore: the file is not a polite store: not a bbolt file at
	// all, or a bbolt file of some other program.
	ErrNotStore = errors.New("not a polite store")

	// ErrCorrupt: the file is a store, but damaged (truncated, a bad meta
	// page, a record or page that cannot be read).
	ErrCorrupt = errors.New("damaged")

	// ErrFormat: the file was written by a newer version of the store.
	ErrFormat = errors.New("unsupported format")

	// ErrClosed: the store was closed.
	ErrClosed = errors.New("closed")

	// ErrKey: an empty URL, origin or host, or one over MaxKeyLength.
	ErrKey = errors.New("invalid key")
)

var (
	bucketMeta     = []byte("meta")
	bucketPages    = []byte("pages")
	bucketBodies   = []byte("bodies")
	bucketRobots   = []byte("robots")
	bucketRefusals = []byte("refusals")
	bucketHosts    = []byte("hosts")
	bucketAddrRest = []byte("addrrests")
	bucketHostRest = []byte("hostrests")

	// dataBuckets are created with the meta bucket and must all exist in
	// a file of their format and later; format 1 has the first five.
	dataBuckets = []struct {
		name  []byte
		since uint64 // the format that added it
	}{
		{bucketPages, 1}, {bucketBodies, 1}, {bucketRobots, 1}, {bucketRefusals, 1}, {bucketHosts, 1},
		{bucketAddrRest, 2}, {bucketHostRest, 2},
	}

	keyMagic   = []byte("magic")
	keyFormat  = []byte("format")
	magicValue = []byte("polite store")
)

const maxValueSize = bbolt.MaxValueSize

// Page is one version of a page: the same fields as polite.StoredPage.
type Page struct {
	URL     string
	Status  int
	Header  map[string][]string
	Body    []byte
	Fetched time.Time
}

// Robots is a robots.txt copy: the same fields as polite.StoredRobots.
type Robots struct {
	Origin  string
	Status  int
	Header  map[string][]string
	Body    []byte
	Fetched time.Time
}

// Refusal is a refusal record: the same fields as polite.RefusalRecord.
type Refusal struct {
	Host, URL string
	Status    int
	Kind      string
	Evidence  string
	At        time.Time
}

// Host is a host record: the same fields as polite.HostRecord.
type Host struct {
	Host         string
	Stops        int
	CoolOffUntil time.Time
	LastReason   string
}

// Rest is a rest record: the same fields as polite.RestRecord. It is kept
// under its address and under its host.
type Rest struct {
	Addr  netip.Addr
	Host  string
	Until time.Time
	Rest  time.Duration
}

// Options tune Open. The zero value is what polite uses.
type Options struct {
	// LockTimeout is how long Open waits for the file's lock before
	// returning ErrLocked; zero means DefaultLockTimeout.
	LockTimeout time.Duration
}

// DB is an open store file. Its methods are safe for concurrent use;
// writers take turns (bbolt allows one write transaction at a time),
// readers do not wait for them.
type DB struct {
	db     *bbolt.DB
	path   string
	closed atomic.Bool
}

// Open opens the store at path, creating it if the path does not exist
// or is an empty file. An existing file is checked read-only first and
// left untouched if it is not a store (ErrNotStore), damaged
// (ErrCorrupt) or newer (ErrFormat). A file held by another process is
// ErrLocked after opt.LockTimeout.
//
// A bbolt file with no bucket at all holds no data; it is what a
// creation cut short by a crash leaves, and Open makes it a store.
func Open(path string, opt Options) (*DB, error) {
	// A damaged file can fault in bbolt's mapping (a page past the end of
	// a truncated file): a panic that guard turns into ErrCorrupt.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	timeout := opt.LockTimeout
	if timeout <= 0 {
		timeout = DefaultLockTimeout
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		// created below
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%s: %w: a directory", path, ErrNotStore)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s: %w: not a regular file", path, ErrNotStore)
	case fi.Size() > 0:
		if err := inspect(path, timeout); err != nil {
			return nil, err
		}
	}

	db, err := openBolt(path, &bbolt.Options{
		Timeout:        timeout,
		NoFreelistSync: false, // the freelist is written with each commit: no rebuild at open
	})
	if err != nil {
		return nil, openError(path, timeout, err)
	}
	// Saves from many workers at once share one commit (bbolt's Batch);
	// each still returns only once its commit is on disk. A lone save
	// waits at most this long for company.
	db.MaxBatchDelay = 2 * time.Millisecond
	s := &DB{db: db, path: path}
	if err := s.prepare(); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// openBolt is bbolt.Open, turning a panic or a memory fault on a damaged
// file into ErrCorrupt and closing the file (and its lock) then.
func openBolt(path string, o *bbolt.Options) (db *bbolt.DB, err error) {
	var f *os.File
	o.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		var err error
		f, err = os.OpenFile(name, flag, perm)
		return f, err
	}
	defer func() {
		if err != nil && f != nil && db == nil {
			f.Close()
		}
	}()
	defer guard(&err)
	return bbolt.Open(path, 0o600, o)
}

// inspect checks an existing file read-only: it must be a bbolt file
// whose meta bucket says it is a store of a format this package reads,
// not truncated, and with every record decodable; or a bbolt file with
// no bucket at all.
func inspect(path string, timeout time.Duration) error {
	db, err := openBolt(path, &bbolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		err = openError(path, timeout, err)
		var pathErr *fs.PathError
		if !errors.Is(err, ErrLocked) && !errors.Is(err, ErrNotStore) && !errors.Is(err, ErrCorrupt) && !errors.As(err, &pathErr) {
			// bbolt's other complaints about a file ("file size too small")
			err = fmt.Errorf("%s: %w: %v (file left untouched)", path, ErrNotStore, err)
		}
		return err
	}
	defer db.Close()
	err = func() (err error) {
		defer guard(&err)
		return db.View(func(tx *bbolt.Tx) error {
			fi, err := os.Stat(path)
			if err != nil {
				return err
			}
			if tx.Size() > fi.Size() {
				return fmt.Errorf("%w: the file is %d bytes, its pages reach %d (truncated?)", ErrCorrupt, fi.Size(), tx.Size())
			}
			blank, _, err := checkMeta(tx)
			if err != nil || blank {
				return err
			}
			return walk(tx)
		})
	}()
	if err != nil {
		return fmt.Errorf("%s: %w (file left untouched)", path, err)
	}
	return nil
}

// openError names the cause of a failed bbolt.Open.
func openError(path string, timeout time.Duration, err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return fmt.Errorf("%s: %w (gave up after %v)", path, ErrLocked, timeout)
	case errors.Is(err, berrors.ErrInvalid):
		return fmt.Errorf("%s: %w: not a bbolt file, or both its meta pages are damaged (file left untouched)", path, ErrNotStore)
	case errors.Is(err, berrors.ErrVersionMismatch):
		return fmt.Errorf("%s: %w: a bbolt file of another version (file left untouched)", path, ErrNotStore)
	case errors.Is(err, berrors.ErrChecksum):
		return fmt.Errorf("%s: %w: bad meta page checksum (file left untouched)", path, ErrCorrupt)
	case errors.Is(err, ErrCorrupt):
		return fmt.Errorf("%s: %w (file left untouched)", path, err)
	}
	return err
}

// checkMeta reads the meta bucket. blank reports a bbolt file without
// any bucket; format is the file's format, for one that is a store.
func checkMeta(tx *bbolt.Tx) (blank bool, format uint64, err error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		blank = true
		tx.ForEach(func([]byte, *bbolt.Bucket) error {
			blank = false
			return errStop
		})
		if blank {
			return true, 0, nil
		}
		return false, 0, fmt.Errorf("%w: a bbolt database without polite's meta bucket", ErrNotStore)
	}
	if !bytes.Equal(meta.Get(keyMagic), magicValue) {
		return false, 0, fmt.Errorf("%w: a bbolt database whose meta bucket is not polite's", ErrNotStore)
	}
	v, n := binary.Uvarint(meta.Get(keyFormat))
	switch {
	case n <= 0 || v == 0:
		return false, 0, fmt.Errorf("%w: no format version in the meta bucket", ErrCorrupt)
	case v > FormatVersion:
		return false, 0, fmt.Errorf("%w: format %d, this version reads format %d and older", ErrFormat, v, FormatVersion)
	}
	for _, b := range dataBuckets {
		if b.since <= v && tx.Bucket(b.name) == nil {
			return false, 0, fmt.Errorf("%w: bucket %q missing", ErrCorrupt, b.name)
		}
	}
	return false, v, nil
}

var errStop = errors.New("stop")

// walk reads every key and record of the store (not the bodies' bytes),
// so that a store that opens is one whose records can all be read.
func walk(tx *bbolt.Tx) error {
	bad := func(bucket []byte, k []byte, err error) error {
		return fmt.Errorf("%w: bucket %s, key %q: %v", ErrCorrupt, bucket, k, err)
	}
	err := tx.Bucket(bucketPages).ForEach(func(k, v []byte) error {
		if _, ok := parsePageKey(k); !ok {
			return bad(bucketPages, k, errors.New("malformed key"))
		}
		if _, err := decodePage(v); err != nil {
			return bad(bucketPages, k, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = tx.Bucket(bucketBodies).ForEach(func(k, v []byte) error {
		if len(k) != sha256.Size || len(v) == 0 {
			return bad(bucketBodies, k, errors.New("malformed body entry"))
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = tx.Bucket(bucketRobots).ForEach(func(k, v []byte) error {
		if _, err := decodeRobots(string(k), v); err != nil {
			return bad(bucketRobots, k, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = tx.Bucket(bucketRefusals).ForEach(func(k, v []byte) error {
		if len(k) != 8 {
			return bad(bucketRefusals, k, errors.New("malformed key"))
		}
		if _, err := decodeRefusal(v); err != nil {
			return bad(bucketRefusals, k, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = tx.Bucket(bucketHosts).ForEach(func(k, v []byte) error {
		if _, err := decodeHost(string(k), v); err != nil {
			return bad(bucketHosts, k, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range [][]byte{bucketAddrRest, bucketHostRest} {
		b := tx.Bucket(name)
		if b == nil {
			continue // a format-1 file: Open adds it
		}
		err := b.ForEach(func(k, v []byte) error {
			if _, err := decodeRest(v); err != nil {
				return bad(name, k, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// prepare checks the meta bucket again under the write lock (the file
// may have changed since inspect), makes a blank file a store, and brings
// an older format up to FormatVersion: the buckets it lacks, empty.
func (s *DB) prepare() error {
	var (
		blank  bool
		format uint64
	)
	err := s.view(func(tx *bbolt.Tx) error {
		var err error
		blank, format, err = checkMeta(tx)
		return err
	})
	if err != nil || !blank && format == FormatVersion {
		return err
	}
	return s.update(func(tx *bbolt.Tx) error {
		blank, format, err := checkMeta(tx)
		if err != nil || !blank && format == FormatVersion {
			return err
		}
		for _, b := range dataBuckets {
			if b.since > format {
				if _, err := tx.CreateBucket(b.name); err != nil {
					return err
				}
			}
		}
		meta := tx.Bucket(bucketMeta)
		if blank {
			if meta, err = tx.CreateBucket(bucketMeta); err != nil {
				return err
			}
			if err := meta.Put(keyMagic, magicValue); err != nil {
				return err
			}
		}
		return meta.Put(keyFormat, binary.AppendUvarint(nil, FormatVersion))
	})
}

// guard turns a panic (bbolt panics on pages it cannot make sense of)
// into ErrCorrupt.
func guard(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %v", ErrCorrupt, r)
	}
}

// view and update run a transaction with a damaged file's panics and
// memory faults (a file truncated under the mapping) turned into errors.
func (s *DB) view(fn func(*bbolt.Tx) error) (err error) {
	if s.closed.Load() {
		return ErrClosed
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer guard(&err)
	return txError(s.db.View(fn))
}

func (s *DB) update(fn func(*bbolt.Tx) error) (err error) {
	if s.closed.Load() {
		return ErrClosed
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer guard(&err)
	// fn may run twice when a shared commit fails and bbolt retries each
	// save alone; every fn here only writes inside its transaction, so a
	// rolled-back first run leaves nothing behind.
	return txError(s.db.Batch(fn))
}

func txError(err error) error {
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return ErrClosed
	}
	return err
}

// Close closes the file, waiting for transactions in progress. Closing
// twice is not an error.
func (s *DB) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.db.Close()
}

// CheckKey is the rule for URLs, origins and hosts as keys: not empty,
// at most MaxKeyLength bytes. what names the key in the error.
func CheckKey(what, k string) error {
	switch {
	case k == "":
		return fmt.Errorf("%w: empty %s", ErrKey, what)
	case len(k) > MaxKeyLength:
		return fmt.Errorf("%w: %s of %d bytes, more than %d", ErrKey, what, len(k), MaxKeyLength)
	}
	return nil
}

// pagePrefix is the start of every key of url's versions.
func pagePrefix(url string) []byte {
	b := make([]byte, 0, binary.MaxVarintLen64+len(url)+8)
	b = binary.AppendUvarint(b, uint64(len(url)))
	return append(b, url...)
}

// parsePageKey returns the URL of a page key.
func parsePageKey(k []byte) (string, bool) {
	n, w := binary.Uvarint(k)
	if w <= 0 || uint64(len(k)-w) != n+8 {
		return "", false
	}
	return string(k[w : len(k)-8]), true
}

// SavePage adds a version of p.URL; it is the latest from now on. The
// body is stored once per distinct content.
func (s *DB) SavePage(p Page) error {
	if err := CheckKey("page URL", p.URL); err != nil {
		return err
	}
	if len(p.Body) > maxValueSize {
		return fmt.Errorf("body of %d bytes, more than %d", len(p.Body), maxValueSize)
	}
	rec := pageRecord{Status: p.Status, Header: p.Header, Fetched: p.Fetched, BodyLen: len(p.Body)}
	if len(p.Body) > 0 {
		rec.BodySum = sha256.Sum256(p.Body)
	}
	val := encodePage(rec)
	key := pagePrefix(p.URL)
	return s.update(func(tx *bbolt.Tx) error {
		if rec.BodyLen > 0 {
			bodies := tx.Bucket(bucketBodies)
			switch old := bodies.Get(rec.BodySum[:]); {
			case old == nil:
				if err := bodies.Put(rec.BodySum[:], p.Body); err != nil {
					return err
				}
			case len(old) != rec.BodyLen:
				return fmt.Errorf("%w: body %x has %d bytes, not %d", ErrCorrupt, rec.BodySum, len(old), rec.BodyLen)
			}
		}
		pages := tx.Bucket(bucketPages)
		seq, err := pages.NextSequence()
		if err != nil {
			return err
		}
		return pages.Put(binary.BigEndian.AppendUint64(key, seq), val)
	})
}

// LoadPage returns the latest version of url.
func (s *DB) LoadPage(url string) (Page, bool, error) {
	if err := CheckKey("page URL", url); err != nil {
		return Page{}, false, err
	}
	prefix := pagePrefix(url)
	var (
		p     Page
		found bool
	)
	err := s.view(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketPages).Cursor()
		last := binary.BigEndian.AppendUint64(bytes.Clone(prefix), ^uint64(0))
		k, v := c.Seek(last)
		switch {
		case k == nil:
			k, v = c.Last()
		case !bytes.Equal(k, last):
			k, v = c.Prev()
		}
		if k == nil || !bytes.HasPrefix(k, prefix) {
			return nil
		}
		var err error
		p, err = readPage(tx, url, k, v, nil)
		found = err == nil
		return err
	})
	if err != nil {
		return Page{}, false, err
	}
	return p, found, nil
}

// PageHistory returns every version of url, oldest first.
func (s *DB) PageHistory(url string) ([]Page, error) {
	if err := CheckKey("page URL", url); err != nil {
		return nil, err
	}
	prefix := pagePrefix(url)
	var ps []Page
	err := s.view(func(tx *bbolt.Tx) error {
		verified := make(map[[sha256.Size]byte]bool)
		c := tx.Bucket(bucketPages).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			p, err := readPage(tx, url, k, v, verified)
			if err != nil {
				return err
			}
			ps = append(ps, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ps, nil
}

// readPage decodes a version and copies its body out, checking it
// against its SHA-256 (bbolt checksums only its meta pages). verified,
// if not nil, remembers the bodies already checked.
func readPage(tx *bbolt.Tx, url string, k, v []byte, verified map[[sha256.Size]byte]bool) (Page, error) {
	rec, err := decodePage(v)
	if err != nil {
		return Page{}, fmt.Errorf("%w: page %q, key %x: %v", ErrCorrupt, url, k, err)
	}
	p := Page{URL: url, Status: rec.Status, Header: rec.Header, Fetched: rec.Fetched}
	if rec.BodyLen == 0 {
		return p, nil
	}
	body := tx.Bucket(bucketBodies).Get(rec.BodySum[:])
	switch {
	case body == nil:
		return Page{}, fmt.Errorf("%w: page %q: body %x missing", ErrCorrupt, url, rec.BodySum)
	case len(body) != rec.BodyLen:
		return Page{}, fmt.Errorf("%w: page %q: body %x has %d bytes, not %d", ErrCorrupt, url, rec.BodySum, len(body), rec.BodyLen)
	case !verified[rec.BodySum] && sha256.Sum256(body) != rec.BodySum:
		return Page{}, fmt.Errorf("%w: page %q: body %x does not match its SHA-256", ErrCorrupt, url, rec.BodySum)
	}
	if verified != nil {
		verified[rec.BodySum] = true
	}
	p.Body = bytes.Clone(body)
	return p, nil
}

// SaveRobots replaces the robots.txt copy of r.Origin.
func (s *DB) SaveRobots(r Robots) error {
	if err := CheckKey("robots origin", r.Origin); err != nil {
		return err
	}
	val := encodeRobots(r)
	return s.update(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketRobots).Put([]byte(r.Origin), val)
	})
}

// LoadRobots returns the robots.txt copy of origin.
func (s *DB) LoadRobots(origin string) (Robots, bool, error) {
	if err := CheckKey("robots origin", origin); err != nil {
		return Robots{}, false, err
	}
	var (
		r     Robots
		found bool
	)
	err := s.view(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketRobots).Get([]byte(origin))
		if v == nil {
			return nil
		}
		var err error
		if r, err = decodeRobots(origin, v); err != nil {
			return fmt.Errorf("%w: robots %q: %v", ErrCorrupt, origin, err)
		}
		found = true
		return nil
	})
	if err != nil {
		return Robots{}, false, err
	}
	return r, found, nil
}

// AddRefusal appends a refusal record.
func (s *DB) AddRefusal(r Refusal) error {
	val := encodeRefusal(r)
	return s.update(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketRefusals)
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		return b.Put(binary.BigEndian.AppendUint64(nil, seq), val)
	})
}

// Refusals returns every refusal record in the order added.
func (s *DB) Refusals() ([]Refusal, error) {
	var rs []Refusal
	err := s.view(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketRefusals).ForEach(func(k, v []byte) error {
			r, err := decodeRefusal(v)
			if err != nil {
				return fmt.Errorf("%w: refusal %x: %v", ErrCorrupt, k, err)
			}
			rs = append(rs, r)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return rs, nil
}

// SaveHost replaces the record of h.Host.
func (s *DB) SaveHost(h Host) error {
	if err := CheckKey("host", h.Host); err != nil {
		return err
	}
	val := encodeHost(h)
	return s.update(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketHosts).Put([]byte(h.Host), val)
	})
}

// LoadHost returns the record of host.
func (s *DB) LoadHost(host string) (Host, bool, error) {
	if err := CheckKey("host", host); err != nil {
		return Host{}, false, err
	}
	var (
		h     Host
		found bool
	)
	err := s.view(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketHosts).Get([]byte(host))
		if v == nil {
			return nil
		}
		var err error
		if h, err = decodeHost(host, v); err != nil {
			return fmt.Errorf("%w: host %q: %v", ErrCorrupt, host, err)
		}
		found = true
		return nil
	})
	if err != nil {
		return Host{}, false, err
	}
	return h, found, nil
}

// CheckRest is the rule for a rest record: a valid address, a host as a
// key, and a rest not below zero.
func CheckRest(r Rest) error {
	switch {
	case !r.Addr.IsValid():
		return fmt.Errorf("%w: rest of %q without an address", ErrKey, r.Host)
	case r.Rest < 0:
		return fmt.Errorf("rest of %s at %s: negative length %v", r.Host, r.Addr, r.Rest)
	}
	return CheckKey("host", r.Host)
}

// addrKey is the key of an address's rest: its text, an IPv4-mapped
// address as the IPv4 one it is.
func addrKey(a netip.Addr) []byte { return []byte(a.Unmap().String()) }

// SaveRests keeps each of rs under its address and its host, each in
// place of the record there unless that one ends later: a rest is never
// shortened. They are one transaction, all kept or none: the rests of
// many responses cost one commit. Until is kept to the nanosecond, so
// nothing is rounded off it.
func (s *DB) SaveRests(rs []Rest) error {
	type entry struct {
		until      time.Time
		addr, host []byte
		val        []byte
	}
	entries := make([]entry, len(rs))
	for i, r := range rs {
		if err := CheckRest(r); err != nil {
			return err
		}
		r.Addr = r.Addr.Unmap()
		entries[i] = entry{until: r.Until, addr: addrKey(r.Addr), host: []byte(r.Host), val: encodeRest(r)}
	}
	if len(entries) == 0 {
		return nil
	}
	return s.update(func(tx *bbolt.Tx) error {
		addrs, hosts := tx.Bucket(bucketAddrRest), tx.Bucket(bucketHostRest)
		for _, e := range entries {
			for _, kb := range [...]struct {
				b   *bbolt.Bucket
				key []byte
			}{{addrs, e.addr}, {hosts, e.host}} {
				if old := kb.b.Get(kb.key); old != nil {
					if o, err := decodeRest(old); err == nil && o.Until.After(e.until) {
						continue
					}
				}
				if err := kb.b.Put(kb.key, e.val); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// LoadAddrRest returns the rest of the address a that ends last.
func (s *DB) LoadAddrRest(a netip.Addr) (Rest, bool, error) {
	if !a.IsValid() {
		return Rest{}, false, fmt.Errorf("%w: invalid address", ErrKey)
	}
	return s.loadRest(bucketAddrRest, addrKey(a))
}

// LoadHostRest returns the rest of host that ends last.
func (s *DB) LoadHostRest(host string) (Rest, bool, error) {
	if err := CheckKey("host", host); err != nil {
		return Rest{}, false, err
	}
	return s.loadRest(bucketHostRest, []byte(host))
}

func (s *DB) loadRest(bucket, key []byte) (Rest, bool, error) {
	var (
		r     Rest
		found bool
	)
	err := s.view(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucket).Get(key)
		if v == nil {
			return nil
		}
		var err error
		if r, err = decodeRest(v); err != nil {
			return fmt.Errorf("%w: rest %q: %v", ErrCorrupt, key, err)
		}
		found = true
		return nil
	})
	if err != nil {
		return Rest{}, false, err
	}
	return r, found, nil
}

// Check runs bbolt's own consistency check over the store file at path,
// opened read-only: nil when every page of it is sound. The crash tests
// read a file a killed process left with it.
func Check(path string) error {
	db, err := bbolt.Open(path, 0, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return fmt.Errorf("bbolt cannot open the file: %w", err)
	}
	defer db.Close()
	return db.View(func(tx *bbolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
}
