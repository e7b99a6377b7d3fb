package polite

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/robotstxt"
	"github.com/politecrawler/polite/internal/schedule"
	"github.com/politecrawler/polite/internal/storage"
)

// Store is the fetcher's memory across requests and runs: page copies
// (PageStore, R6), robots.txt copies (RobotsStore, R5.3), host records
// and refusals (HostStore, R3.3-4), and rests (RestStore, R1.4). A rest
// holds across runs on one Store: a Fetcher waits out what is left of the
// rests an earlier Fetcher on the Store earned, in this process or in one
// that ended or was killed. NewMemoryStore keeps the records of one
// process; OpenStore keeps a file across runs and crashes. Methods are
// safe for concurrent use and copy values in and out; a Load of a key
// never saved returns false and a nil error; times come back in UTC.
// After Close every method fails.
type Store interface {
	PageStore
	RobotsStore
	HostStore
	RestStore

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

// RestStore keeps the rest after the last response of each server address
// and of each host (R1.4), so that it outlives the run that earned it: a
// Fetcher on the Store waits out what is left of them before its first
// request to that address or host, robots.txt included. Hosts on one
// address share its rest (R1.1); a host found at another address since
// brings its own. The fetcher saves rests as their responses end, off its
// scheduler's lock, one save at a time: the rests of the responses that
// ended during one save go together in the next. No address is asked
// again before the save of its last rest has returned, so a process
// killed (SIGKILL) between a response and the save of its rest loses that
// rest, and no address loses more than its last one.
type RestStore interface {
	// SaveRests keeps each of rs as the rest of its Addr and of its Host,
	// each in place of the one kept unless that one ends later: a rest is
	// never shortened. They are kept all or none (OpenStore: one
	// commit). A store that keeps times coarser than the nanosecond
	// rounds Until up, never down.
	SaveRests(rs []RestRecord) error
	// LoadAddrRest returns the rest kept for the server address a; an
	// IPv4-mapped address is the IPv4 address it maps.
	LoadAddrRest(a netip.Addr) (RestRecord, bool, error)
	// LoadHostRest returns the rest kept for host.
	LoadHostRest(host string) (RestRecord, bool, error)
}

// RestRecord is the rest a response imposed (R2), kept for later runs
// (R1.4): the server address the request dialled (its budget, R1.1), the
// host it was for, when the rest ends, and its length: the response ended
// at Until minus Rest (R1.3). A Fetcher waits until Until, or for Rest
// from now if that is sooner, so a clock set back between two runs does
// not hold an address longer than the rest itself; what is left beyond
// Config.Horizon parks the address (R2.4).
type RestRecord struct {
	Addr  netip.Addr
	Host  string
	Until time.Time
	Rest  time.Duration
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
	case errors.Is(err, storage.ErrLocked):
		return fmt.Errorf("%w: %w", ErrStoreLocked, err)
	}
	return fmt.Errorf("%w: %w", ErrStore, err)
}

// OpenStore opens the store file at path, a bbolt database, creating it
// (mode 0600) when missing or empty. Each Save is committed with fsync
// before it returns; bodies are kept once per SHA-256, checked on load;
// rests are kept to the nanosecond. A file that is not a store, is damaged
// or is newer is an ErrStore error and left as it was; one held by another
// Store is ErrStoreLocked after about a second. A file written by a
// version without rests is given them as it opens; such a version then
// refuses the file as newer.
func OpenStore(path string) (Store, error) {
	db, err := storage.Open(path, storage.Options{LockTimeout: storage.DefaultLockTimeout})
	if err != nil {
		return nil, storeError(err)
	}
	return recordStore{db}, nil
}

// records is what both of internal/storage's stores do, DB on disk and
// Memory: polite's records with the same fields.
type records interface {
	LoadPage(url string) (storage.Page, bool, error)
	SavePage(p storage.Page) error
	PageHistory(url string) ([]storage.Page, error)
	LoadRobots(origin string) (storage.Robots, bool, error)
	SaveRobots(r storage.Robots) error
	AddRefusal(r storage.Refusal) error
	Refusals() ([]storage.Refusal, error)
	LoadHost(host string) (storage.Host, bool, error)
	SaveHost(h storage.Host) error
	SaveRests(rs []storage.Rest) error
	LoadAddrRest(a netip.Addr) (storage.Rest, bool, error)
	LoadHostRest(host string) (storage.Rest, bool, error)
	Close() error
}

// recordStore is the Store of OpenStore and NewMemoryStore: each method a
// conversion, and its error wrapped in ErrStore.
type recordStore struct{ r records }

// storedPage is a page version as polite's StoredPage.
func storedPage(p storage.Page) StoredPage {
	return StoredPage{URL: p.URL, Status: p.Status, Header: http.Header(p.Header), Body: p.Body, Fetched: p.Fetched}
}

func (s recordStore) LoadPage(url string) (StoredPage, bool, error) {
	p, ok, err := s.r.LoadPage(url)
	return storedPage(p), ok, storeError(err)
}

func (s recordStore) SavePage(p StoredPage) error {
	return storeError(s.r.SavePage(storage.Page{URL: p.URL, Status: p.Status, Header: p.Header, Body: p.Body, Fetched: p.Fetched}))
}

func (s recordStore) PageHistory(url string) ([]StoredPage, error) {
	ps, err := s.r.PageHistory(url)
	if err != nil {
		return nil, storeError(err)
	}
	var out []StoredPage
	for _, p := range ps {
		out = append(out, storedPage(p))
	}
	return out, nil
}

func (s recordStore) LoadRobots(origin string) (StoredRobots, bool, error) {
	r, ok, err := s.r.LoadRobots(origin)
	return StoredRobots{Origin: r.Origin, Status: r.Status, Header: http.Header(r.Header), Body: r.Body, Fetched: r.Fetched}, ok, storeError(err)
}

func (s recordStore) SaveRobots(r StoredRobots) error {
	return storeError(s.r.SaveRobots(storage.Robots{Origin: r.Origin, Status: r.Status, Header: r.Header, Body: r.Body, Fetched: r.Fetched}))
}

func (s recordStore) AddRefusal(r RefusalRecord) error {
	return storeError(s.r.AddRefusal(storage.Refusal{
		Host: r.Host, URL: r.URL, Status: r.Status, Kind: string(r.Kind), Evidence: r.Evidence, At: r.At}))
}

func (s recordStore) Refusals() ([]RefusalRecord, error) {
	rs, err := s.r.Refusals()
	if err != nil {
		return nil, storeError(err)
	}
	out := make([]RefusalRecord, len(rs))
	for i, r := range rs {
		out[i] = RefusalRecord{Host: r.Host, URL: r.URL, Status: r.Status, Kind: StopKind(r.Kind), Evidence: r.Evidence, At: r.At}
	}
	return out, nil
}

func (s recordStore) LoadHost(host string) (HostRecord, bool, error) {
	h, ok, err := s.r.LoadHost(host)
	return HostRecord(h), ok, storeError(err)
}

func (s recordStore) SaveHost(h HostRecord) error { return storeError(s.r.SaveHost(storage.Host(h))) }

func (s recordStore) SaveRests(rs []RestRecord) error {
	out := make([]storage.Rest, len(rs))
	for i, r := range rs {
		out[i] = storage.Rest(r)
	}
	return storeError(s.r.SaveRests(out))
}

func (s recordStore) LoadAddrRest(a netip.Addr) (RestRecord, bool, error) {
	r, ok, err := s.r.LoadAddrRest(a)
	return RestRecord(r), ok, storeError(err)
}

func (s recordStore) LoadHostRest(host string) (RestRecord, bool, error) {
	r, ok, err := s.r.LoadHostRest(host)
	return RestRecord(r), ok, storeError(err)
}

func (s recordStore) Close() error { return storeError(s.r.Close()) }

// NewMemoryStore returns a Store held in memory: nothing outlives the
// process, but a Fetcher after another on it waits out its rests (R1.4).
// It normalises values as the on-disk store does, so the two are
// interchangeable in tests. A page saved with the same body as its latest
// version shares that body instead of keeping a second copy.
func NewMemoryStore() Store { return recordStore{storage.NewMemory()} }

// The scheduler asks the Store as jobs, run by store workers of their own
// outside its lock (R1.2; see internal/schedule's store.go): a new host's
// record and rest, a new address's rest, a new origin's robots.txt copy, a
// queued page's validators, a stop or the rests of responses to keep. The
// store workers run them here, where the Store is.

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
	case j.Rests() != nil:
		rs := make([]RestRecord, len(j.Rests()))
		for i, r := range j.Rests() {
			rs[i] = RestRecord(r)
		}
		a.Err = f.set.rests.SaveRests(rs)
	case j.Addr().IsValid():
		var rec RestRecord
		rec, a.HasRest, a.Err = f.set.rests.LoadAddrRest(j.Addr())
		a.Rest = schedule.RestRecord(rec)
	case j.Host() != "":
		if f.set.hosts != nil {
			var rec HostRecord
			rec, a.Found, a.Err = f.set.hosts.LoadHost(j.Host())
			a.Host = schedule.HostRecord{Stops: rec.Stops, CoolOffUntil: rec.CoolOffUntil, LastReason: rec.LastReason}
		}
		if f.set.rests != nil {
			// A rest that cannot be read is logged, and the host's record
			// still holds: its cool-off does not hang on its rest.
			rec, ok, err := f.set.rests.LoadHostRest(j.Host())
			if err != nil {
				f.set.logger.Warn("polite: store: loading a host's rest", "host", j.Host(), "err", err)
			}
			a.Rest, a.HasRest = schedule.RestRecord(rec), ok && err == nil
		}
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

// What the fetcher remembers of hosts across runs (R3.3, R2.6), through
// the Store. The scheduler asks for a host's record before it looks the
// host up, and for a stop to be kept; the store workers do both here.

// DefaultCoolOff is how long a host stopped by a refusal is left alone
// across runs the first time, 6 h; each further stop doubles it (R3.3).
const DefaultCoolOff = pacing.DefaultCoolOff

// keepStop writes a stop. A store error is logged, never fatal: the host
// is stopped for this run whatever the store says.
func (f *Fetcher) keepStop(r *schedule.StopRecord) error {
	st := f.set.hosts
	rec := RefusalRecord{Host: r.Host, Kind: stopKind(r.Cause), Evidence: r.Cause.Error(), At: r.At}
	var ref *RefusalError
	if errors.As(r.Cause, &ref) {
		rec.URL, rec.Status, rec.Evidence = ref.URL, ref.Status, ref.Verdict.Evidence
	}
	err := st.AddRefusal(rec)
	hr, _, lerr := st.LoadHost(r.Host)
	if lerr == nil {
		hr.Host = r.Host
		hr.Stops++
		hr.CoolOffUntil = r.At.Add(pacing.CoolOffAfter(hr.Stops, f.set.coolOff))
		hr.LastReason = r.Cause.Error()
		lerr = st.SaveHost(hr)
	}
	return errors.Join(err, lerr)
}
