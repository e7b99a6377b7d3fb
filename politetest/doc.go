// Package politetest serves a farm of virtual web hosts on loopback for
// testing a crawler's politeness, as net/http/httptest serves one handler
// for testing a client. Each host is a Site: a name on a 127.x.y.z address
// of its own, or on one it shares with other names as hosts share a
// server. The address is what politeness is kept per: one request in
// flight at a time, and a rest between requests. A Site's Pages script its
// answers by path: statuses, headers such as Retry-After and ETag,
// robots.txt, latency, slow, cut or endless bodies, redirects, challenge
// pages, a sequence of answers to one path; AddTrapSite adds a site of
// crawler traps. The farm's Resolver maps every name to its address, so a
// crawler is pointed at the farm by its resolver alone (a plain net/http
// client by the farm's DialContext). Its Audit records
// every request as the server saw it, and the Audit's Report counts
// overlaps (two requests at once on one address) and short gaps (a rest
// shorter than wanted).
//
// In a test of a crawler built on polite:
//
//	farm := politetest.Start(t, politetest.Hosts(100)...)
//	f, err := polite.New(polite.Config{Resolver: farm.Resolver(), AllowPrivateNetworks: true})
//	// … Add farm.URL("host1.test", "/") and the others, read the Results …
//	if rep := farm.Audit().Report(politetest.AtLeast(3 * time.Second)); !rep.Polite() {
//		t.Error(rep)
//	}
//
// The addresses are counted up from 127.20.0.1. Linux routes all of
// 127.0.0.0/8 to the loopback device; where a system configures only
// 127.0.0.1, the farm's addresses must be added to it first.
//
// A farm scales to about 10,000 addresses in one process: an address costs
// one listener and one serve loop on a single shared http.Server, and
// after ShareOneListener not even those. A site can be served over HTTPS
// too (Site.TLS), with a good certificate from the farm's own CA
// (CertPool) or a bad one of several kinds. A FakeClock given to New makes
// every scripted wait advance the clock instead of sleeping.
package politetest
