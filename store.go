package polite

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/politecrawler/polite/internal/boltstore"
)

// ErrStore wraps every error of OpenStore and of a Store's methods:
// errors.Is(err, ErrStore) holds for all of them, and the error says
// which file and what went wrong (not a store, damaged, newer format,
// closed, an empty key, …).
var ErrStore = errors.New("polite: store")

// ErrStoreLocked: OpenStore gave up waiting (about a second) for a store
// file held by another process, or by another Store of this one not yet
// closed. errors.Is(err, ErrStore) holds too.
var ErrStoreLocked = fmt.Errorf("%w locked", ErrStore)

// Store is the fetcher's memory across requests and runs, in the three
// parts it consumes: page copies (PageStore, R6), robots.txt copies
// (RobotsStore, R5.3), and host records and refusals (HostStore, R3.3-4).
// Config.Store gives all three; Config.RobotsStore and Config.HostStore
// give a part from elsewhere, such as a backend shared by many processes.
//
// Two implementations: NewMemoryStore, for one run, and OpenStore, one
// file on disk that keeps everything across runs and crashes.
//
// Every method is safe for concurrent use. Values go in and come out by
// copy: changing an argument after a Save, or a value a Load returned,
// does not change what the store holds. A Load of a key never saved
// returns the zero value, false and a nil error. What comes back is
// normalised the same way by both implementations: times are the same
// instant (time.Time.Equal) in UTC, without a monotonic reading; an
// empty body or header comes back nil, a header field without values
// has a nil slice. URLs, origins and hosts must be non-empty and at most
// 16 KiB. After Close every method returns an error.
type Store interface {
	PageStore
	RobotsStore
	HostStore

	// Close releases the store (for OpenStore, the file and its lock).
	// Closing twice is not an error.
	Close() error
}

// PageStore keeps, for each URL, the pages fetched with their headers and
// fetch time, as a history of versions whose last is the latest copy: it
// makes requests conditional (R6) and lets the index be compared over time.
type PageStore interface {
	// LoadPage returns the latest copy of url: the last version saved.
	LoadPage(url string) (StoredPage, bool, error)
	// SavePage makes p the latest copy of p.URL and adds it to the
	// URL's history as a new version, even if nothing changed.
	SavePage(p StoredPage) error
	// PageHistory returns every version of url, oldest first; none if
	// the URL was never saved.
	PageHistory(url string) ([]StoredPage, error)
}

// RobotsStore keeps each origin's robots.txt copy (R5.3): refreshed with
// a conditional request, and used for a while when a refresh fails.
type RobotsStore interface {
	// LoadRobots returns the robots.txt copy of origin
	// ("scheme://host:port").
	LoadRobots(origin string) (StoredRobots, bool, error)
	// SaveRobots replaces the robots.txt copy of r.Origin.
	SaveRobots(r StoredRobots) error
}

// HostStore keeps the refusals met, in order (R3.4), and for each host
// how often it was stopped and until when it is left alone (R3.3, R2.6).
type HostStore interface {
	// AddRefusal keeps a refusal record (R3.4).
	AddRefusal(r RefusalRecord) error
	// Refusals returns every refusal record, in the order added.
	Refusals() ([]RefusalRecord, error)

	// LoadHost returns what is remembered of host across runs.
	LoadHost(host string) (HostRecord, bool, error)
	// SaveHost replaces the record of h.Host.
	SaveHost(h HostRecord) error
}

// StoredPage is one version of a page: what the server answered for URL
// at Fetched. Its ETag and Last-Modified, in Header, make the next
// request conditional (R6.1).
type StoredPage struct {
	URL     string
	Status  int
	Header  http.Header
	Body    []byte
	Fetched time.Time
}

// StoredRobots is the robots.txt copy of an origin ("scheme://host:port",
// R5.3): the last answer of the site, kept to be refreshed with a
// conditional request and used for a while when a refresh fails.
type StoredRobots struct {
	Origin  string
	Status  int
	Header  http.Header // its validators, ETag and Last-Modified, when it had them
	Body    []byte
	Fetched time.Time // when the site last answered
}

// RefusalRecord is one refusal or stop met by the fetcher (R3.4): which
// host, on which URL, with what status, of what kind, on what evidence,
// and when.
type RefusalRecord struct {
	Host, URL string
	Status    int
	Kind      StopKind
	Evidence  string
	At        time.Time
}

// HostRecord is what the store remembers of a host across runs: how many
// times it was stopped, until when it is left alone (R3.3) and why; the
// count sets how much slower it is fetched when it comes back (R2.6).
type HostRecord struct {
	Host         string
	Stops        int       // how many times the host was stopped (refusal or five failures), across runs
	CoolOffUntil time.Time // left alone until then (R3.3)
	LastReason   string
}

// storeError puts ErrStore (or ErrStoreLocked) in front of an error of
// the on-disk store.
func storeError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, boltstore.ErrLocked):
		return fmt.Errorf("%w: %w", ErrStoreLocked, err)
	}
	return fmt.Errorf("%w: %w", ErrStore, err)
}

// OpenStore opens the store file at path, creating it (mode 0600) if the
// path does not exist or is an empty file. The file is a go.etcd.io/bbolt
// database: embedded, one file, one writer at a time and readers in
// parallel, safe for the fetcher's concurrent workers.
//
// Each Save and AddRefusal is its own transaction, committed with fsync
// before it returns: what a Save returned from is on disk and survives a
// crash of the process or the machine; a Save cut short is not seen at
// all. Bodies are kept once per content (by SHA-256): saving a page again
// with the same body adds a version of a few hundred bytes (the headers),
// not a second body. A body is checked against its SHA-256 when loaded.
//
// An existing file is checked read-only before anything is written to
// it; OpenStore returns an error wrapping ErrStore, and leaves the file
// as it was, for a file that is not a store (another program's bbolt
// database, or not bbolt at all), a damaged store, or one written by a
// newer version. The check reads every record (not the bodies), so
// opening takes time in proportion to the versions kept: tens of
// milliseconds for ten thousand. A file held by another process (or by a Store of this
// one not yet closed) is ErrStoreLocked after about a second, rather than
// a wait.
//
// The records are a small versioned binary format (internal/boltstore):
// faster and more compact than gob or JSON, and decoded with every length
// checked, so a damaged record is an error, never a crash. Times are kept
// as Unix seconds and nanoseconds, and load in UTC.
func OpenStore(path string) (Store, error) {
	db, err := boltstore.Open(path, boltstore.Options{LockTimeout: boltstore.DefaultLockTimeout})
	if err != nil {
		return nil, storeError(err)
	}
	return &diskStore{db: db}, nil
}

// diskStore is OpenStore's Store: boltstore's records are polite's with
// the same fields, so each method is a conversion.
type diskStore struct{ db *boltstore.DB }

func pageOf(p boltstore.Page) StoredPage {
	return StoredPage{URL: p.URL, Status: p.Status, Header: http.Header(p.Header), Body: p.Body, Fetched: p.Fetched}
}

func robotsOf(r boltstore.Robots) StoredRobots {
	return StoredRobots{Origin: r.Origin, Status: r.Status, Header: http.Header(r.Header), Body: r.Body, Fetched: r.Fetched}
}

func (s *diskStore) LoadPage(url string) (StoredPage, bool, error) {
	p, ok, err := s.db.LoadPage(url)
	return pageOf(p), ok, storeError(err)
}

func (s *diskStore) SavePage(p StoredPage) error {
	return storeError(s.db.SavePage(boltstore.Page{URL: p.URL, Status: p.Status, Header: p.Header, Body: p.Body, Fetched: p.Fetched}))
}

func (s *diskStore) PageHistory(url string) ([]StoredPage, error) {
	ps, err := s.db.PageHistory(url)
	if err != nil {
		return nil, storeError(err)
	}
	out := make([]StoredPage, len(ps))
	for i, p := range ps {
		out[i] = pageOf(p)
	}
	return out, nil
}

func (s *diskStore) LoadRobots(origin string) (StoredRobots, bool, error) {
	r, ok, err := s.db.LoadRobots(origin)
	return robotsOf(r), ok, storeError(err)
}

func (s *diskStore) SaveRobots(r StoredRobots) error {
	return storeError(s.db.SaveRobots(boltstore.Robots{Origin: r.Origin, Status: r.Status, Header: r.Header, Body: r.Body, Fetched: r.Fetched}))
}

func (s *diskStore) AddRefusal(r RefusalRecord) error {
	return storeError(s.db.AddRefusal(boltstore.Refusal{
		Host: r.Host, URL: r.URL, Status: r.Status, Kind: string(r.Kind), Evidence: r.Evidence, At: r.At}))
}

func (s *diskStore) Refusals() ([]RefusalRecord, error) {
	rs, err := s.db.Refusals()
	if err != nil {
		return nil, storeError(err)
	}
	out := make([]RefusalRecord, len(rs))
	for i, r := range rs {
		out[i] = RefusalRecord{Host: r.Host, URL: r.URL, Status: r.Status, Kind: StopKind(r.Kind), Evidence: r.Evidence, At: r.At}
	}
	return out, nil
}

func (s *diskStore) LoadHost(host string) (HostRecord, bool, error) {
	h, ok, err := s.db.LoadHost(host)
	return HostRecord(h), ok, storeError(err)
}

func (s *diskStore) SaveHost(h HostRecord) error {
	return storeError(s.db.SaveHost(boltstore.Host(h)))
}

func (s *diskStore) Close() error { return storeError(s.db.Close()) }

// NewMemoryStore returns a Store held in memory, for one run: nothing
// outlives the process. It normalises values as the on-disk store does,
// so the two are interchangeable in tests. A page saved with the same
// body as its latest version shares that body instead of keeping a
// second copy.
func NewMemoryStore() Store {
	return &memoryStore{
		pages:  make(map[string][]StoredPage),
		robots: make(map[string]StoredRobots),
		hosts:  make(map[string]HostRecord),
	}
}

// memoryStore keeps normalised copies; what it hands out is copied again.
type memoryStore struct {
	mu       sync.RWMutex
	closed   bool
	pages    map[string][]StoredPage // versions, oldest first
	robots   map[string]StoredRobots
	refusals []RefusalRecord
	hosts    map[string]HostRecord
}

var errMemoryClosed = storeError(boltstore.ErrClosed)

func keyError(what, k string) error { return storeError(boltstore.CheckKey(what, k)) }

func (s *memoryStore) LoadPage(url string) (StoredPage, bool, error) {
	if err := keyError("page URL", url); err != nil {
		return StoredPage{}, false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return StoredPage{}, false, errMemoryClosed
	}
	vs := s.pages[url]
	if len(vs) == 0 {
		return StoredPage{}, false, nil
	}
	return copyPage(vs[len(vs)-1]), true, nil
}

func (s *memoryStore) SavePage(p StoredPage) error {
	if err := keyError("page URL", p.URL); err != nil {
		return err
	}
	p = copyPage(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errMemoryClosed
	}
	vs := s.pages[p.URL]
	if n := len(vs); n > 0 && p.Body != nil && bytes.Equal(vs[n-1].Body, p.Body) {
		p.Body = vs[n-1].Body // never written to: shared, as the disk store's bodies are
	}
	s.pages[p.URL] = append(vs, p)
	return nil
}

func (s *memoryStore) PageHistory(url string) ([]StoredPage, error) {
	if err := keyError("page URL", url); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errMemoryClosed
	}
	vs := s.pages[url]
	if len(vs) == 0 {
		return nil, nil
	}
	out := make([]StoredPage, len(vs))
	for i, p := range vs {
		out[i] = copyPage(p)
	}
	return out, nil
}

func (s *memoryStore) LoadRobots(origin string) (StoredRobots, bool, error) {
	if err := keyError("robots origin", origin); err != nil {
		return StoredRobots{}, false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return StoredRobots{}, false, errMemoryClosed
	}
	r, ok := s.robots[origin]
	if !ok {
		return StoredRobots{}, false, nil
	}
	return copyRobots(r), true, nil
}

func (s *memoryStore) SaveRobots(r StoredRobots) error {
	if err := keyError("robots origin", r.Origin); err != nil {
		return err
	}
	r = copyRobots(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errMemoryClosed
	}
	s.robots[r.Origin] = r
	return nil
}

func (s *memoryStore) AddRefusal(r RefusalRecord) error {
	r.At = r.At.UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errMemoryClosed
	}
	s.refusals = append(s.refusals, r)
	return nil
}

func (s *memoryStore) Refusals() ([]RefusalRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errMemoryClosed
	}
	return slices.Clone(s.refusals), nil
}

func (s *memoryStore) LoadHost(host string) (HostRecord, bool, error) {
	if err := keyError("host", host); err != nil {
		return HostRecord{}, false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return HostRecord{}, false, errMemoryClosed
	}
	h, ok := s.hosts[host]
	return h, ok, nil
}

func (s *memoryStore) SaveHost(h HostRecord) error {
	if err := keyError("host", h.Host); err != nil {
		return err
	}
	h.CoolOffUntil = h.CoolOffUntil.UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errMemoryClosed
	}
	s.hosts[h.Host] = h
	return nil
}

func (s *memoryStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.pages, s.robots, s.refusals, s.hosts = nil, nil, nil, nil
	return nil
}

// copyPage, copyRobots and copyHeader copy and normalise as the disk
// store's encoding does: UTC times, nil for an empty body or header.
func copyPage(p StoredPage) StoredPage {
	p.Header = copyHeader(p.Header)
	p.Body = copyBody(p.Body)
	p.Fetched = p.Fetched.UTC()
	return p
}

func copyRobots(r StoredRobots) StoredRobots {
	r.Header = copyHeader(r.Header)
	r.Body = copyBody(r.Body)
	r.Fetched = r.Fetched.UTC()
	return r
}

func copyBody(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return bytes.Clone(b)
}

func copyHeader(h http.Header) http.Header {
	if len(h) == 0 {
		return nil
	}
	c := make(http.Header, len(h))
	for k, vs := range h {
		if len(vs) == 0 {
			c[k] = nil
			continue
		}
		c[k] = slices.Clone(vs)
	}
	return c
}
