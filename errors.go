package polite

import (
	"errors"

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
