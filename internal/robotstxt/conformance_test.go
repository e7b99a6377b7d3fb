package robotstxt

import (
	"strings"
	"testing"
)

// conformanceCase is one question put to a robots.txt: may agent fetch url? Each
// names where the expected answer comes from and the rule it checks.
type conformanceCase struct {
	source string // where the answer comes from
	rule   string // the rule checked (SPEC rule id and what it says)
	robots string
	agent  string
	url    string
	want   bool // allowed
}

// Files used by several cases.
const (
	// Seed 002's example file, with its five-row table of paths.
	seed002 = "User-agent: *\n" +
		"Disallow: /private/\n" +
		"Disallow: /confidential/\n" +
		"Disallow: /other/\n" +
		"Allow: /other/public/\n" +
		"\n" +
		"User-agent: FavoredCrawler\n" +
		"Disallow:\n" +
		"\n" +
		"Sitemap: http://mysite.com/sitemap.xml.gz\n"

	// RFC 9309 section 5.1, "Simple Example".
	rfcSimple = "User-Agent: *\n" +
		"Disallow: *.gif$\n" +
		"Disallow: /example/\n" +
		"Allow: /publications/\n" +
		"\n" +
		"User-Agent: foobot\n" +
		"Disallow:/\n" +
		"Allow:/example/page.html\n" +
		"Allow:/example/allowed.gif\n" +
		"\n" +
		"User-Agent: barbot\n" +
		"User-Agent: bazbot\n" +
		"Disallow: /example/page.html\n" +
		"\n" +
		"User-Agent: quxbot\n"

	// Google's robots_test.cc, ID_LineSyntax_Groups.
	googleGroups = "allow: /foo/bar/\n" +
		"\n" +
		"user-agent: FooBot\n" +
		"disallow: /\n" +
		"allow: /x/\n" +
		"user-agent: BarBot\n" +
		"disallow: /\n" +
		"allow: /y/\n" +
		"\n" +
		"\n" +
		"allow: /w/\n" +
		"user-agent: BazBot\n" +
		"\n" +
		"user-agent: FooBot\n" +
		"allow: /z/\n" +
		"disallow: /\n"

	googleIndex = "User-Agent: *\n" +
		"Allow: /allowed-slash/index.html\n" +
		"Disallow: /\n"
)

// conformance is the conformance table: seed 002's table, RFC 9309's
// examples and MUSTs, a case for each of the twelve faults of temoto/robotstxt
// v1.1.2 listed in the project's robots notes (each a case it answers
// wrongly and we must answer rightly), and Google's reference tests for the
// behaviour we share with Google's parser.
var conformance = []conformanceCase{
	// Seed 002: the textbook's table, row by row, and its FavoredCrawler.
	{"seed 002 table row 1", "R5.1 no rule matches: allowed", seed002, "PoliteCrawler", "/index.html", true},
	{"seed 002 table row 2", "R5.1 Disallow: /private/ matches", seed002, "PoliteCrawler", "/private/a.html", false},
	{"seed 002 table row 3", "R5.1 Disallow: /other/ matches", seed002, "PoliteCrawler", "/other/b.html", false},
	{"seed 002 table row 4", "R5.1 longest match: Allow: /other/public/ (14) beats Disallow: /other/ (7)", seed002, "PoliteCrawler", "/other/public/c.html", true},
	{"seed 002 table row 5", "R5.1 patterns are prefixes as characters: /other/ does not match /otherwise.html", seed002, "PoliteCrawler", "/otherwise.html", true},
	{"seed 002 FavoredCrawler", "R5.1 own group, empty Disallow forbids nothing", seed002, "FavoredCrawler", "/private/a.html", true},
	{"seed 002 FavoredCrawler", "R5.1 own group never combined with *", seed002, "favoredcrawler", "/other/b.html", true},
	{"seed 002 Python pitfall 1", "R5.1 longest match, not first match", "User-agent: *\nAllow: /a/\nDisallow: /a/b/\n", "PoliteCrawler", "/a/b/x", false},
	{"seed 002 Python pitfall 2", "R5.1 * wildcard", "User-agent: *\nDisallow: /*.pdf\n", "PoliteCrawler", "/docs/report.pdf", false},
	{"seed 002 Python pitfall 3", "R5.1 groups naming the same agent merge", "User-agent: PoliteCrawler\nDisallow: /a\n\nUser-agent: *\nDisallow: /c\n\nUser-agent: PoliteCrawler\nDisallow: /b\n", "PoliteCrawler", "/b", false},

	// RFC 9309 section 5.1, the simple example.
	{"RFC 9309 5.1", "R5.1 * group: Allow /publications/", rfcSimple, "PoliteCrawler", "/publications/paper.html", true},
	{"RFC 9309 5.1", "R5.1 * group: Disallow /example/", rfcSimple, "PoliteCrawler", "/example/page.html", false},
	{"RFC 9309 5.1", "R5.1 *.gif$ matches any .gif, slashes included", rfcSimple, "PoliteCrawler", "/images/a/b.gif", false},
	{"RFC 9309 5.1", "R5.1 $ anchors: .gif with a query is not at the end", rfcSimple, "PoliteCrawler", "/images/b.gif?size=2", true},
	{"RFC 9309 5.1", "R5.1 longest match: /publications/ (14) beats *.gif$ (6)", rfcSimple, "PoliteCrawler", "/publications/fig.gif", true},
	{"RFC 9309 5.1", "R5.1 foobot: Allow /example/page.html beats Disallow /", rfcSimple, "foobot", "/example/page.html", true},
	{"RFC 9309 5.1", "R5.1 foobot: Allow /example/allowed.gif", rfcSimple, "FooBot", "/example/allowed.gif", true},
	{"RFC 9309 5.1", "R5.1 foobot: Disallow:/ without a space", rfcSimple, "foobot", "/", false},
	{"RFC 9309 5.1", "R5.1 foobot: everything else disallowed", rfcSimple, "foobot", "/example/other.html", false},
	{"RFC 9309 5.1", "R5.1 barbot shares a group with bazbot", rfcSimple, "barbot", "/example/page.html", false},
	{"RFC 9309 5.1", "R5.1 bazbot shares a group with barbot", rfcSimple, "bazbot", "/example/page.html", false},
	{"RFC 9309 5.1", "R5.1 bazbot's own group does not take *'s rules", rfcSimple, "bazbot", "/example/other.html", true},
	{"RFC 9309 5.1", "R5.1 quxbot: empty group at the end allows all", rfcSimple, "quxbot", "/example/page.html", true},

	// RFC 9309 section 5.2, longest match.
	{"RFC 9309 5.2", "R5.1 longest match wins", "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n", "foobot", "/example/page/disallowed.gif", false},
	{"RFC 9309 5.2", "R5.1 shorter Allow where the longer rule does not match", "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n", "foobot", "/example/page/allowed.gif", true},

	// RFC 9309 section 2.2.1, the user-agent line.
	{"RFC 9309 2.2.1 merge example", "R5.1 same agent in two groups: rules merged", "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n", "ExampleBot", "/baz", false},
	{"RFC 9309 2.2.1 merge example", "R5.1 same agent in two groups: first group's rules kept", "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n", "ExampleBot", "/foo", false},
	{"RFC 9309 2.2.1 * example", "R5.1 no own group: obey *", "user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n", "ExampleBot", "/foo", false},
	{"RFC 9309 2.2.1 * example", "R5.1 no own group: another agent's group does not apply", "user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n", "ExampleBot", "/baz", true},
	{"RFC 9309 2.2.1", "R5.1 no own group and no *: no rules apply", "user-agent: BazBot\ndisallow: /\n", "ExampleBot", "/x", true},
	{"RFC 9309 2.2.1", "R5.1 agent matched case-insensitively", "user-agent: EXAMPLEBOT\ndisallow: /\n", "examplebot", "/x", false},

	// RFC 9309 section 2.2.2, the Allow and Disallow lines.
	{"RFC 9309 2.2.2", "R5.1 paths are case-sensitive", "User-agent: *\nDisallow: /X/\n", "PoliteCrawler", "/x/y", true},
	{"RFC 9309 2.2.2", "R5.1 matching starts at the first octet of the path", "User-agent: *\nDisallow: /b\n", "PoliteCrawler", "/a/b", true},
	{"RFC 9309 2.2.2", "R5.1 Allow wins a tie", "User-agent: *\nDisallow: /a\nAllow: /a\n", "PoliteCrawler", "/a", true},
	{"RFC 9309 2.2.2", "R5.1 empty Disallow matches nothing", "User-agent: *\nDisallow:\n", "PoliteCrawler", "/x", true},
	{"RFC 9309 2.2.2", "R5.1 rules before the first user-agent are ignored", "Disallow: /\nUser-agent: *\nDisallow: /x\n", "PoliteCrawler", "/y", true},
	{"RFC 9309 2.2.2", "R5.1 /robots.txt implicitly allowed", "User-agent: *\nDisallow: /\n", "PoliteCrawler", "/robots.txt", true},
	{"RFC 9309 2.2.2", "R5.1 the path includes the query", "User-agent: *\nDisallow: /search?q=\n", "PoliteCrawler", "/search?q=robots", false},
	{"RFC 9309 2.2.2 table row 1", "R5.1 percent-encoding: plain query", "User-agent: *\nDisallow: /foo/bar?baz=quz\n", "PoliteCrawler", "/foo/bar?baz=quz", false},
	{"RFC 9309 2.2.2 table row 2", "R5.1 percent-encoding: encoded reserved characters match their encoded form", "User-agent: *\nDisallow: /foo/bar?baz=https%3A%2F%2Ffoo.bar\n", "PoliteCrawler", "/foo/bar?baz=https%3a%2f%2ffoo.bar", false},
	{"RFC 9309 2.2.2 table row 3", "R5.1 percent-encoding: non-ASCII in the rule is encoded", "User-agent: *\nDisallow: /foo/bar/ツ\n", "PoliteCrawler", "/foo/bar/%E3%83%84", false},
	{"RFC 9309 2.2.2 table row 4", "R5.1 percent-encoding: encoded rule, encoded URL", "User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", "PoliteCrawler", "/foo/bar/%E3%83%84", false},
	{"RFC 9309 2.2.2 table row 4", "R5.1 percent-encoding: non-ASCII in the URL is encoded too", "User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", "PoliteCrawler", "/foo/bar/ツ", false},
	{"RFC 9309 2.2.2 table row 5", "R5.1 percent-encoding: encoded unreserved characters are decoded", "User-agent: *\nDisallow: /foo/bar/%62%61%7A\n", "PoliteCrawler", "/foo/bar/baz", false},
	{"RFC 9309 2.2.2 table row 5", "R5.1 percent-encoding: decoded on the URL side too", "User-agent: *\nDisallow: /foo/bar/baz\n", "PoliteCrawler", "/foo/bar/%62%61%7a", false},
	{"RFC 9309 2.2.2", "R5.1 an encoded reserved character is not the character", "User-agent: *\nDisallow: /a%2Fb\n", "PoliteCrawler", "/a/b", true},

	// RFC 9309 section 2.2.3, special characters.
	{"RFC 9309 2.2.3", "R5.1 # starts a comment", "User-agent: *\nallow: / # comment in line\n# comment on its own line\nDisallow: /x\n", "PoliteCrawler", "/x", false},
	{"RFC 9309 2.2.3", "R5.1 $ ends the pattern", "User-agent: *\nDisallow: /\nallow: /this/path/exactly$\n", "PoliteCrawler", "/this/path/exactly", true},
	{"RFC 9309 2.2.3", "R5.1 $ ends the pattern: longer path not matched", "User-agent: *\nDisallow: /\nallow: /this/path/exactly$\n", "PoliteCrawler", "/this/path/exactly/not", false},
	{"RFC 9309 2.2.3", "R5.1 * is any run of characters", "User-agent: *\nDisallow: /\nallow: /this/*/exactly\n", "PoliteCrawler", "/this/a/b/exactly", true},
	{"RFC 9309 2.2.3", "R5.1 %2A in a pattern is a literal *", "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "PoliteCrawler", "https://www.example.com/path/file-with-a-*.html", false},
	{"RFC 9309 2.2.3", "R5.1 %2A in a pattern is not a wildcard", "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "PoliteCrawler", "https://www.example.com/path/file-with-a-x.html", true},
	{"RFC 9309 2.2.3", "R5.1 %24 in a pattern is a literal $", "User-agent: *\nDisallow: /path/foo-%24\n", "PoliteCrawler", "https://www.example.com/path/foo-$", false},
	{"RFC 9309 2.2.3", "R5.1 $ inside a pattern is a literal $", "User-agent: *\nDisallow: /a$b\n", "PoliteCrawler", "/a$b/c", false},

	// RFC 9309 section 2.2.4, other records.
	{"RFC 9309 2.2.4", "R5.1 a Sitemap line does not end a group", "User-agent: SlowBot\nSitemap: https://example.com/s.xml\nUser-agent: PoliteCrawler\nDisallow: /\n", "SlowBot", "/x", false},
	{"RFC 9309 2.2.4", "R5.1 an unknown line does not end a group", "User-agent: SlowBot\nContent-Signal: search=yes\nUser-agent: PoliteCrawler\nDisallow: /\n", "SlowBot", "/x", false},

	// The twelve faults of temoto/robotstxt v1.1.2 (robots notes): each a case
	// temoto answers wrongly.
	{"temoto fault 1", "R5.1 a rule before the first User-agent does not reject the file", "Disallow: /x\nUser-agent: *\nDisallow: /private/\n", "PoliteCrawler", "/private/a", false},
	{"temoto fault 1", "R5.1 a bad Crawl-delay does not reject the file", "User-agent: *\nCrawl-delay: fast\nDisallow: /private/\n", "PoliteCrawler", "/private/a", false},
	{"temoto fault 1", "R5.1 a Crawl-delay before the first User-agent does not reject the file", "Crawl-delay: 10\nUser-agent: *\nDisallow: /private/\n", "PoliteCrawler", "/private/a", false},
	{"temoto fault 2", "R5.1 agent is the product token, not a prefix of it", "User-agent: Polite\nDisallow: /\n", "PoliteCrawler", "/x", true},
	{"temoto fault 2", "R5.1 a prefix group does not displace *", "User-agent: *\nDisallow: /\n\nUser-agent: Polite\nAllow: /\n", "PoliteCrawler", "/x", false},
	{"RFC 9309 2.2.1", "R5.1 a longer token is another agent", "User-agent: PoliteCrawlerPro\nDisallow: /\n", "PoliteCrawler", "/x", true},
	{"temoto fault 3", "R5.1 an empty group is still the agent's group", "User-agent: *\nDisallow: /\n\nUser-agent: PoliteCrawler\n", "PoliteCrawler", "/x", true},
	{"RFC 9309 2.2.2 (control for temoto fault 3)", "R5.1 a group with only an empty Disallow is the agent's group", "User-agent: PoliteCrawler\nDisallow:\n\nUser-agent: *\nDisallow: /\n", "PoliteCrawler", "/x", true},
	{"temoto fault 4", "R5.1 Crawl-delay does not split a run of User-agent lines", "User-agent: SlowBot\nCrawl-delay: 5\nUser-agent: PoliteCrawler\nDisallow: /x\n", "SlowBot", "/x", false},
	{"temoto fault 5", "R5.1 # starts a comment inside a value", "User-agent: *\nDisallow: /private#no-bots\n", "PoliteCrawler", "/private/a", false},
	{"temoto fault 5", "R5.1 white space before the colon", "User-agent: *\nDisallow : /x\n", "PoliteCrawler", "/x", false},
	{"temoto fault 5", "R5.1 a colon-less line of three words is not a rule", "User-agent: *\nDisallow /a /b\n", "PoliteCrawler", "/a", true},
	{"temoto fault 5", "R5.1 a value may hold white space", "User-agent: *\nDisallow: /my file\n", "PoliteCrawler", "/my", true},
	{"RFC 9309 2.2.2 (control for temoto fault 5)", "R5.1 a value with white space matches its encoded form", "User-agent: *\nDisallow: /my file\n", "PoliteCrawler", "/my%20file", false},
	{"temoto fault 6", "R5.1 Disallow: * matches every path", "User-agent: *\nDisallow: *\n", "PoliteCrawler", "/anything", false},
	{"temoto fault 6", "R5.1 a pattern without a leading / matches no path", "User-agent: *\nDisallow: private\n", "PoliteCrawler", "/private", true},
	{"temoto fault 6", "R5.1 a trailing * counts in the pattern's length", "User-agent: *\nDisallow: /a\nAllow: /a*\n", "PoliteCrawler", "/a/x", true},
	{"temoto fault 7", "R5.1 Allow wins a tie whatever the order", "User-agent: *\nDisallow: /page\nAllow: /page\n", "PoliteCrawler", "/page", true},
	{"temoto fault 7", "R5.1 Allow wins a tie between different patterns", "User-agent: *\nDisallow: /a*c\nAllow: /*bc\n", "PoliteCrawler", "/abc", true},
	{"temoto fault 8", "R5.1 wildcard rules ranked by pattern length, Allow on a tie", "User-agent: *\nAllow: /page.\nDisallow: /*.htm\n", "PoliteCrawler", "/page.htm", true},
	{"temoto fault 8", "R5.1 wildcard rules ranked by pattern length", "User-agent: *\nDisallow: /*.php\nAllow: /xx.php\n", "PoliteCrawler", "/xx.php", true},
	{"temoto fault 9", "R5.1 wildcard patterns anchored at the path start", "User-agent: *\nDisallow: /a*b\n", "PoliteCrawler", "/x/a/b", true},
	{"RFC 9309 2.2.3 (control for temoto fault 9)", "R5.1 wildcard pattern at the path start matches", "User-agent: *\nDisallow: /a*b\n", "PoliteCrawler", "/a/b", false},
	{"temoto fault 10", "R5.1 encoded unreserved character in the rule", "User-agent: *\nDisallow: /%7Efoo\n", "PoliteCrawler", "/~foo/x", false},
	{"temoto fault 10", "R5.1 encoded unreserved character in the URL", "User-agent: *\nDisallow: /~foo\n", "PoliteCrawler", "/%7efoo/x", false},
	{"temoto fault 10", "R5.1 non-ASCII rule against its encoded URL", "User-agent: *\nDisallow: /café\n", "PoliteCrawler", "/caf%c3%a9/menu", false},
	{"temoto fault 10", "R5.1 hex digits compared without case", "User-agent: *\nDisallow: /a%2fb\n", "PoliteCrawler", "/a%2Fb", false},
	{"temoto fault 11", "R5.1 /robots.txt allowed under Disallow: /", "User-agent: *\nDisallow: /\n", "PoliteCrawler", "https://example.com/robots.txt", true},
	{"RFC 9309 2.2.2 (control for temoto fault 11)", "R5.1 only /robots.txt itself", "User-agent: *\nDisallow: /\n", "PoliteCrawler", "/robots.txt/x", false},
	{"Google robots.cc", "Google typo useragent (temoto knows this one)", "useragent: PoliteCrawler\nDisallow: /\n", "PoliteCrawler", "/x", false},
	{"temoto fault 12", "Google typo user agent", "user agent: PoliteCrawler\nDisallow: /\n", "PoliteCrawler", "/x", false},
	{"temoto fault 12", "Google typo disalow", "User-agent: *\ndisalow: /x\n", "PoliteCrawler", "/x", false},
	{"temoto fault 12", "Google typo dissallow", "User-agent: *\ndissallow: /x\n", "PoliteCrawler", "/x", false},
	{"temoto fault 12", "Google typo dissalow", "User-agent: *\nDISSALOW: /x\n", "PoliteCrawler", "/x", false},
	{"temoto fault 12", "Google typo diasllow", "User-agent: *\ndiasllow: /x\n", "PoliteCrawler", "/x", false},
	{"temoto fault 12", "Google typo disallaw", "User-agent: *\ndisallaw: /x\n", "PoliteCrawler", "/x", false},
	{"temoto fault 12", "Google: a key that begins with a known one", "User-agent: *\nDisallowed: /x\n", "PoliteCrawler", "/x", false},
	{"temoto fault 12", "Google /index.html: its directory allowed", googleIndex, "PoliteCrawler", "/allowed-slash/", true},
	{"Google GoogleOnly_IndexHTMLisDirectory", "Google /index.html: the page itself allowed", googleIndex, "PoliteCrawler", "/allowed-slash/index.html", true},
	{"Google GoogleOnly_IndexHTMLisDirectory", "Google /index.html: not other pages of the directory", googleIndex, "PoliteCrawler", "/allowed-slash/other", false},
	{"Google GoogleOnly_IndexHTMLisDirectory", "Google /index.html: not index.htm", googleIndex, "PoliteCrawler", "/allowed-slash/index.htm", false},
	{"temoto fault 12", "Google: agent value cut to its token", "User-agent: PoliteCrawler/1.0\nDisallow: /\n", "PoliteCrawler", "/x", false},
	{"Google GoogleOnly_AcceptUserAgentUpToFirstSpace", "Google: agent value cut at white space", "User-agent: PoliteCrawler (+https://example.com)\nDisallow: /\n", "PoliteCrawler", "/x", false},
	{"Google robots.cc HandleUserAgent", "Google: * then more is still *", "User-agent: * everyone\nDisallow: /\n", "PoliteCrawler", "/x", false},
	{"Google ID_LineSyntax_Line", "Google: colon-less known key", "user-agent FooBot\ndisallow /\n", "FooBot", "/x/y", false},
	{"Google ID_UTF8ByteOrderMarkIsSkipped", "Google: byte order mark skipped", "\ufeffUser-agent: *\nDisallow: /\n", "PoliteCrawler", "/x", false},
	{"temoto fault 12", "Google: partial byte order mark skipped", "\xef\xbbUser-agent: *\nDisallow: /\n", "PoliteCrawler", "/x", false},

	{"temoto fault 12", "Google: a line is cut after 16,663 bytes (GoogleOnly_LineTooLong)", "User-agent: *\nDisallow: /x/" + strings.Repeat("a", 16650) + "/qux\n", "PoliteCrawler", "/x/" + strings.Repeat("a", 16650) + "/fux", false},

	// Google's robots_test.cc, for what we share with Google's parser.
	{"Google ID_LineSyntax_Line", "R5.1 unknown keys are not rules", "foo: FooBot\nbar: /\n", "FooBot", "http://foo.bar/x/y", true},
	{"Google ID_LineSyntax_Line", "R5.1 keys with a colon", "user-agent: FooBot\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", false},
	{"Google ID_LineSyntax_Groups", "R5.1 own group's Allow", googleGroups, "FooBot", "http://foo.bar/x/b", true},
	{"Google ID_LineSyntax_Groups", "R5.1 merged group's Allow", googleGroups, "FooBot", "http://foo.bar/z/d", true},
	{"Google ID_LineSyntax_Groups", "R5.1 another group's Allow does not apply", googleGroups, "FooBot", "http://foo.bar/y/c", false},
	{"Google ID_LineSyntax_Groups", "R5.1 BarBot's Allow", googleGroups, "BarBot", "http://foo.bar/y/c", true},
	{"Google ID_LineSyntax_Groups", "R5.1 a rule between groups belongs to the group before it", googleGroups, "BarBot", "http://foo.bar/w/a", true},
	{"Google ID_LineSyntax_Groups", "R5.1 BarBot: FooBot's Allow does not apply", googleGroups, "BarBot", "http://foo.bar/z/d", false},
	{"Google ID_LineSyntax_Groups", "R5.1 BazBot shares FooBot's last group", googleGroups, "BazBot", "http://foo.bar/z/d", true},
	{"Google ID_LineSyntax_Groups", "R5.1 rule before any group ignored (FooBot)", googleGroups, "FooBot", "http://foo.bar/foo/bar/", false},
	{"Google ID_LineSyntax_Groups", "R5.1 rule before any group ignored (BazBot)", googleGroups, "BazBot", "http://foo.bar/foo/bar/", false},
	{"Google ID_REPLineNamesCaseInsensitive", "R5.1 keys in upper case", "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n", "FooBot", "http://foo.bar/a/b", false},
	{"Google ID_REPLineNamesCaseInsensitive", "R5.1 keys in mixed case", "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n", "FooBot", "http://foo.bar/x/y", true},
	{"Google ID_UserAgentValueCaseInsensitive", "R5.1 agent value case-insensitive", "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n", "foo", "http://foo.bar/a/b", false},
	{"Google GoogleOnly_AcceptUserAgentUpToFirstSpace", "Google: agent value up to the first space", "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n", "Foo", "http://foo.bar/x/y", true},
	{"Google ID_GlobalGroups_Secondary", "R5.1 empty file allows", "", "FooBot", "http://foo.bar/x/y", true},
	{"Google ID_GlobalGroups_Secondary", "R5.1 own group over *", "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", false},
	{"Google ID_GlobalGroups_Secondary", "R5.1 * for others", "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n", "BarBot", "http://foo.bar/x/y", true},
	{"Google ID_GlobalGroups_Secondary", "R5.1 only other agents' groups: no rules", "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n", "QuxBot", "http://foo.bar/x/y", true},
	{"Google ID_LongestMatch", "R5.1 longer Disallow wins", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", "FooBot", "http://foo.bar/x/page.html", false},
	{"Google ID_LongestMatch", "R5.1 longer Allow wins", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/page.html", true},
	{"Google ID_LongestMatch", "R5.1 longer Allow does not match the directory", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/", false},
	{"Google ID_LongestMatch", "R5.1 empty Allow and Disallow", "user-agent: FooBot\ndisallow: \nallow: \n", "FooBot", "http://foo.bar/x/page.html", true},
	{"Google ID_LongestMatch", "R5.1 equal / rules: Allow", "user-agent: FooBot\ndisallow: /\nallow: /\n", "FooBot", "http://foo.bar/x/page.html", true},
	{"Google ID_LongestMatch", "R5.1 /x vs /x/ on /x", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x", false},
	{"Google ID_LongestMatch", "R5.1 /x vs /x/ on /x/", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x/", true},
	{"Google ID_LongestMatch", "R5.1 equal patterns: Allow", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", "FooBot", "http://foo.bar/x/page.html", true},
	{"Google ID_LongestMatch", "R5.1 wildcard longer than prefix", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page.html", false},
	{"Google ID_LongestMatch", "R5.1 wildcard not matching", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page", true},
	{"Google ID_LongestMatch", "R5.1 prefix longer than wildcard", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", "http://foo.bar/x/page.html", true},
	{"Google ID_LongestMatch", "R5.1 wildcard where the prefix does not match", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", "http://foo.bar/x/y.html", false},
	{"Google ID_LongestMatch", "R5.1 own group allows what * forbids", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "http://foo.bar/x/page", true},
	{"Google ID_LongestMatch", "R5.1 own group forbids", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "http://foo.bar/y/page", false},
	{"Google ID_Encoding", "R5.1 query with a URL in it, unencoded on both sides", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", "FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", true},
	{"Google ID_Encoding", "R5.1 non-ASCII rule, encoded URL", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84", true},
	{"Google ID_Encoding (RFC over Google)", "R5.1 encoded unreserved rule matches the plain URL (Google: no)", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/baz", true},
	{"Google ID_SpecialCharacters", "R5.1 * spans one segment", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo/bar/quz", false},
	{"Google ID_SpecialCharacters", "R5.1 * may be empty", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot", "http://foo.bar/foo/quz", true},
	{"Google ID_SpecialCharacters", "R5.1 $ on an exact path", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar", false},
	{"Google ID_SpecialCharacters", "R5.1 $ leaves longer paths", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot", "http://foo.bar/foo/bar/baz", true},
	{"Google ID_SpecialCharacters", "R5.1 commented rule ignored", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", "FooBot", "http://foo.bar/foo/bar", true},
	{"Google ID_SpecialCharacters", "R5.1 value cut at #", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", "FooBot", "http://foo.bar/foo/quz", false},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /fish matches /fish.html", "user-agent: FooBot\ndisallow: /\nallow: /fish\n", "FooBot", "http://foo.bar/fish.html?id=anything", true},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /fish does not match /Fish.asp", "user-agent: FooBot\ndisallow: /\nallow: /fish\n", "FooBot", "http://foo.bar/Fish.asp", false},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /fish does not match /catfish", "user-agent: FooBot\ndisallow: /\nallow: /fish\n", "FooBot", "http://foo.bar/catfish", false},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /fish does not match /?id=fish", "user-agent: FooBot\ndisallow: /\nallow: /fish\n", "FooBot", "http://foo.bar/?id=fish", false},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /fish* equals /fish", "user-agent: FooBot\ndisallow: /\nallow: /fish*\n", "FooBot", "http://foo.bar/fishheads/yummy.html", true},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /fish/ does not match /fish", "user-agent: FooBot\ndisallow: /\nallow: /fish/\n", "FooBot", "http://foo.bar/fish", false},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /fish/ matches /fish/?salmon", "user-agent: FooBot\ndisallow: /\nallow: /fish/\n", "FooBot", "http://foo.bar/fish/?salmon", true},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /*.php anywhere in the path", "user-agent: FooBot\ndisallow: /\nallow: /*.php\n", "FooBot", "http://foo.bar//folder/any.php.file.html", true},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /*.php in the query", "user-agent: FooBot\ndisallow: /\nallow: /*.php\n", "FooBot", "http://foo.bar/index?f=filename.php/", true},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /*.php is case-sensitive", "user-agent: FooBot\ndisallow: /\nallow: /*.php\n", "FooBot", "http://foo.bar/windows.PHP", false},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /*.php$ at the end", "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n", "FooBot", "http://foo.bar/folder/filename.php", true},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /*.php$ not before a query", "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n", "FooBot", "http://foo.bar/filename.php?parameters", false},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /*.php$ not /filename.php5", "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n", "FooBot", "http://foo.bar/filename.php5", false},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /fish*.php", "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n", "FooBot", "http://foo.bar/fishheads/catfish.php?parameters", true},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 /fish*.php is case-sensitive", "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n", "FooBot", "http://foo.bar/Fish.PHP", false},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 precedence: /p beats / on /page", "user-agent: FooBot\nallow: /p\ndisallow: /\n", "FooBot", "http://example.com/page", true},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 precedence: equal /folder, Allow", "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", "FooBot", "http://example.com/folder/page", true},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 precedence: /*.htm beats /page", "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", "FooBot", "http://example.com/page.htm", false},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 precedence: /$ allows the root only", "user-agent: FooBot\nallow: /$\ndisallow: /\n", "FooBot", "http://example.com/", true},
	{"Google GoogleOnly_DocumentationChecks", "R5.1 precedence: /$ not other pages", "user-agent: FooBot\nallow: /$\ndisallow: /\n", "FooBot", "http://example.com/page.html", false},
	{"Google GoogleOnly_SystemTest", "R5.1 empty URL is the root", "user-agent: FooBot\ndisallow: /\n", "FooBot", "", false},
	{"Google GoogleOnly_SystemTest", "R5.1 empty agent: no group of its own", "user-agent: FooBot\ndisallow: /\n", "", "", true},
}

func TestConformance(t *testing.T) {
	for _, c := range conformance {
		got := Parse([]byte(c.robots)).Decide(c.agent, c.url)
		if got.Allowed != c.want {
			t.Errorf("%s (%s): agent %q url %q: allowed = %v, want %v (decided by line %d %s %q)\n%s",
				c.source, c.rule, c.agent, c.url, got.Allowed, c.want, got.Line, got.Rule, got.Pattern, c.robots)
		}
	}
	t.Logf("%d conformance cases", len(conformance))
}
