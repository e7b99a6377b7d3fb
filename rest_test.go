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
