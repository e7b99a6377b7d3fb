package schedule

import (
	"errors"
	"strings"
	"time"
)

// The sentinel errors the scheduler makes or tells apart; the fetcher's
// public names are these same values, so errors.Is holds across the seam.
var (
	// ErrClosed: the fetcher was closed before the URL was answered (R11.2).
	ErrClosed = errors.New("polite: fetcher closed")
	// ErrInvalidURL: a URL that cannot be fetched as written.
	ErrInvalidURL = errors.New("polite: invalid URL")
	// ErrTooManyRedirects: a chain longer than the fetcher follows (R8.3).
	ErrTooManyRedirects = errors.New("polite: too many redirects")
	// ErrRedirectLoop: a redirect back to a URL of its own chain (R8.3).
	ErrRedirectLoop = errors.New("polite: redirect loop")
	// ErrFailuresInARow: failures in a row stopped the host (R3.2).
	ErrFailuresInARow = errors.New("polite: failures in a row")
	// ErrCertificate: the host's TLS certificate did not verify.
	ErrCertificate = errors.New("polite: certificate not trusted")
	// ErrCoolingOff: the host is cooling off after an earlier run's stop (R3.3).
	ErrCoolingOff = errors.New("polite: host cooling off after an earlier stop")
)

// prefix opens the text of the package's errors, once however many of
// them one wraps.
const prefix = "polite: "

// Nested is err quoted inside another error of the package: the same
// error to errors.Is and errors.As, its text without its leading
// "polite: ". An error whose text does not open so (net/http's, a
// caller's Resolver's) is returned as it is, its own methods (Timeout)
// kept.
func Nested(err error) error {
	if err == nil || !strings.HasPrefix(err.Error(), prefix) {
		return err
	}
	return nested{err}
}

// NestedText is the stored text of an error, as Nested quotes it.
func NestedText(text string) string { return strings.TrimPrefix(text, prefix) }

// nested is an error of the package inside another: see Nested.
type nested struct{ err error }

func (n nested) Error() string { return NestedText(n.err.Error()) }
func (n nested) Unwrap() error { return n.err }

// Robots cache timings (R5.3).
const (
	// RobotsMaxAge is how long a robots.txt copy is used before it is
	// asked for again (conditionally); also how long a host stays idle
	// before it is forgotten, and how often it is looked up (R1.1).
	RobotsMaxAge = 24 * time.Hour
	// RobotsStaleLimit is how long a copy may stand in while the site
	// cannot be reached; after it, the site is unreachable.
	RobotsStaleLimit = 30 * 24 * time.Hour
	// robotsStaleRetry is when a refresh is tried again while a stale
	// copy stands in.
	robotsStaleRetry = time.Hour
)
