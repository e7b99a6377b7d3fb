package polite

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"time"
)

// Defaults for the Config fields left at zero.
const (
	DefaultMaxInFlight  = 64
	DefaultMaxBodyBytes = 10 << 20
	DefaultTimeout      = 60 * time.Second
	// MaxTimeout bounds Config.Timeout: no server holds a worker longer (R10.2).
	MaxTimeout = 10 * time.Minute
	// MaxURLLength is the longest URL the fetcher accepts (R10.2).
	MaxURLLength = 4096
	// MaxRedirects is the longest redirect chain followed (R8.3).
	MaxRedirects = 5
)

// Config says who the fetcher is and how it may be made more careful. The
// zero Config is ready to use: the default User-Agent, an in-memory state,
// slog.Default for the refusal log, the system resolver, public addresses
// only, and the rests of R2.
//
// No field can make the fetcher less polite than the rules (SPEC.md): a
// rest below its floor is raised to the floor, and New logs that once.
type Config struct {
	// Name, Version, InfoURL and Contact make the User-Agent (R4). All
	// empty: exactly "PoliteCrawler/0.1.0 (+https://mark1russell7.github.io/crawler/bot/)".
	// A custom Name needs an InfoURL. Contact, when set, is also sent as From.
	Name, Version, InfoURL, Contact string

	// Logger receives refusals and configuration notices. Nil: slog.Default().
	Logger *slog.Logger

	// Resolver turns host names into addresses. Nil: net.DefaultResolver.
	// Each host is resolved once; the address it resolves to keys its
	// budget and is the address dialled (R1.1).
	Resolver Resolver

	// AllowPrivateNetworks lets the fetcher dial loopback, private,
	// link-local and other non-public addresses (R10.1): for tests and
	// intranets. Off by default, because links are written by strangers.
	AllowPrivateNetworks bool

	// MaxInFlight bounds the requests in flight over all budgets (and the
	// fetcher's worker goroutines). Zero: DefaultMaxInFlight.
	MaxInFlight int

	// MinRest raises the floor of the rest after each request (R2.1).
	// Zero or anything below the 3 s floor: the floor.
	MinRest time.Duration

	// DurationFactor raises the multiple of the last request's duration a
	// budget rests (R2.2). Zero or below 5: 5.
	DurationFactor int

	// MaxBodyBytes caps the bytes read of one body. Zero: DefaultMaxBodyBytes.
	MaxBodyBytes int64

	// Timeout bounds one request from dial to the last byte of its body.
	// Zero: DefaultTimeout; above MaxTimeout: MaxTimeout.
	Timeout time.Duration

	// MaxBackoff caps the growing backoff after failures in a row (R2.5).
	// Zero or below: DefaultMaxBackoff (5 min); it may be raised up to
	// MaxBackoffLimit (30 min).
	MaxBackoff time.Duration

	// Horizon is the longest wait a server may ask for in a run: a
	// Retry-After beyond it parks the host, whose URLs come back with a
	// *ParkedError (R2.4). Zero: DefaultHorizon (1 h).
	Horizon time.Duration
}

// Resolver looks up a host's addresses. *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// settings is a Config with every default filled and every floor applied.
type settings struct {
	ua           UserAgent
	logger       *slog.Logger
	resolver     Resolver
	allowPrivate bool
	maxInFlight  int
	pacing       pacing
	maxBody      int64
	timeout      time.Duration
	maxBackoff   time.Duration
	horizon      time.Duration
}

// settle applies defaults and floors. A value below a floor is raised and
// logged once (the first principle of SPEC.md), never silently ignored.
func (c Config) settle() (settings, error) {
	s := settings{
		ua:           UserAgent{Name: c.Name, Version: c.Version, InfoURL: c.InfoURL, Contact: c.Contact},
		logger:       c.Logger,
		resolver:     c.Resolver,
		allowPrivate: c.AllowPrivateNetworks,
		maxInFlight:  c.MaxInFlight,
		pacing:       pacing{floor: c.MinRest, factor: c.DurationFactor},
		maxBody:      c.MaxBodyBytes,
		timeout:      c.Timeout,
		maxBackoff:   c.MaxBackoff,
		horizon:      c.Horizon,
	}
	if err := s.ua.Validate(); err != nil {
		return settings{}, err
	}
	s.ua = s.ua.withDefaults()
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if s.resolver == nil {
		s.resolver = net.DefaultResolver
	}
	if s.maxInFlight <= 0 {
		s.maxInFlight = DefaultMaxInFlight
	}
	if s.pacing.floor < MinRest {
		if s.pacing.floor != 0 {
			s.logger.Warn("polite: MinRest below the floor, raised", "given", s.pacing.floor, "floor", MinRest, "rule", "R2.1")
		}
		s.pacing.floor = MinRest
	}
	if s.pacing.factor < MinDurationFactor {
		if s.pacing.factor != 0 {
			s.logger.Warn("polite: DurationFactor below the floor, raised", "given", s.pacing.factor, "floor", MinDurationFactor, "rule", "R2.2")
		}
		s.pacing.factor = MinDurationFactor
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
	return s, nil
}
