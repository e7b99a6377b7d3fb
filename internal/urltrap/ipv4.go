package urltrap

import (
	"fmt"
	"net/netip"
	"strings"
)

// A host that ends in a number is an IPv4 address to the URL Standard
// (§3.5, the IPv4 parser), as browsers read it: one to four parts, each
// decimal, octal with a leading 0 or hex after 0x; the last fills the
// bytes the others leave. "2130706433", "0x7f.1" and "0177.0.0.01" are all
// 127.0.0.1 to a browser, so a link written so names that address, and is
// judged and budgeted as it. No Go library of the field does this (net/url
// keeps the host as written, and net/netip reads dotted decimal alone), so
// it is written here, step for step with the Standard.

// endsInNumber reports whether host's last label is a number: all
// decimal digits, or a number the IPv4 parser reads (the Standard's
// "ends in a number checker"). host has no trailing dot.
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := ipv4Number(last)
	return ok
}

// parseIPv4 reads a host that ends in a number as the Standard's IPv4
// parser does, or fails as it fails: then the URL is no URL a browser
// would request.
func parseIPv4(host string) (netip.Addr, error) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, fmt.Errorf("%w: host %q ends in a number but has more than four parts", ErrMalformed, clip(host))
	}
	var n [4]uint64
	for i, p := range parts {
		v, ok := ipv4Number(p)
		if !ok {
			return netip.Addr{}, fmt.Errorf("%w: host %q ends in a number but %q is none", ErrMalformed, clip(host), clip(p))
		}
		if i < len(parts)-1 && v > 255 {
			return netip.Addr{}, fmt.Errorf("%w: IPv4 host %q: part %q over 255", ErrMalformed, clip(host), clip(p))
		}
		n[i] = v
	}
	last := n[len(parts)-1]
	if room := uint(8 * (5 - len(parts))); last >= 1<<room {
		return netip.Addr{}, fmt.Errorf("%w: IPv4 host %q: last part over %d bits", ErrMalformed, clip(host), room)
	}
	a := uint32(last)
	for i := range len(parts) - 1 {
		a |= uint32(n[i]) << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}), nil
}

// ipv4Number reads one part: decimal, octal after a leading 0, hex after
// 0x or 0X; "0x" alone is 0. ok is false for an empty part, a digit out of
// its radix, or a value over 32 bits (no address holds it).
func ipv4Number(p string) (v uint64, ok bool) {
	if p == "" {
		return 0, false
	}
	radix := uint64(10)
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		radix, p = 16, p[2:]
	case len(p) >= 2 && p[0] == '0':
		radix, p = 8, p[1:]
	}
	for i := 0; i < len(p); i++ {
		d := uint64(unhex(p[i])) // -1 becomes huge: out of every radix
		if d >= radix {
			return 0, false
		}
		if v = v*radix + d; v > 1<<32 {
			return 0, false
		}
	}
	return v, true
}
