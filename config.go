package polite

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/urltrap"
)

// Defaults for the Config fields left at zero.
const (
	// DefaultMaxInFlight caps the requests in flight at once when
	// Config.MaxInFlight is zero. Below it the fetcher keeps in flight
	// what the work needs: the limit needs Σ duration ÷ (rest + duration)
	// over the addresses with work (Little's law: about 1,700 for 10,000
	// hosts answering in 1 s, each resting 5 s), and the fetcher starts
	// every request due as long as the CPU has room (Stats.CPUCeiling).
	// So the default is a bound on memory, not a pool to size: it is
	// above what 10,000 hosts at 1 s ask (R1.2).
	DefaultMaxInFlight = 4096
	// DefaultMaxUnread is how many Results may wait unread before the
	// fetcher waits for its reader (Config.MaxUnread).
	DefaultMaxUnread    = 256
	DefaultMaxBodyBytes = 10 << 20
	DefaultTimeout      = 60 * time.Second
	// DefaultRetries is how many times a transient failure is tried
	// again, and the most Config.Retries may ask for (R11.3).
	DefaultRetries = 3
	// MaxTimeout bounds Config.Timeout: no server holds a request longer (R10.2).
	MaxTimeout = 10 * time.Minute
	// MaxURLLength is the longest URL the fetcher accepts and requests,
	// as given and once normalised (R10.2): the sitemaps protocol's
	// bound, 2,048 bytes. A redirect to a longer one ends its chain.
	MaxURLLength = 2048
	// MaxRedirects is the longest redirect chain followed (R8.3).
	MaxRedirects = 5
)

// Config says who the fetcher is and how it may be made more careful. The
// zero Config is ready to use: the default User-Agent, an in-memory state,
// slog.Default for the refusal log, the system resolver, public addresses
// only, and the rests of R2.
//
// No field can make the fetcher less polite than the rules (R1–R11, in
// README's rules table): a rest below its floor is raised to the floor, and
// New logs that once.
type Config struct {
	// Name, Version, InfoURL and Contact make the User-Agent (R4). All
	// empty: exactly "PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)".
	// A custom Name needs an InfoURL. Contact, when set, is also sent as From.
	Name, Version, InfoURL, Contact string

	// Signer, when set, signs every request the fetcher sends (see
	// RequestSigner): package botauth's signs under Web Bot Auth, with the
	// key a site finds at the Signature-Agent it names. Nil: requests go
	// unsigned, and the User-Agent is the whole identity.
	Signer RequestSigner

	// Store keeps page copies (for conditional requests and their history,
	// R6), robots.txt copies (R5.3), refusals (R3.4) and what the run
	// learned of each host (R3.3, R2.6), across runs when it is on disk
	// (OpenStore). The caller closes it. Nil: nothing is kept beyond the
	// run: the fetcher holds the run's robots.txt rules and host records
	// itself, refusals are only logged, and pages are not kept.
	Store Store

	// RobotsStore and HostStore, when set, keep robots.txt copies (R5.3)
	// and host records and refusals (R3.3-4) in place of Store's: a
	// backend shared by processes can keep these while pages stay local.
	RobotsStore RobotsStore
	HostStore   HostStore

	// Shared, when set, keeps the rules with every process configured
	// with the same one (package redisshare, on Redis): one request in
	// flight per address and its rest over all of them (R1, R2), each
	// robots.txt fetched once (R5.3), a host stopped in one stopped in all
	// (R3). It keeps robots.txt copies and host records in place of
	// RobotsStore and HostStore (and Store's). While it cannot be reached
	// no request is sent.
	Shared Shared

	// CoolOff raises how long a host stopped by a refusal is left alone
	// across runs, the first time; it doubles with each further stop
	// (R3.3). Zero or below: DefaultCoolOff (6 h).
	CoolOff time.Duration

	// Logger receives refusals and configuration notices. Nil: slog.Default().
	// The fetcher may log with its scheduling lock held: the Logger's
	// handler must not call the Fetcher.
	Logger *slog.Logger

	// Resolver turns host names into addresses. Nil: net.DefaultResolver.
	// A host is resolved before its first request, and again before its
	// robots.txt is asked again, once every 24 h (R1.1); documented APIs
	// and unrestricted hosts, which have no robots.txt, once per run. The
	// address found keys its budget and is the address dialled.
	Resolver Resolver

	// AllowPrivateNetworks lets the fetcher dial loopback, private,
	// link-local and other non-public addresses (R10.1): for tests and
	// intranets. Off by default, because links are written by strangers.
	AllowPrivateNetworks bool

	// Retries is how many more times a URL whose request failed
	// transiently (429, 5xx, a timeout, a connection error, a body cut
	// short) is asked, each time after the backoff its failure set on the
	// host, before its Result carries the last error (R11.3). Zero:
	// DefaultRetries; negative: never; above DefaultRetries: DefaultRetries.
	Retries int

	// RootCAs, when set, is the set of certificate authorities an HTTPS
	// server's certificate must chain to, in place of the system's roots,
	// as in crypto/tls: a private CA, or a test's. Nil: the system's roots.
	// New takes a copy. It is the only TLS setting: verification is never
	// off, and TLS 1.2 is the oldest version spoken (R10.2).
	RootCAs *x509.CertPool

	// MaxInFlight caps the requests (and host lookups) in flight over all
	// budgets. Each has a goroutine of its own while it is in flight, and
	// the fetcher keeps as many in flight as the work needs (see
	// DefaultMaxInFlight): a cap lowers that, to bound memory or the load
	// on a network, and is never needed to reach the limit. Stats shows
	// the need beside the cap. Zero: DefaultMaxInFlight.
	MaxInFlight int

	// MaxUnread bounds the Results waiting to be read, by Next or a
	// Results loop: while that many wait, no request starts, and the
	// fetcher waits for its reader rather than hold pages it was not
	// asked for yet. With the requests in flight, at most MaxUnread +
	// MaxInFlight Results wait. Add never waits for it: a crawler that
	// Adds links from its Results loop goes on. URLs answered without a
	// request (disallowed, stopped) still come back at once. Zero:
	// DefaultMaxUnread.
	MaxUnread int

	// MinRest raises the floor of the rest after each request to any host,
	// documented APIs included (R2.1). Zero or below a host's floor: the floor.
	MinRest time.Duration

	// DurationFactor raises the multiple of the last request's duration a
	// budget rests (R2.2). Zero or below 5: 5.
	DurationFactor int

	// MaxBodyBytes caps the bytes read of one body. Zero or less:
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64

	// Timeout bounds one request from dial to the last byte of its body.
	// It is also the only bound on the wait for the response headers: a
	// server that never answers holds one request in flight for Timeout.
	// Zero or less: DefaultTimeout; above MaxTimeout: MaxTimeout.
	Timeout time.Duration

	// MaxBackoff caps the growing backoff after failures in a row (R2.5).
	// Zero or below: DefaultMaxBackoff (5 min); it may be raised up to
	// MaxBackoffLimit (30 min).
	MaxBackoff time.Duration

	// Horizon is the longest wait a server may ask for in a run: a
	// Retry-After beyond it parks the host, whose URLs come back with a
	// *ParkedError (R2.4). Zero or less: DefaultHorizon (1 h).
	Horizon time.Duration

	// APIs are hosts the caller declares documented public APIs (R5.5).
	// They are not asked for robots.txt; they follow their own terms: a
	// 1 s floor between requests, and the rate of the terms when given.
	APIs []API

	// Unrestricted names hosts whose robots.txt this run does not read
	// (R5.6): the caller's own sites, or a small set of pages, with a
	// written reason that New logs. Requests to them carry the product
	// token "<Name>-unrestricted"; pacing, backoff and refusals are as
	// for any host.
	Unrestricted Unrestricted

	// Types names the media types read besides HTML (R8.1), as
	// "type/subtype" or "type/*": "application/pdf", "image/*". The body
	// of any other type is not read: the connection is closed after the
	// headers and the Result carries ErrContentType.
	Types []string

	// OnRequest, when set, is called with every request as it ends, one
	// call at a time, with the fetcher's scheduling lock held: the
	// requests to one address come in the order they were made. It must
	// return quickly and must not call the Fetcher.
	OnRequest func(RequestEvent)

	// Recorder, when set, is given every exchange with a server as it was
	// on the wire: the request as sent, the response's head and its body
	// undecoded (a web archive's records). Nil: nothing is recorded, at no
	// cost. See Recorder.
	Recorder Recorder
}

// API declares a host that is a documented public API (R5.5).
type API struct {
	// Host is the host name, without scheme or port: "api.example.org".
	Host string
	// Terms is the URL of the terms that allow automated use.
	Terms string
	// Rate is the request rate the terms allow, per second; zero: no limit
	// beyond the 1 s floor. The stricter of the two wins.
	Rate rate.Limit
	// Burst is the burst the terms allow with Rate; zero: 1.
	Burst int
}

// Unrestricted is a run's explicit list of hosts whose robots.txt is not
// read, and why (R5.6).
type Unrestricted struct {
	Hosts  []string
	Reason string
}

// Resolver looks up a host's addresses. *net.Resolver satisfies it. The
// context of a lookup is cancelled when the lookup has taken 15 s (a
// bound of its own, apart from Config.Timeout) or the fetcher closes; it
// has no deadline, and a worker passes the same one to its next lookups,
// so a resolver stops what it started for a lookup before it returns.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// settings is a Config with every default filled and every floor applied.
type settings struct {
	ua           identity
	signer       RequestSigner // nil: requests go unsigned
	logger       *slog.Logger
	resolver     Resolver
	allowPrivate bool
	rootCAs      *x509.CertPool // nil: the system's roots
	maxInFlight  int
	maxUnread    int
	retries      int
	pacing       pacing.Policy
	apiFloor     time.Duration // the caller's MinRest, for documented APIs too (R2.1)
	maxBody      int64
	timeout      time.Duration
	maxBackoff   time.Duration
	horizon      time.Duration
	apis         map[string]API      // by lower-case host name
	unrestricted map[string]struct{} // by lower-case host name
	onRequest    func(RequestEvent)
	recorder     Recorder // nil: no exchange recorded
	types        mediaTypes
	pages        PageStore   // nil: pages are not kept, requests not conditional (R6)
	robotsStore  RobotsStore // nil: robots.txt copies last the run
	hosts        HostStore   // nil: refusals are only logged, host records last the run
	coordinator  Coordinator // nil: the rules are kept in this process alone
	coolOff      time.Duration
}

// settle applies defaults and floors. A value below a floor is raised and
// logged once (the first principle of the rules), never silently ignored.
func (c Config) settle() (settings, error) {
	s := settings{
		ua:           identity{Name: c.Name, Version: c.Version, InfoURL: c.InfoURL, Contact: c.Contact},
		signer:       c.Signer,
		logger:       c.Logger,
		resolver:     c.Resolver,
		allowPrivate: c.AllowPrivateNetworks,
		rootCAs:      c.RootCAs, // copied below: the caller may add to its pool later
		maxInFlight:  c.MaxInFlight,
		maxUnread:    c.MaxUnread,
		retries:      c.Retries,
		pacing:       pacing.Policy{Floor: c.MinRest, Factor: c.DurationFactor},
		apiFloor:     c.MinRest,
		maxBody:      c.MaxBodyBytes,
		timeout:      c.Timeout,
		maxBackoff:   c.MaxBackoff,
		horizon:      c.Horizon,
		onRequest:    c.OnRequest,
		recorder:     c.Recorder,
		robotsStore:  c.RobotsStore,
		hosts:        c.HostStore,
		coolOff:      c.CoolOff,
	}
	if c.Store != nil {
		s.pages = c.Store
		if s.robotsStore == nil {
			s.robotsStore = c.Store
		}
		if s.hosts == nil {
			s.hosts = c.Store
		}
	}
	if c.Shared != nil {
		s.coordinator, s.robotsStore, s.hosts = c.Shared, c.Shared, c.Shared
	}
	if err := s.ua.validate(); err != nil {
		return settings{}, err
	}
	s.ua = s.ua.withDefaults()
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if s.rootCAs != nil {
		s.rootCAs = s.rootCAs.Clone()
	}
	if s.resolver == nil {
		s.resolver = net.DefaultResolver
	}
	if s.maxInFlight <= 0 {
		s.maxInFlight = DefaultMaxInFlight
	}
	if s.maxUnread <= 0 {
		s.maxUnread = DefaultMaxUnread
	}
	switch {
	case s.retries == 0:
		s.retries = DefaultRetries
	case s.retries < 0:
		s.retries = 0
	case s.retries > DefaultRetries:
		s.logger.Warn("polite: Retries above the bound, lowered", "given", s.retries, "bound", DefaultRetries, "rule", "R11.3")
		s.retries = DefaultRetries
	}
	if s.pacing.Floor < MinRest {
		if s.pacing.Floor != 0 {
			s.logger.Warn("polite: MinRest below the floor, raised", "given", s.pacing.Floor, "floor", MinRest, "rule", "R2.1")
		}
		s.pacing.Floor = MinRest
	}
	if s.pacing.Factor < MinDurationFactor {
		if s.pacing.Factor != 0 {
			s.logger.Warn("polite: DurationFactor below the floor, raised", "given", s.pacing.Factor, "floor", MinDurationFactor, "rule", "R2.2")
		}
		s.pacing.Factor = MinDurationFactor
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.timeout > MaxTimeout {
		s.logger.Warn("polite: Timeout above the bound, lowered", "given", s.timeout, "bound", MaxTimeout, "rule", "R10.2")
		s.timeout = MaxTimeout
	}
	if s.maxBackoff < DefaultMaxBackoff {
		if s.maxBackoff != 0 {
			s.logger.Warn("polite: MaxBackoff below the floor, raised", "given", s.maxBackoff, "floor", DefaultMaxBackoff, "rule", "R2.5")
		}
		s.maxBackoff = DefaultMaxBackoff
	}
	if s.maxBackoff > MaxBackoffLimit {
		s.logger.Warn("polite: MaxBackoff above the limit, lowered", "given", s.maxBackoff, "limit", MaxBackoffLimit, "rule", "R2.5")
		s.maxBackoff = MaxBackoffLimit
	}
	if s.horizon <= 0 {
		s.horizon = DefaultHorizon
	}
	if s.coolOff < DefaultCoolOff {
		if s.coolOff != 0 {
			s.logger.Warn("polite: CoolOff below the floor, raised", "given", s.coolOff, "floor", DefaultCoolOff, "rule", "R3.3")
		}
		s.coolOff = DefaultCoolOff
	}
	if err := s.settleHosts(c); err != nil {
		return settings{}, err
	}
	var err error
	if s.types, err = settleTypes(c.Types); err != nil {
		return settings{}, err
	}
	return s, nil
}

// ErrConfig is returned by New for a Config that cannot be honoured as
// written: an API without its terms, an unrestricted run without a reason.
var ErrConfig = errors.New("polite: invalid config")

// settleHosts checks and indexes the declared API and unrestricted hosts,
// by the host key a URL on them gets (R1.1): "API.Example." and
// "bücher.example" are found as "api.example" and "xn--bcher-kva.example".
func (s *settings) settleHosts(c Config) error {
	// configHost is a declared host in its normal form, the one the
	// scheduler keys on (urltrap.Host, the normaliser of every URL).
	configHost := func(h string) (string, bool) {
		h = strings.TrimSpace(h)
		if h == "" || strings.ContainsAny(h, ":/ ") {
			return "", false
		}
		name, err := urltrap.Host(h)
		return name, err == nil
	}
	s.apis = make(map[string]API, len(c.APIs))
	for _, a := range c.APIs {
		name, ok := configHost(a.Host)
		if !ok {
			return fmt.Errorf("%w: API host %q: want a bare host name", ErrConfig, a.Host)
		}
		if u, err := url.Parse(a.Terms); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("%w: API host %s: Terms %q: want the URL of the terms that allow automated use", ErrConfig, a.Host, a.Terms)
		}
		if a.Rate < 0 || a.Burst < 0 {
			return fmt.Errorf("%w: API host %s: negative rate or burst", ErrConfig, a.Host)
		}
		s.apis[name] = a
		// Said once at the start, as an unrestricted run is: this host is
		// paced by its own terms, not by robots.txt (R5.5).
		s.logger.Info("polite: documented API: robots.txt not read, 1 s floor and the terms' rate",
			"host", name, "terms", a.Terms, "rate", float64(a.Rate), "rule", "R5.5")
	}
	u := c.Unrestricted
	if len(u.Hosts) == 0 {
		if strings.TrimSpace(u.Reason) != "" {
			return fmt.Errorf("%w: an unrestricted reason without hosts", ErrConfig)
		}
		return nil
	}
	if strings.TrimSpace(u.Reason) == "" {
		return fmt.Errorf("%w: an unrestricted run needs a written reason (R5.6)", ErrConfig)
	}
	s.unrestricted = make(map[string]struct{}, len(u.Hosts))
	for _, h := range u.Hosts {
		name, ok := configHost(h)
		if !ok {
			return fmt.Errorf("%w: unrestricted host %q: want a bare host name", ErrConfig, h)
		}
		s.unrestricted[name] = struct{}{}
	}
	s.logger.Warn("polite: unrestricted run: robots.txt is not read for these hosts",
		"hosts", u.Hosts, "reason", u.Reason, "user_agent", s.ua.unrestricted().String(), "rule", "R5.6")
	return nil
}
