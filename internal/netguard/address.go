package netguard

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// ErrPrivateAddress is the guard's refusal of an address a crawler must
// not dial by default (R10.1); the root re-exports it for errors.Is.
var ErrPrivateAddress = errors.New("polite: address not allowed")

// LiteralAddr is netip.ParseAddr for a URL's host name, without the error
// it would make for every name that is not an address: only a name of
// digits and dots, or one with a colon, can be one.
func LiteralAddr(name string) (netip.Addr, bool) {
	if !strings.Contains(name, ":") && strings.Trim(name, "0123456789.") != "" {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(name)
	return a, err == nil
}

// nonPublic lists the ranges a crawler following strangers' links must not
// dial by default (R10.1), beyond what netip.Addr's predicates cover.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use IPv4/IPv6 translation
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
}

// embeddedIPv4 lists the IPv6 ranges whose addresses carry an IPv4
// address that a gateway, relay or tunnel may deliver to: such an address
// is judged by the IPv4 address it embeds (R10.1). IPv4-mapped addresses
// need no entry: Unmap makes them IPv4.
var embeddedIPv4 = []struct {
	prefix netip.Prefix
	at     []v4Field
}{
	{netip.MustParsePrefix("64:ff9b::/96"), []v4Field{{12, false}}},         // NAT64 (RFC 6052): the gateway dials the last 32 bits
	{netip.MustParsePrefix("2002::/16"), []v4Field{{2, false}}},             // 6to4 (RFC 3056): a relay tunnels to bits 16–47
	{netip.MustParsePrefix("::/96"), []v4Field{{12, false}}},                // IPv4-compatible (RFC 4291, deprecated): tunnelled to the last 32 bits
	{netip.MustParsePrefix("2001::/32"), []v4Field{{4, false}, {12, true}}}, // Teredo (RFC 4380): the server in bits 32–63, the client inverted in the last 32
}

// v4Field is where an IPv4 address sits in an IPv6 one: its byte offset,
// and whether it is stored inverted (XOR 0xffffffff).
type v4Field struct {
	off    int
	invert bool
}

// CheckAddress returns an ErrPrivateAddress error for an address the
// fetcher may not dial unless the caller allowed private networks. An
// IPv6 address that embeds an IPv4 address is refused when the embedded
// one would be.
func CheckAddress(a netip.Addr, allowPrivate bool) error {
	a = a.Unmap()
	if !a.IsValid() {
		return fmt.Errorf("%w: invalid address", ErrPrivateAddress)
	}
	if allowPrivate {
		return nil
	}
	if !isPublic(a) {
		return fmt.Errorf("%w: %v is not a public address", ErrPrivateAddress, a)
	}
	if a.Is4() {
		return nil
	}
	b := a.As16()
	for _, e := range embeddedIPv4 {
		if !e.prefix.Contains(a) {
			continue
		}
		for _, f := range e.at {
			v4 := [4]byte(b[f.off : f.off+4])
			if f.invert {
				for i := range v4 {
					v4[i] = ^v4[i]
				}
			}
			if v := netip.AddrFrom4(v4); !isPublic(v) {
				return fmt.Errorf("%w: %v embeds %v, which is not a public address", ErrPrivateAddress, a, v)
			}
		}
	}
	return nil
}

// isPublic reports whether a, unmapped, is in none of the ranges R10.1
// keeps the fetcher from by default.
func isPublic(a netip.Addr) bool {
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}
