// Package polite fetches web pages politely: one request at a time per
// server address, a rest after every response, robots.txt read first and
// obeyed (RFC 9309), refusals taken as final, an honest User-Agent. The
// rules are in the code; options can make the fetcher more careful, never
// less.
//
// A Fetcher is a queue in and a queue out: Add URLs from any goroutine,
// range over Results for one Result per accepted URL, Close when done. A
// Store makes requests conditional and remembers refusals across runs;
// Result.TextForAI says what a site lets an AI reader use; Classify says
// what a response means; Config.Shared keeps the rules over processes.
//
// # The rules
//
// Code, tests and commits cite them; no option makes the fetcher less polite:
//
//   - R1 one request in flight per server address, the address dialled (R1.1); addresses served in parallel (R1.2); a rest counted from the response's end (R1.3), waited out by the next run on the same Store or coordinator (R1.4).
//   - R2 the rest is the longest of a 3 s floor (1 s for a declared API), 5 × the last duration (cap 30 s), Crawl-delay (cap 60 s), Retry-After (a park past the horizon), a growing backoff after a failure (cap 5 min); slower after a cool-off (R2.1–R2.6).
//   - R3 a challenge page, 402 or 403, or five failures in a row stop the host, logged and kept; a stop cools off across runs, longer each time (R3.1–R3.5).
//   - R4 an honest User-Agent; a name that pretends is refused.
//   - R5 robots.txt first, as RFC 9309 says; its statuses, cache (24 h) and stale use (30 days); documented APIs and explicit unrestricted hosts (R5.1–R5.6).
//   - R6 stored copies make requests conditional; a 304 returns the copy.
//   - R7 content signals decide whether a page's text reaches an AI reader.
//   - R8 HTML by default, body caps, GET only, no cookies; each redirect hop a request of its own; a page read as a browser reads it: its charset sniffed, its links resolved by the WHATWG URL standard (R8.4).
//   - R9 traps (calendars, session ids, repeats) dropped with a Result.
//   - R10 no private addresses by default; bounded headers, bodies, URLs and time.
//   - R11 every accepted URL yields exactly one Result, Close included.
//   - R12 many processes on one coordinator keep R1, R2, R3 and R5 as one, failing closed.
//   - R13 a rendered page's every request is the fetcher's, or refused.
package polite
