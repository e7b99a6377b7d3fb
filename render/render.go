package render

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/politecrawler/polite"
)

// MaxSubrequests is the most requests one page may have fetched for it.
const MaxSubrequests = 20

// DefaultTimeout bounds one render, rests included.
const DefaultTimeout = 2 * time.Minute

// Types are the media types a page's scripts and data come in. The
// Fetcher a Renderer fetches through needs them in its Config.Types (it
// reads HTML alone by default): a subrequest of another type comes back
// with a *polite.ContentTypeError, and the page goes without it.
var Types = []string{"text/javascript", "application/javascript", "application/x-javascript",
	"text/ecmascript", "application/ecmascript", "application/json", "text/json", "application/ld+json", "text/plain"}

// ErrNotRenderable says the Result has an error, or no HTML page: a refusal
// or a challenge page is never rendered (rendering one would be getting
// around a block).
var ErrNotRenderable = errors.New("render: not a page to render")

// Options configure a Renderer; the zero value is the defaults.
type Options struct {
	// Browser is the path of the chromium binary. Empty: "chromium" on
	// PATH.
	Browser string
	// Subrequests lowers the most requests a page may have fetched for
	// it; zero or above MaxSubrequests: MaxSubrequests.
	Subrequests int
	// Timeout bounds one render; zero: DefaultTimeout.
	Timeout time.Duration
	// Renders is how many pages may be rendered at once, each in its own
	// incognito context of the one browser; zero: 1.
	Renders int
}

// Renderer renders pages in one browser, Options.Renders at a time. It
// is safe for concurrent use.
type Renderer struct {
	f       *polite.Fetcher
	opt     Options
	slots   chan struct{} // a render holds one
	browser context.Context
	stop    func() error
	copies  copies
}

// New starts the browser. The Renderer fetches through f, whose
// Config.Types should hold Types, and which the caller keeps and closes
// after Close.
func New(f *polite.Fetcher, opt Options) (*Renderer, error) {
	if opt.Browser == "" {
		opt.Browser = "chromium"
	}
	path, err := exec.LookPath(opt.Browser)
	if err != nil {
		return nil, fmt.Errorf("render: the browser: %w (Debian: apt-get install chromium)", err)
	}
	if opt.Subrequests <= 0 || opt.Subrequests > MaxSubrequests {
		opt.Subrequests = MaxSubrequests
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Renders <= 0 {
		opt.Renders = 1
	}
	flags := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // as root in a container the sandbox cannot start
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		// Should a request slip past the interception (a WebSocket, which
		// the Fetch domain does not pause), the browser can neither look
		// up a name nor reach an address: it has no network of its own.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), flags...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	if err := chromedp.Do(browser); err != nil { // starts it
		cancelBrowser()
		cancelAlloc()
		return nil, fmt.Errorf("render: starting %s: %w", path, err)
	}
	stop := sync.OnceValue(func() error {
		// Asked to close, the browser removes its singleton files from
		// the temp dir; killed by a bare cancel, it left a directory
		// there each run. A browser that does not close in closeWait is
		// killed.
		ctx, cancel := context.WithTimeout(browser, closeWait)
		defer cancel()
		err := chromedp.Cancel(ctx)
		cancelBrowser()
		cancelAlloc()
		return err
	})
	return &Renderer{f: f, opt: opt, slots: make(chan struct{}, opt.Renders), browser: browser, stop: stop}, nil
}

// closeWait is how long Close waits for the browser to close itself.
const closeWait = 10 * time.Second

// Close ends the browser: it asks it to close, and kills it if it has
// not after 10 s. A second Close returns what the first did.
func (r *Renderer) Close() error {
	if err := r.stop(); err != nil {
		return fmt.Errorf("render: closing the browser: %w", err)
	}
	return nil
}
