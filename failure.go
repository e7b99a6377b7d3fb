package polite

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"github.com/politecrawler/polite/internal/schedule"
)

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
