package polite

import (
	"testing"
	"time"
)

// R3.3: a cool-off shorter than the default is raised to it. White-box:
// the settled Config (its growth with each stop is internal/pacing's
// TestCoolOffGrows).
func TestSettleCoolOff(t *testing.T) {
	s, _ := Config{CoolOff: time.Minute, Logger: quiet}.settle()
	if s.coolOff != DefaultCoolOff {
		t.Errorf("a shorter cool-off was accepted: %v", s.coolOff)
	}
}
