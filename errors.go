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

// Errors a Result (or Add) carries, matched with errors.Is. The error itself
// says more: the URL, the address, the cause. The answers that carry
// details are typed errors instead, matched with errors.As or
// errors.AsType: *RefusalError, *StoppedError, *ParkedError,
// *DisallowedError, *TrapError, *ContentTypeError and *AIInputRefusedError.
var (
	ErrClosed            = schedule.ErrClosed                           // closed before the URL was fetched, or Add after Close (R11.2)
	ErrInvalidURL        = schedule.ErrInvalidURL                       // unparsable, no host, credentials in it, or too long
	ErrUnsupportedScheme = errors.New("polite: unsupported URL scheme") // neither http nor https (R10.2)
	ErrPrivateAddress    = netguard.ErrPrivateAddress                   // a non-public address, and AllowPrivateNetworks unset (R10.1)
	ErrUnresolved        = errors.New("polite: host not resolved")      // the host name did not resolve
	ErrDuplicate         = errors.New("polite: URL already added")      // Add: a URL already added, in any spelling; no Result comes (R9)
	ErrBodyTooLarge      = errors.New("polite: body over the size cap") // over MaxBodyBytes: the Result keeps that much, Truncated (R8.1)
	ErrIncompleteBody    = errors.New("polite: body incomplete")        // cut short or stalled: a failure of the host, whatever the status (R2.5)
	ErrTooManyRedirects  = schedule.ErrTooManyRedirects                 // more than MaxRedirects in a row (R8.3)
	ErrRedirectLoop      = schedule.ErrRedirectLoop                     // a redirect back to a URL already in the chain
)

// Errors of hosts that pushed back, and the causes of a *StoppedError.
var (
	ErrRateLimited      = errors.New("polite: rate limited")                    // a 429 (R2.4, R2.5)
	ErrServerFailure    = errors.New("polite: server failure")                  // a 5xx (R2.5)
	ErrFailuresInARow   = schedule.ErrFailuresInARow                            // cause: five failures in a row (R3.2)
	ErrCoolingOff       = schedule.ErrCoolingOff                                // cause: stopped in an earlier run, its cool-off not over (R3.3)
	ErrStoppedElsewhere = errors.New("polite: host stopped by another process") // cause: stopped by a process sharing the Coordinator (R3)
	// ErrCertificate is the cause when the host's TLS certificate does not
	// verify: stopped for the run, its address not backed off, no cool-off
	// kept; the cause wraps the x509 error for errors.As.
	ErrCertificate = schedule.ErrCertificate
)

// Errors of New, of a Store and of a Coordinator.
var (
	ErrConfig        = errors.New("polite: invalid config")                                          // an API without terms, an unrestricted run without a reason
	ErrUserAgent     = errors.New("polite: invalid user agent")                                      // a malformed name, version, info URL or contact (R4.2)
	ErrImpersonation = errors.New("polite: user agent name pretends to be a browser or another bot") // R4.3
	ErrStore         = errors.New("polite: store")                                                   // wraps every error of OpenStore and of a Store
	ErrStoreLocked   = fmt.Errorf("%w locked", ErrStore)                                             // OpenStore waited a second for a file another Store holds
	// ErrCoordinator wraps, in the log, an error of a Coordinator's Take:
	// no request is sent meanwhile (Stats.SharedDown); no URL is answered with it.
	ErrCoordinator = errors.New("polite: coordinator unreachable")
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

// RefusalError is a refusal (402, 403 or a challenge page, R3.1): who
// refused, what, and on what evidence. The host stops with it.
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

// StoppedError is the error of every URL of a stopped host after the one
// that stopped it (R3.1, R3.2); Cause is that first refusal or failure, or
// ErrFailuresInARow, ErrCoolingOff, ErrStoppedElsewhere or ErrCertificate.
type StoppedError struct {
	Host  string
	Cause error
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("polite: host %s stopped for the run: %v", e.Host, schedule.Nested(e.Cause))
}

// Unwrap gives the cause, so errors.As finds the *RefusalError in the
// error of each URL of a host stopped by a refusal.
func (e *StoppedError) Unwrap() error { return e.Cause }

// ParkedError is the error of a URL whose server asked for a wait longer
// than the horizon (R2.4): it may be asked again from Until on.
type ParkedError struct {
	Host  string
	Until time.Time
}

func (e *ParkedError) Error() string {
	return fmt.Sprintf("polite: %s asked not to be contacted until %s", e.Host, e.Until.UTC().Format(time.RFC3339))
}

// DisallowedError says which robots.txt rule disallowed a URL (R5.4).
type DisallowedError struct {
	URL      string
	Agent    string
	Decision Decision
}

func (e *DisallowedError) Error() string {
	return fmt.Sprintf("polite: %s disallowed for %s by robots.txt line %d: Disallow: %s",
		e.URL, e.Agent, e.Decision.Line, e.Decision.Pattern)
}

// TrapError says which crawler trap a URL fell into (R9).
type TrapError struct {
	URL    string
	Kind   TrapKind
	Reason string
}

func (e *TrapError) Error() string {
	return fmt.Sprintf("polite: %s dropped as a trap (%s): %s", e.URL, e.Kind, e.Reason)
}

// ContentTypeError names a media type not in Config.Types: the body was
// not read (R8.1).
type ContentTypeError struct {
	URL  string
	Type string // as sent, or as sniffed when the server sent none
}

func (e *ContentTypeError) Error() string {
	return fmt.Sprintf("polite: %s is %s: not read (HTML only, unless Config.Types names it)", e.URL, e.Type)
}

// AIInputRefusedError names the signal that refuses AI input (R7.2), and
// where the site gave it.
type AIInputRefusedError struct {
	Signal Signal
}

// Error reads like "polite: AI input refused by the site: ai-input=no
// (robots.txt line 4)".
func (e *AIInputRefusedError) Error() string {
	return "polite: AI input refused by the site: " + e.Signal.String()
}

// responseError is the error of a response that is not a page: a refusal,
// a rate limit or a server failure. Other answers (404, 304, redirects)
// are not errors: their Status and Verdict say what they are.
func responseError(host, url string, status int, v Verdict, at time.Time) error {
	switch v.Kind {
	case ResponseRefused:
		return &RefusalError{Host: host, URL: url, Status: status, Verdict: v, At: at}
	case ResponseRateLimited:
		return fmt.Errorf("%w: %d from %s", ErrRateLimited, status, url)
	case ResponseServerFailure:
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
