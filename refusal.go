package polite

import (
	"errors"
	"fmt"
	"time"

	"github.com/politecrawler/polite/internal/schedule"
)

// Errors for hosts that pushed back. Each is matched with errors.Is; the
// error's type (RefusalError, StoppedError, ParkedError) carries the
// details.
var (
	// ErrRefused: the host refused the fetcher — 402, 403 or a challenge
	// page (R3.1). The Result of the refused request carries a
	// *RefusalError; every other URL of the host, a *StoppedError whose
	// cause is that refusal.
	ErrRefused = errors.New("polite: refused")

	// ErrHostStopped: the host was stopped for the run, by a refusal or by
	// five failures in a row (R3.1, R3.2); nothing more is asked of it.
	ErrHostStopped = errors.New("polite: host stopped")

	// ErrParked: the server asked for a wait beyond the horizon; its URLs
	// come back with a *ParkedError that says until when (R2.4).
	ErrParked = errors.New("polite: host parked")

	// ErrRateLimited: the response was a 429 (R2.4–R2.5).
	ErrRateLimited = errors.New("polite: rate limited")

	// ErrServerFailure: the response was a 5xx (R2.5).
	ErrServerFailure = errors.New("polite: server failure")

	// ErrFailures: five failures in a row stopped the host (R3.2); the
	// cause of a *StoppedError.
	ErrFailures = schedule.ErrFailures
)

// StopKind says why a host was stopped (R3): in Stats.Refusals and in
// each RefusalRecord.
type StopKind string

// The causes of a stop.
const (
	StopRefused     StopKind = "refused"     // 402 or 403 (R3.1)
	StopChallenge   StopKind = "challenge"   // a challenge page (R3.1)
	StopFailures    StopKind = "failures"    // five failures in a row (R3.2)
	StopCertificate StopKind = "certificate" // a TLS certificate that does not verify: not kept across runs
)

// RefusalError is a refusal: who refused, what, and on what evidence.
type RefusalError struct {
	Host    string
	URL     string
	Status  int
	Verdict Verdict
	At      time.Time
}

func (e *RefusalError) Error() string {
	what := "refusal"
	if e.Verdict.Challenge {
		what = "challenge page"
		if e.Verdict.Vendor != "" {
			what = e.Verdict.Vendor + " " + what
		}
	}
	return fmt.Sprintf("polite: refused by %s: %s (%s) at %s", e.Host, what, e.Verdict.Evidence, e.URL)
}

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusalError) Is(target error) bool { return target == ErrRefused }

// StoppedError is the error of every URL of a stopped host after the one
// that stopped it; Cause is that first refusal or failure.
type StoppedError struct {
	Host  string
	Cause error
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("polite: host %s stopped for the run: %v", e.Host, e.Cause)
}

// Is makes errors.Is(err, ErrHostStopped) true.
func (e *StoppedError) Is(target error) bool { return target == ErrHostStopped }

// Unwrap gives the cause, so errors.Is(err, ErrRefused) holds for the
// URLs of a host stopped by a refusal.
func (e *StoppedError) Unwrap() error { return e.Cause }

// ParkedError is the error of a URL whose server asked for a wait longer
// than the horizon: it may be asked again from Until on.
type ParkedError struct {
	Host  string
	Until time.Time
}

func (e *ParkedError) Error() string {
	return fmt.Sprintf("polite: %s asked not to be contacted until %s", e.Host, e.Until.UTC().Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrParked) true.
func (e *ParkedError) Is(target error) bool { return target == ErrParked }
