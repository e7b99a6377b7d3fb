package pacing

import (
	"math"
	"time"
)

// Bounds of R2.5 and R3.3 that no option can loosen.
const (
	// DefaultMaxBackoff caps the backoff after failures (R2.5).
	DefaultMaxBackoff = 5 * time.Minute
	// MaxBackoffLimit is the highest the cap may be raised to.
	MaxBackoffLimit = 30 * time.Minute
	// DefaultCoolOff is how long a host stopped by a refusal is left alone
	// across runs the first time; each further stop doubles it (R3.3).
	DefaultCoolOff = 6 * time.Hour
	// backoffBase is the backoff after the first failure, before jitter;
	// it doubles with each further failure in a row.
	backoffBase = 10 * time.Second
)

// BackoffAfter is the wait after the n-th failure in a row (n ≥ 1) without
// Retry-After (R2.5): 10 s·2^(n−1), capped, then jittered into its upper
// half, [d/2, d], so that hosts failing together do not return together,
// and the wait still grows with n. u is uniform in [0, 1).
func BackoffAfter(n int, ceiling time.Duration, u float64) time.Duration {
	if n < 1 {
		return 0
	}
	d := ceiling
	if n-1 < 62 {
		if grown := float64(backoffBase) * math.Exp2(float64(n-1)); grown < float64(ceiling) {
			d = time.Duration(grown)
		}
	}
	half := d / 2
	return half + time.Duration(u*float64(d-half))
}

// CoolOffAfter is the cool-off after the n-th stop (R3.3): base, 2×base,
// 4×base…, saturating.
func CoolOffAfter(n int, base time.Duration) time.Duration {
	return Scale(base, 1<<min(max(n-1, 0), 20))
}
