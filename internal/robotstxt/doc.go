// Package robotstxt reads robots.txt files (RFC 9309, R5.1) for the
// fetcher's Robots. One pass, Lex, turns the bytes into records (key, value,
// line number); everything else works from the records: the groups and the
// matcher of Allow and Disallow (File), and the reader of path-scoped lines
// such as Content-Signal and Content-Usage (R7.1, Scoped). As in Google's
// parser, parsing never decides and matching never reads bytes.
package robotstxt
