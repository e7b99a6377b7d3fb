package polite

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"github.com/politecrawler/polite/internal/netguard"
	"github.com/politecrawler/polite/internal/schedule"
)

// Errors a Result (or Add) can carry. Each is matched with errors.Is; the
// error itself says more (the URL, the address, the underlying cause).
var (
	// ErrClosed: the fetcher was closed before the URL was fetched (R11.2),
	// or Add was called after Close.
	ErrClosed = schedule.ErrClosed

	// ErrInvalidURL: the URL cannot be fetched as written (unparsable, no
	// host, credentials in it, too long).
	ErrInvalidURL = schedule.ErrInvalidURL

	// ErrUnsupportedScheme: only http and https are fetched (R10.2).
	ErrUnsupportedScheme = errors.New("polite: unsupported URL scheme")

	// ErrPrivateAddress: the host is, or resolves to, a loopback, private,
	// link-local, multicast or unspecified address, and the Config does
	// not allow private networks (R10.1).
	ErrPrivateAddress = netguard.ErrPrivateAddress

	// ErrUnresolved: the host name could not be resolved.
	ErrUnresolved = errors.New("polite: host not resolved")

	// ErrBodyTooLarge: the body was longer than Config.MaxBodyBytes; the
	// Result holds the first MaxBodyBytes and Truncated is set (R8.1, R10.2).
	ErrBodyTooLarge = errors.New("polite: body over the size cap")

	// ErrIncompleteBody: the response's body did not arrive whole — the
	// connection was cut, a chunked or compressed stream broke off, or it
	// stalled past Config.Timeout. It counts as a failure of the host,
	// whatever the status (R2.5, R3.2); the error says how many bytes came.
	ErrIncompleteBody = errors.New("polite: body incomplete")

	// ErrTooManyRedirects: more than five redirects in a row (R8.3).
	ErrTooManyRedirects = schedule.ErrTooManyRedirects

	// ErrRedirectLoop: a redirect led back to a URL already in the chain.
	ErrRedirectLoop = schedule.ErrRedirectLoop
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
	return fmt.Sprintf("polite: host %s stopped for the run: %v", e.Host, schedule.Nested(e.Cause))
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

// responseError is the error of a response that is not a page: a refusal,
// a rate limit or a server failure. Other answers (404, 304, redirects)
// are not errors: their Status and Verdict say what they are.
func responseError(host, url string, status int, v Verdict, at time.Time) error {
	switch v.Kind {
	case KindRefused:
		return &RefusalError{Host: host, URL: url, Status: status, Verdict: v, At: at}
	case KindRateLimited:
		return fmt.Errorf("%w: %d from %s", ErrRateLimited, status, url)
	case KindServerFailure:
		return fmt.Errorf("%w: %d from %s", ErrServerFailure, status, url)
	}
	return nil
}

// isNetworkFailure says whether a request error counts as a failure of the
// host (timeouts, resets, refused connections), rather than of the fetcher
// (closed), of the page (too large, invalid) or of the host's certificate
// (which stops it at once, see certificateFailure).
func isNetworkFailure(err error) bool {
	return err != nil && !errors.Is(err, ErrClosed) && !errors.Is(err, ErrBodyTooLarge) &&
		!errors.Is(err, ErrInvalidURL) && !errors.Is(err, context.Canceled) && !certificateFailure(err)
}

// ErrCertificate: the host's TLS certificate did not verify (wrong name,
// unknown authority, expired…). The host is stopped for the run at once,
// with nothing fetched from it; its address is not backed off, and no
// cool-off is kept across runs, as it is not a refusal. The cause of the
// *StoppedError keeps the x509 error for errors.As.
var ErrCertificate = schedule.ErrCertificate

// certificateFailure says whether a request failed because the server's
// certificate did not verify: a fact about that host, not a failure of
// its address.
func certificateFailure(err error) bool {
	if err == nil {
		return false
	}
	var cv *tls.CertificateVerificationError
	var host x509.HostnameError
	var ca x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &cv) || errors.As(err, &host) || errors.As(err, &ca) || errors.As(err, &invalid)
}
