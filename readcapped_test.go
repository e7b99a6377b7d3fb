package polite

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
)

// R10.2: a body is read up to the cap whatever length the server
// announced, and what lies past the cap is reported, not read.
func TestReadCapped(t *testing.T) {
	errBroken := errors.New("broken")
	for _, c := range []struct {
		name      string
		r         io.Reader
		max, size int64
		want      string
		truncated bool
		err       error
	}{
		{"announced", strings.NewReader("hello"), 10, 5, "hello", false, nil},
		{"unknown", strings.NewReader("hello"), 10, -1, "hello", false, nil},
		{"announced short", strings.NewReader("hello"), 10, 2, "hello", false, nil},
		{"announced long", strings.NewReader("hello"), 10, 1 << 40, "hello", false, nil},
		{"empty", strings.NewReader(""), 10, 0, "", false, nil},
		{"exactly the cap", strings.NewReader("0123456789"), 10, -1, "0123456789", false, nil},
		{"past the cap", strings.NewReader("0123456789X"), 10, 11, "0123456789", true, nil},
		{"far past the cap", strings.NewReader(strings.Repeat("x", 5000)), 1000, -1, strings.Repeat("x", 1000), true, nil},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader("hello world")), 100, -1, "hello world", false, nil},
		{"last bytes with EOF, one past the cap", iotest.DataErrReader(strings.NewReader("0123456789X")), 10, 11, "0123456789", true, nil},
		{"last bytes with EOF, at the cap", iotest.DataErrReader(strings.NewReader("0123456789")), 10, 10, "0123456789", false, nil},
		{"cap of zero", iotest.DataErrReader(strings.NewReader("X")), 0, -1, "", true, nil},
		{"cap of zero, empty", strings.NewReader(""), 0, 0, "", false, nil},
		{"largest announced length", strings.NewReader("hello"), 10, math.MaxInt64, "hello", false, nil},
		{"largest cap", strings.NewReader("hello"), math.MaxInt64, math.MaxInt64, "hello", false, nil},
		{"largest cap, length unknown", strings.NewReader("hello"), math.MaxInt64, -1, "hello", false, nil},
		{"broken", io.MultiReader(strings.NewReader("par"), iotest.ErrReader(errBroken)), 10, 9, "par", false, errBroken},
	} {
		got, truncated, err := readCapped(c.r, c.max, c.size)
		if !bytes.Equal(got, []byte(c.want)) || truncated != c.truncated || !errors.Is(err, c.err) {
			t.Errorf("%s: %q, %v, %v; want %q, %v, %v", c.name, got, truncated, err, c.want, c.truncated, c.err)
		}
	}
}
