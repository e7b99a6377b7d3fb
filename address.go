package polite

import (
	"fmt"
	"net/netip"
	"strings"
)

// literalAddr is netip.ParseAddr for a URL's host name, without the error
// it would make for every name that is not an address: only a name of
// digits and dots, or one with a colon, can be one.
func literalAddr(name string) (netip.Addr, bool) {
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

// checkAddress returns an ErrPrivateAddress error for an address the
// fetcher may not dial unless the caller allowed private networks.
func checkAddress(a netip.Addr, allowPrivate bool) error {
	a = a.Unmap()
	if !a.IsValid() {
		return fmt.Errorf("%w: invalid address", ErrPrivateAddress)
	}
	if allowPrivate {
		return nil
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return fmt.Errorf("%w: %v is not a public address", ErrPrivateAddress, a)
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return fmt.Errorf("%w: %v is not a public address", ErrPrivateAddress, a)
		}
	}
	return nil
}
