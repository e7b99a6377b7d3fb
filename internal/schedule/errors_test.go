package schedule

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
)

// Nested drops the package's name from the text of an error of its own,
// keeps what errors.Is sees, and leaves other errors as they are, so a
// net.Error nested in a url.Error still says it timed out.
func TestNested(t *testing.T) {
	inner := fmt.Errorf("%w: 3 of 9 bytes", ErrFailuresInARow)
	n := Nested(inner)
	if got, want := n.Error(), "failures in a row: 3 of 9 bytes"; got != want {
		t.Errorf("Nested(%q) reads %q, want %q", inner, got, want)
	}
	if !errors.Is(n, ErrFailuresInARow) || !errors.Is(fmt.Errorf("%w: %w", ErrCertificate, n), ErrFailuresInARow) {
		t.Error("errors.Is no longer finds ErrFailuresInARow")
	}
	var timeout net.Error = &net.DNSError{Err: "i/o timeout", IsTimeout: true}
	if got := Nested(timeout); got != timeout {
		t.Errorf("Nested of an error not of the package: %#v, want it unchanged", got)
	}
	if Nested(nil) != nil || Nested(context.Canceled) != context.Canceled {
		t.Error("Nested changed nil or context.Canceled")
	}
	if got := NestedText("polite: refused by a.test"); got != "refused by a.test" {
		t.Errorf("NestedText: %q", got)
	}
}
