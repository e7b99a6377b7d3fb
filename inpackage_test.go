package polite

import (
	"log/slog"
	"time"

	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/politetest"
)

// This file holds what package polite's own tests and benchmarks share;
// the farm tests are package polite_test's, on farmrig_test.go.

// quiet is a logger that drops everything, for tests that do not read logs.
var quiet = slog.New(slog.DiscardHandler)

// restRule is the audit's view of R2.1–R2.2: after a visit of length d the
// address must rest at least max(floor, 5d capped at 30 s). The server sees
// a visit no longer than the client does, so this bound is safe.
func restRule(floor time.Duration) func(politetest.Visit) time.Duration {
	return func(prev politetest.Visit) time.Duration {
		return restAfter(pacing.Policy{Floor: floor, Factor: MinDurationFactor}, pacing.Outcome{Duration: prev.End.Sub(prev.Start)}).Wait
	}
}
