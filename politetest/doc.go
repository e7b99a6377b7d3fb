// Package politetest serves a farm of virtual web hosts on loopback for
// testing a crawler's politeness, as net/http/httptest serves one handler
// for testing a client. The tests of polite itself run on it. Each host is a
// [Site]: a name on a 127.x.y.z address of its own, or on one it shares
// with other names as hosts share a server. The address is what
// politeness is kept per: one request in flight at a time, and a rest
// between requests. The farm's [Audit] records every request as the
// servers saw it, and its [Report] says whether the crawler kept to both.
//
// # A test
//
// [Start] makes a farm in one call and closes it when the test ends; its
// Resolver points a polite.Fetcher at it:
//
//	func TestMyCrawlerIsPolite(t *testing.T) {
//		farm := politetest.Start(t, politetest.Hosts(100)...)
//		f, err := polite.New(polite.Config{
//			Resolver:             farm.Resolver(), // the farm's names, not DNS
//			AllowPrivateNetworks: true,            // the farm is on loopback
//		})
//		if err != nil {
//			t.Fatal(err)
//		}
//		defer f.Close()
//		// … Add farm.URL("host1.test", "/") and the others, read the Results …
//		if rep := farm.Audit().Report(politetest.AtLeast(3 * time.Second)); !rep.Polite() {
//			t.Error(rep)
//		}
//	}
//
// Outside a test, in a main or a benchmark's child process, [New](nil)
// makes a farm on the wall clock, [Farm.AddSite] adds each site, and the
// caller closes it. Any other client reaches the farm through
// [Farm.DialContext] (&http.Transport{DialContext: farm.DialContext}).
// When the farm runs in another process, [NewResolver] maps its names.
//
// # Sites and pages
//
// [Hosts](n) gives n plain sites, host1.test to hostN.test, each on its
// own address. A Site's Pages script its answers by path, and Default the
// rest; a [Page] sets the status, headers such as Retry-After, latency, a
// slow, cut, dropped or endless body, a redirect, an ETag that earns a
// 304, a Sequence of answers to one path, or a Gate that holds the answer
// until the test lets it go. [Robots] serves a robots.txt at [RobotsPath],
// and [ReadPage] replays a response saved with curl -i, such as a
// challenge page met in the wild. To put several names on one address,
// take it from [Farm.NewAddr] and give it to each Site. [Farm.MapName]
// makes a name resolve without a site of its own: to somewhere forbidden,
// such as 10.0.0.1, or to a farm address that answers 421.
// [Farm.AddTrapSite] serves traps.test, whose links lead into every
// common crawler trap; a crawl must still fetch each of its [TrapPages].
//
// # The audit
//
// Audit().Report(minRest) checks every address's requests in order, from
// the servers' side:
//
//   - Overlaps counts requests that began while another to the same
//     address was still being answered.
//   - ShortGaps lists each pair of requests whose gap, from the end of one
//     answer to the start of the next, was shorter than minRest wants after
//     the first, with both visits and the address. [AtLeast](3 *
//     time.Second) is polite's 3 s floor; a minRest of the earlier visit can
//     want more, for a host with a Crawl-delay.
//   - Polite is true when there is no overlap and no short gap; MinGap is
//     the smallest gap per address; String sums it up for t.Error.
//
// [Audit.Visits], [Audit.VisitsTo] and [Audit.Count] give the requests
// themselves, headers included, [Audit.Hellos] the TLS handshakes, and
// [Audit.Reset] forgets them. [ReportOn] checks visits a farm in another
// process recorded. [ShortURL] writes a farm URL for a log line.
//
// # TLS
//
// A site with Site.TLS set is served over HTTPS too, at [Farm.HTTPSURL],
// with a [GoodCert] signed by the farm's own CA, or a [WrongNameCert],
// [SelfSignedCert] or [ExpiredCert]. A client trusts the CA through
// [Farm.CertPool]; polite does in polite.Config.RootCAs.
//
// # Time
//
// Scripted waits (Site.Latency, Page.Latency, Page.BodyDelay) sleep on the
// wall clock. A [FakeClock] given to New is advanced by each of them
// instead, so a test of minute-long rules runs in microseconds, and the
// audit's times are that clock's.
//
// # Addresses and scale
//
// The addresses are counted up from 127.20.0.1. Linux routes all of
// 127.0.0.0/8 to the loopback device; where a system configures only
// 127.0.0.1, the farm's addresses must be added to it first. A farm scales
// to about 10,000 addresses in one process: an address costs one listener
// and one serve loop on a single shared http.Server, and after
// [Farm.ShareOneListener] not even those. [Farm.SetIdleTimeout] closes
// idle keep-alive connections, as many servers do.
//
// # Examples
//
// The package's examples (example_test.go, example_more_test.go; go doc
// does not print them) show each part at work: the whole loop with a
// Fetcher, a Site scripted path by path, a Report catching a client that
// does not rest, shared addresses
// (Farm.NewAddr), TLS (Cert), the trap site (Farm.AddTrapSite), a farm of
// 500 hosts with a saved page (Start), and a FakeClock.
package politetest
