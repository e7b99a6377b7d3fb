package netguard

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"
)

// R10.1: the non-public ranges are refused unless allowed.
func TestCheckAddress(t *testing.T) {
	refused := []string{
		"127.0.0.1", "127.20.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1",
		"169.254.169.254", "0.0.0.0", "224.0.0.1", "100.64.0.1", "255.255.255.255",
		"::1", "::", "fe80::1", "fc00::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
	}
	for _, s := range refused {
		a := netip.MustParseAddr(s)
		if err := CheckAddress(a, false); !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("%s: %v, want ErrPrivateAddress", s, err)
		}
		if err := CheckAddress(a, true); err != nil {
			t.Errorf("%s with AllowPrivateNetworks: %v", s, err)
		}
	}
	for _, s := range []string{"93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"} {
		if err := CheckAddress(netip.MustParseAddr(s), false); err != nil {
			t.Errorf("%s: %v, want allowed", s, err)
		}
	}
}

// R10.1: an IPv6 address that embeds an IPv4 address is judged by the
// IPv4 address it embeds: each range, with a non-public and a public one.
func TestCheckAddressEmbeddedIPv4(t *testing.T) {
	cases := []struct {
		name, addr string
		refused    bool
	}{
		{"NAT64 of 10.0.0.1", "64:ff9b::a00:1", true},
		{"NAT64 of 127.0.0.1", "64:ff9b::127.0.0.1", true},
		{"NAT64 of 169.254.169.254", "64:ff9b::a9fe:a9fe", true},
		{"NAT64 of 1.1.1.1", "64:ff9b::101:101", false},
		{"6to4 of 10.0.0.1", "2002:a00:1::", true},
		{"6to4 of 192.168.1.1, host part set", "2002:c0a8:101:5::1", true},
		{"6to4 of 1.1.1.1", "2002:101:101::1", false},
		{"IPv4-compatible 10.0.0.1", "::a00:1", true},
		{"IPv4-compatible 100.64.0.1", "::100.64.0.1", true},
		{"IPv4-compatible 1.1.1.1", "::101:101", false},
		// Teredo: 2001:0:server:flags:port:^client.
		{"Teredo, private server", "2001:0:a00:1:8000:63bf:fefe:fefe", true},
		{"Teredo, private client 10.0.0.1", "2001:0:4136:e378:8000:63bf:f5ff:fffe", true},
		{"Teredo, loopback client", "2001:0:4136:e378:8000:63bf:80ff:fffe", true},
		{"Teredo, documentation client 192.0.2.45 (RFC 4380's example)", "2001:0:4136:e378:8000:63bf:3fff:fdd2", true},
		{"Teredo, public server and client 1.1.1.1", "2001:0:4136:e378:8000:63bf:fefe:fefe", false},
	}
	for _, c := range cases {
		a := netip.MustParseAddr(c.addr)
		err := CheckAddress(a, false)
		if c.refused != errors.Is(err, ErrPrivateAddress) {
			t.Errorf("%s (%s): %v, want refused %v", c.name, c.addr, err, c.refused)
		}
		if err := CheckAddress(a, true); err != nil {
			t.Errorf("%s (%s) with AllowPrivateNetworks: %v", c.name, c.addr, err)
		}
	}
}

// embed4 writes v into a copy of base at byte offset off, inverted when
// invert is set: the tests' own construction, apart from address.go's.
func embed4(base string, off int, v netip.Addr, invert bool) netip.Addr {
	b := netip.MustParseAddr(base).As16()
	v4 := v.As4()
	for i, x := range v4 {
		if invert {
			x = ^x
		}
		b[off+i] = x
	}
	return netip.AddrFrom16(b)
}

// FuzzEmbeddedIPv4 (R10.1): for any IPv4 address, every embedding of it
// gets the verdict the address itself gets.
func FuzzEmbeddedIPv4(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "1.1.1.1", "127.0.0.1", "0.0.0.0", "0.0.0.1",
		"192.0.2.45", "100.64.0.1", "255.255.255.255", "93.184.216.34"} {
		b := netip.MustParseAddr(s).As4()
		f.Add(binary.BigEndian.Uint32(b[:]))
	}
	public := netip.MustParseAddr("65.54.227.120")
	f.Fuzz(func(t *testing.T, raw uint32) {
		v := netip.AddrFrom4([4]byte(binary.BigEndian.AppendUint32(nil, raw)))
		want := CheckAddress(v, false) == nil
		for _, a := range []netip.Addr{
			embed4("64:ff9b::", 12, v, false), // NAT64
			embed4("2002::1", 2, v, false),    // 6to4
			embed4("::", 12, v, false),        // IPv4-compatible
			embed4(embed4("2001::8000:63bf:0:0", 4, public, false).String(), 12, v, true), // Teredo client
			embed4(embed4("2001::8000:63bf:0:0", 12, public, true).String(), 4, v, false), // Teredo server
		} {
			if got := CheckAddress(a, false) == nil; got != want {
				t.Errorf("%v embeds %v: allowed %v, but %v itself: allowed %v", a, v, got, v, want)
			}
		}
	})
}

// LiteralAddr answers as netip.ParseAddr does, for every host name.
func FuzzLiteralAddr(f *testing.F) {
	for _, s := range []string{"", "example.com", "b00001.test", "127.0.0.1", "1.2.3", "1.2.3.4.5",
		"::1", "::ffff:1.2.3.4", "fe80::1%eth0", "%eth0", "1example.com", "0x7f.0.0.1", "01.2.3.4",
		"1.2.3.4%x", "[::1]", "...", "2001:db8::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		want, err := netip.ParseAddr(name)
		got, ok := LiteralAddr(name)
		if ok != (err == nil) || got != want {
			t.Fatalf("LiteralAddr(%q) = %v, %v; netip.ParseAddr: %v, %v", name, got, ok, want, err)
		}
	})
}
