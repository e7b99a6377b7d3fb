package polite

import (
	"testing"
	"time"
)

// The first principle: no option lowers a floor; a value below is raised.
func TestSettleRaisesFloors(t *testing.T) {
	s, err := Config{MinRest: time.Millisecond, DurationFactor: 1, Timeout: 24 * time.Hour}.settle()
	if err != nil {
		t.Fatal(err)
	}
	if s.pacing.Floor != MinRest || s.pacing.Factor != MinDurationFactor {
		t.Errorf("pacing = %+v, want floor %v factor %d", s.pacing, MinRest, MinDurationFactor)
	}
	if s.timeout != MaxTimeout {
		t.Errorf("timeout = %v, want %v", s.timeout, MaxTimeout)
	}
	s, err = Config{MinRest: 7 * time.Second, DurationFactor: 8}.settle()
	if err != nil {
		t.Fatal(err)
	}
	if s.pacing.Floor != 7*time.Second || s.pacing.Factor != 8 {
		t.Errorf("more polite values were not kept: %+v", s.pacing)
	}
	z, _ := Config{}.settle()
	if z.maxInFlight != DefaultMaxInFlight || z.maxBody != DefaultMaxBodyBytes || z.timeout != DefaultTimeout || z.allowPrivate {
		t.Errorf("zero Config defaults = %+v", z)
	}
}

// The Config cannot lower the backoff cap below 5 min, nor raise it past
// 30 min.
func TestSettleBackoff(t *testing.T) {
	for given, want := range map[time.Duration]time.Duration{
		0:                DefaultMaxBackoff,
		time.Second:      DefaultMaxBackoff,
		10 * time.Minute: 10 * time.Minute,
		time.Hour:        MaxBackoffLimit,
	} {
		s, err := Config{MaxBackoff: given, Logger: quiet}.settle()
		if err != nil || s.maxBackoff != want {
			t.Errorf("MaxBackoff %v: got %v (%v), want %v", given, s.maxBackoff, err, want)
		}
	}
}

// R3.3: a cool-off shorter than the default is raised to it. White-box:
// the settled Config (its growth with each stop is internal/pacing's
// TestCoolOffGrows).
func TestSettleCoolOff(t *testing.T) {
	s, _ := Config{CoolOff: time.Minute, Logger: quiet}.settle()
	if s.coolOff != DefaultCoolOff {
		t.Errorf("a shorter cool-off was accepted: %v", s.coolOff)
	}
}
