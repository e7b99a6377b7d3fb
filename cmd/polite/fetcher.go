package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/politecrawler/polite"
	"github.com/politecrawler/polite/botauth"
	"github.com/politecrawler/polite/politetest"
)

// fetcherFlags are the flags of every subcommand that fetches: who the
// crawler says it is (R4), and where it may go.
type fetcherFlags struct {
	name, version, info, contact string
	allowPrivate                 bool
	demo                         bool
	// timeout and retries bound how long a server that does not answer
	// holds the command: a shorter wait than the Config's, and fewer
	// attempts (R10.2, R11.3). Neither makes a request sooner.
	timeout time.Duration
	retries int
	// sign is a key file and agent the origin of its key directory: with
	// them every request is signed (Web Bot Auth).
	sign, agent string
}

// register adds the flags to fs; demo says whether -demo is one of them.
func (ff *fetcherFlags) register(fs *flag.FlagSet, demo bool) {
	fs.StringVar(&ff.name, "name", "", "the crawler's name, its robots.txt product token (default "+polite.DefaultName+"; a name needs -info)")
	fs.StringVar(&ff.version, "version", "", "the crawler's version, in the User-Agent")
	fs.StringVar(&ff.info, "info", "", "a page that tells site owners who runs the crawler")
	fs.StringVar(&ff.contact, "contact", "", "a mail address of the crawler's operator, sent in the User-Agent and as From")
	fs.BoolVar(&ff.allowPrivate, "allow-private", false, "allow loopback and private addresses: for your own servers")
	fs.DurationVar(&ff.timeout, "timeout", polite.DefaultTimeout, "the longest one request may take, from its dial to the last byte (at most "+polite.MaxTimeout.String()+")")
	fs.IntVar(&ff.retries, "retries", polite.DefaultRetries, "how many more times a page whose request failed for a moment is asked, after its backoff (0 to "+fmt.Sprint(polite.DefaultRetries)+")")
	fs.StringVar(&ff.sign, "sign", "", "sign every request with the Ed25519 key of this file (polite keys new makes one; mode 0600)")
	fs.StringVar(&ff.agent, "signature-agent", "", "with -sign: the https origin that serves the key directory (polite keys directory), sent as Signature-Agent")
	if demo {
		fs.BoolVar(&ff.demo, "demo", false, "fetch from an embedded farm of loopback sites instead (no internet)")
	}
}

// check reports a flag value the command cannot take.
func (ff *fetcherFlags) check() error {
	if ff.timeout <= 0 || ff.timeout > polite.MaxTimeout {
		return fmt.Errorf("%w: -timeout %v: want more than 0 and at most %v", errUsage, ff.timeout, polite.MaxTimeout)
	}
	if ff.retries < 0 || ff.retries > polite.DefaultRetries {
		return fmt.Errorf("%w: -retries %d: want 0 to %d", errUsage, ff.retries, polite.DefaultRetries)
	}
	if (ff.sign == "") != (ff.agent == "") {
		return fmt.Errorf("%w: -sign and -signature-agent go together: the key, and where sites find its public half", errUsage)
	}
	return nil
}

// config is the Config the flags make. Warnings and refusals are logged
// to errOut as text. A key file that cannot be read, or is open to
// others, is an error.
func (ff *fetcherFlags) config(errOut io.Writer) (polite.Config, error) {
	retries := ff.retries
	if retries == 0 {
		retries = -1 // the Config's zero is its default; negative is none
	}
	var signer polite.RequestSigner
	if ff.sign != "" {
		key, err := botauth.LoadKeyFile(ff.sign)
		if err != nil {
			return polite.Config{}, err
		}
		s, err := botauth.NewSigner(key, ff.agent, botauth.Options{})
		if err != nil {
			return polite.Config{}, fmt.Errorf("%w: -signature-agent: %w", errUsage, err)
		}
		signer = s
	}
	return polite.Config{
		Name: ff.name, Version: ff.version, InfoURL: ff.info, Contact: ff.contact,
		AllowPrivateNetworks: ff.allowPrivate,
		Timeout:              ff.timeout,
		Retries:              retries,
		Logger:               slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Signer:               signer,
	}, nil
}

// prepare is the Config the flags make and the URLs to fetch: with
// -demo, the embedded farm is started (done closes it) and its home pages
// stand in for urls when none are given.
func (ff *fetcherFlags) prepare(errOut io.Writer, urls []string) (cfg polite.Config, _ []string, done func(), err error) {
	if err := ff.check(); err != nil {
		return cfg, nil, func() {}, err
	}
	done = func() {}
	if cfg, err = ff.config(errOut); err != nil {
		return cfg, nil, done, err
	}
	if !ff.demo {
		return cfg, urls, done, nil
	}
	fm, seeds, err := demoFarm(&cfg)
	if err != nil {
		return cfg, nil, done, err
	}
	if len(urls) == 0 {
		urls = seeds
	}
	return cfg, urls, func() { fm.Close() }, nil
}

// demoFarm starts the embedded farm and points cfg at it: the farm's
// names resolve to its loopback addresses, which cfg may then reach. It
// returns the farm's seed URLs.
func demoFarm(cfg *polite.Config) (*politetest.Farm, []string, error) {
	fm := politetest.New(nil) // the real clock: the rests are real
	seeds, err := buildDemo(fm)
	if err != nil {
		fm.Close()
		return nil, nil, err
	}
	cfg.Resolver = fm.Resolver()
	cfg.AllowPrivateNetworks = true // the farm is on loopback
	return fm, seeds, nil
}

// hint adds to err what a user of the command can do about it.
func hint(err error) error {
	if errors.Is(err, polite.ErrPrivateAddress) {
		return fmt.Errorf("%w (-allow-private allows loopback and private addresses, for your own servers)", err)
	}
	return err
}
