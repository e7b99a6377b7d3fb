package polite

import (
	"testing"

	"github.com/politecrawler/polite/internal/urltrap"
)

// R9: the public trap kinds are the detector's, by name: a TrapError's
// Kind converts urltrap's, so a rename there must show here.
func TestTrapKindsAreTheDetectors(t *testing.T) {
	for _, c := range []struct {
		public TrapKind
		inner  urltrap.Kind
	}{
		{TrapCalendar, urltrap.Calendar},
		{TrapSessionID, urltrap.SessionID},
		{TrapRepeatingSegments, urltrap.RepeatingSegments},
		{TrapTooDeep, urltrap.TooDeep},
		{TrapRepeatedContent, urltrap.RepeatedContent},
	} {
		if string(c.public) != string(c.inner) {
			t.Errorf("TrapKind %q, urltrap says %q", c.public, c.inner)
		}
	}
}
