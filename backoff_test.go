package polite

import (
	"testing"
	"time"
)

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
