package polite

import (
	"context"
	"crypto/x509"
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

// Defaults for the Config fields left at zero, and their bounds.
const (
	// DefaultMaxInFlight bounds memory, not throughput: the fetcher keeps
	// in flight what the work needs (Stats.InFlightNeed), and 10,000 hosts
	// answering in 1 s need about 1,700 (R1.2).
	DefaultMaxInFlight  = 4096
	DefaultMaxUnread    = 256 // Results waiting unread before requests wait (Config.MaxUnread)
	DefaultMaxBodyBytes = 10 << 20
	DefaultTimeout      = 60 * time.Second
	DefaultRetries      = 3                // tries again of a transient failure, and the most Config.Retries asks (R11.3)
	MaxTimeout          = 10 * time.Minute // the most Config.Timeout may be (R10.2)
	MaxURLLength        = 2048             // the longest URL accepted, as given and normalised (R10.2)
	MaxRedirects        = 5                // the longest redirect chain followed (R8.3)
)

// Config says who the fetcher is and how it may be made more careful. The
// zero Config is ready to use: the default User-Agent, state in memory,
// slog.Default, the system resolver, public addresses only, the rests of R2.
// No field makes the fetcher less polite than the rules: a value below a
// floor is raised to the floor, and New logs that once.
type Config struct {
	// Name, Version, InfoURL and Contact make the User-Agent (R4); all
	// empty, the default one. A custom Name needs an InfoURL; Contact is
	// also sent as From.
	Name, Version, InfoURL, Contact string

	// Signer, when set, signs every request sent (RequestSigner).
	Signer RequestSigner

	// Store keeps page copies (R6), robots.txt copies (R5.3), refusals
	// (R3.4), host records (R3.3, R2.6) and rests (R1.4); the caller
	// closes it. Nil: nothing outlives the run.
	Store Store

	// RobotsStore and HostStore, when set, keep those parts in place of
	// Store's: a backend shared by processes, while pages stay local.
	RobotsStore RobotsStore
	HostStore   HostStore

	// Shared, when set, keeps the rules with every process that has the
	// same one (R12), and the robots.txt copies and host records in place
	// of the stores above. While it cannot be reached no request is sent.
	Shared Shared

	// CoolOff raises the first cool-off of a host stopped by a refusal
	// (R3.3). Zero or below: DefaultCoolOff.
	CoolOff time.Duration

	// Logger receives refusals and configuration notices; nil:
	// slog.Default(). Its handler must not call the Fetcher.
	Logger *slog.Logger

	// Resolver turns host names into addresses, once per robots period
	// (R1.1); nil: net.DefaultResolver.
	Resolver Resolver

	// AllowPrivateNetworks lets the fetcher dial non-public addresses
	// (R10.1): for tests and intranets.
	AllowPrivateNetworks bool

	// Retries is how many more times a URL that failed transiently is
	// asked, each on its host's backoff (R11.3). Zero: DefaultRetries;
	// negative: never; at most DefaultRetries.
	Retries int

	// RootCAs, when set, replaces the system's roots for HTTPS; New takes
	// a copy. Verification is never off (R10.2).
	RootCAs *x509.CertPool

	// MaxInFlight caps the requests and lookups in flight, to bound memory
	// or load; it is never needed for politeness. Zero: DefaultMaxInFlight.
	MaxInFlight int

	// MaxUnread bounds the Results waiting to be read: while that many
	// wait, no request starts; Add never waits. Zero: DefaultMaxUnread.
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
	// Zero or less: DefaultTimeout; at most MaxTimeout.
	Timeout time.Duration

	// MaxBackoff raises the cap of the backoff after failures (R2.5),
	// up to MaxBackoffLimit. Zero or below: DefaultMaxBackoff.
	MaxBackoff time.Duration

	// Horizon is the longest Retry-After obeyed in a run; a longer one
	// parks the host (R2.4). Zero or less: DefaultHorizon.
	Horizon time.Duration

	// APIs are hosts declared documented public APIs (R5.5): no robots.txt,
	// a 1 s floor and the rate of their terms.
	APIs []API

	// Unrestricted names hosts whose robots.txt this run does not read,
	// with the reason New logs (R5.6).
	Unrestricted Unrestricted

	// Types names the media types read besides HTML (R8.1), as
	// "type/subtype" or "type/*"; others get ErrContentType.
	Types []string

	// OnRequest, when set, is called as each request ends, one call at a
	// time under the scheduling lock: it must return quickly and must not
	// call the Fetcher.
	OnRequest func(RequestEvent)

	// Recorder, when set, is given every exchange as it went on the wire.
	Recorder Recorder
}

// API declares a host that is a documented public API (R5.5).
type API struct {
	// Host is the host name, without scheme or port: "api.example.org".
	Host string
	// Terms is the URL of the terms that allow automated use.
	Terms string
	// Rate is the request rate the terms allow, per second; zero: none
	// beyond the floor. The stricter wins.
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

// Resolver looks up a host's addresses; *net.Resolver is one. A lookup's
// context ends after 15 s or when the fetcher closes.
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
	rests        RestStore   // nil: rests last the run (a Shared keeps its own, R12)
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
		s.pages, s.rests = c.Store, c.Store
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
