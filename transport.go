package polite

import (
	"net/netip"
	"net/url"
	"strconv"
)

// dialAddr is where a request for u goes: its budget's address, at the
// URL's port (R1.1). The transport (netguard.WithAddr) dials it and no
// other, so the address the budget is keyed on is the one connected to.
func dialAddr(a netip.Addr, u *url.URL) netip.AddrPort {
	port := uint64(80)
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		port, _ = strconv.ParseUint(p, 10, 16) // checked by checkURL; 0 is refused at the dial
	}
	return netip.AddrPortFrom(a, uint16(port))
}
