package polite

import (
	"fmt"
	"hash/maphash"

	"github.com/politecrawler/polite/internal/urltrap"
)

// Traps (R9): URLs are normalised before they are queued (case, default
// ports, dot segments, fragments, percent-encoding, session ids), and a
// URL that looks like a trap is dropped with a Result that names it:
// endless calendars, repeating path segments, absurd depth or length, a
// URL already added, or a URL pattern whose pages keep repeating the same
// content. Nothing is dropped without a Result.

// TrapKind names a kind of crawler trap (R9); Stats.Traps counts by it.
type TrapKind string

// The traps a URL is dropped for: the names of internal/urltrap's kinds.
const (
	TrapCalendar          TrapKind = "calendar"           // a date far from today in the path or query
	TrapSessionID         TrapKind = "session-id"         // a session id in the URL
	TrapRepeatingSegments TrapKind = "repeating-segments" // a path whose segments repeat
	TrapTooDeep           TrapKind = "too-deep"           // more path segments than a site has
	TrapRepeatedContent   TrapKind = "repeated-content"   // a URL pattern whose pages serve one content
)

// trapLimits are the trap detector's bounds: at most 16 path segments,
// dates within 2 years of today, and a URL pattern dropped after 5 of its
// pages served the same content. The length is not a trap: checkURL
// refuses a URL over MaxURLLength before it is accepted, so one bound
// holds for Add and for every redirect.
var trapLimits = urltrap.Limits{MaxLength: -1}

// normalise is the URL the fetcher requests for one a caller gave.
func normalise(raw string) (string, error) {
	n, err := urltrap.Normalize(raw)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	return n, nil
}

// bodyHash identifies a page's content for the repeated-content check.
// The hashes are compared within one process only, so a seed made at
// start suits; maphash reads many bytes a step, where a byte-at-a-time
// hash such as FNV costs a multiplication per byte of every page.
func bodyHash(b []byte) uint64 { return maphash.Bytes(bodyHashSeed, b) }

var bodyHashSeed = maphash.MakeSeed()
