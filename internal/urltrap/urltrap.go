// Package urltrap gives every crawlable resource one spelling and tells
// crawler traps from pages (R9.1, R10.2).
//
// The model has three parts, used in this order when a URL is added:
//
//   - Normalize rewrites an http(s) URL to one canonical spelling (case,
//     default port, dot segments, percent-encoding, no fragment, no
//     session id), so that duplicate suppression and per-host politeness
//     see one URL where a site wrote many.
//   - Check judges a normalised URL by its shape alone: an endless
//     calendar, repeating path segments, absurd depth or length. It needs
//     no memory and no network.
//   - A Tracker is the memory of one run: which URLs were already
//     admitted, and which URL patterns of a host keep serving the same
//     body (a trap that only shows once pages are fetched).
//
// A URL judged a trap is not silently skipped: the caller turns the Kind
// and reason into an error result naming the trap (R9.1, R11.1).
package urltrap

import "errors"

// Kind names a trap; the fetcher puts it in the error result of a dropped
// URL so that the log says which trap caught it.
type Kind string

// The traps urltrap recognises.
const (
	// Calendar: a date in the path or query far from today. Calendars
	// link to the next and previous day forever, in both directions.
	Calendar Kind = "calendar"
	// SessionID: a session id that cannot be stripped. Normalize strips
	// ;jsessionid= path parameters and session query parameters, because
	// servers serve the page without them; an ASP.NET cookieless session
	// segment "(S(…))" is rejected instead, because the server answers its
	// removal with a redirect to a fresh session URL, so stripping would
	// only loop.
	SessionID Kind = "session-id"
	// RepeatingSegments: a path that repeats itself, the mark of a
	// relative link resolved against its own page again and again.
	RepeatingSegments Kind = "repeating-segments"
	// TooDeep: more path segments than Limits.MaxDepth.
	TooDeep Kind = "too-deep"
	// TooLong: a normalised URL longer than Limits.MaxLength bytes.
	TooLong Kind = "too-long"
	// RepeatedContent: a URL pattern of a host whose pages keep serving
	// the same body (Tracker.Content, Tracker.Dropped).
	RepeatedContent Kind = "repeated-content"
	// Duplicate: a URL already admitted in this run (Tracker.Seen).
	Duplicate Kind = "duplicate"
)

// Limits bounds what a URL may look like before it is called a trap. The
// zero value means the defaults; a negative field turns its check off
// (a caller crawling a newspaper archive may want no calendar check).
type Limits struct {
	// MaxDepth is how many path segments a URL may have; default 16.
	MaxDepth int
	// MaxLength is how many bytes a normalised URL may have; default 1024.
	MaxLength int
	// CalendarYears is how many years from today's year a date in a URL
	// may run, in the past or the future; default 2.
	CalendarYears int
	// SameContent is how many distinct URLs of one pattern on one host
	// may serve the same body before the pattern is dropped; default 5.
	SameContent int
}

// Defaults, chosen so that no ordinary page trips them: real sites rarely
// go deeper than a dozen segments, browsers and CDNs balk near 2 KB,
// calendars worth crawling cover this year and the next, and five
// identical pages of one pattern is already four too many.
const (
	defaultMaxDepth      = 16
	defaultMaxLength     = 1024
	defaultCalendarYears = 2
	defaultSameContent   = 5
)

// withDefaults fills the zero fields with the defaults; negative fields
// stay negative, meaning "off".
func (l Limits) withDefaults() Limits {
	if l.MaxDepth == 0 {
		l.MaxDepth = defaultMaxDepth
	}
	if l.MaxLength == 0 {
		l.MaxLength = defaultMaxLength
	}
	if l.CalendarYears == 0 {
		l.CalendarYears = defaultCalendarYears
	}
	if l.SameContent == 0 {
		l.SameContent = defaultSameContent
	}
	return l
}

// Errors from Normalize; each returned error wraps one of them and adds
// the offending part.
var (
	// ErrNotHTTP: the URL is not http or https (R10.2).
	ErrNotHTTP = errors.New("urltrap: not an http or https URL")
	// ErrNoHost: the URL has no host to send the request to.
	ErrNoHost = errors.New("urltrap: URL has no host")
	// ErrUserinfo: the URL carries a user name or password. The fetcher
	// never logs in (R8.2), and net/http would turn them into an
	// Authorization header, so such URLs are refused, not rewritten.
	ErrUserinfo = errors.New("urltrap: URL carries user info")
	// ErrMalformed: the URL cannot be parsed (a bad percent-escape, a
	// control character, a bad host or port).
	ErrMalformed = errors.New("urltrap: malformed URL")
)

// FNV-1a, 64-bit. Inline rather than hash/fnv so that hashing a string
// neither allocates nor converts it to bytes, and deterministic so that a
// run can be replayed.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hashString(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

func hashBytes(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}
