package weburl

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"
)

// Display returns the URL u as a person reads it, for printing: the host in
// U-labels ("xn--e1afmkfd.example" is "пример.example") and each
// percent-encoded UTF-8 sequence of the path, query and fragment shown as
// its character, where that character is printable and cannot be taken for
// URL syntax. Escaped ASCII ("%2F", "%3F", "%23", "%25", "%41", …), spaces,
// controls, format characters (such as the bidirectional marks), U+FFFD,
// characters whose compatibility form holds URL syntax ("／", "？") and bytes
// that are not UTF-8 (a query encoded in windows-1251) stay as written, and
// so does a host that is not a valid IDN.
//
// What Display shows, read back by Parse, is u again, for a u that Parse or
// Resolve wrote. Display is for the eye only: it never fails, and never
// changes which resource u names.
func Display(u string) string {
	hostStart, hostEnd := hostBounds(u)
	var b strings.Builder
	b.Grow(len(u))
	b.WriteString(u[:hostStart])
	b.WriteString(displayHost(u[hostStart:hostEnd]))
	rest := u[hostEnd:]
	for {
		i := strings.IndexByte(rest, '%')
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		b.WriteString(rest[:i])
		rest = displayEscapes(&b, rest[i:])
	}
}

// hostBounds returns where the host of u begins and ends: after the
// scheme's "//" and any user info, before the port and the path. For a URL
// without an authority (mailto:…), both are where its path begins.
func hostBounds(u string) (start, end int) {
	colon := strings.IndexByte(u, ':')
	if colon < 0 || !strings.HasPrefix(u[colon+1:], "//") {
		return colon + 1, colon + 1
	}
	start = colon + 3
	end = len(u)
	if i := strings.IndexAny(u[start:], "/?#"); i >= 0 {
		end = start + i
	}
	if at := strings.LastIndexByte(u[start:end], '@'); at >= 0 {
		start += at + 1
	}
	if strings.HasPrefix(u[start:end], "[") {
		return start, start // an IPv6 address: nothing to show otherwise
	}
	if c := strings.LastIndexByte(u[start:end], ':'); c >= 0 {
		end = start + c
	}
	return start, end
}

// displayHost returns host in U-labels when it has an A-label and is a
// valid IDN, else as it is.
func displayHost(host string) string {
	if !strings.Contains(strings.ToLower(host), "xn--") {
		return host
	}
	u, err := idna.Display.ToUnicode(host)
	if err != nil {
		return host
	}
	return u
}

// displayEscapes writes the run of percent-escapes that s begins with, each
// decoded where displayable says so, and returns what follows the run.
func displayEscapes(b *strings.Builder, s string) (rest string) {
	var raw [64]byte
	bytes := raw[:0] // the run's bytes, decoded
	n := 0           // the run's length in s
	for n+2 < len(s) && s[n] == '%' {
		c, err := strconv.ParseUint(s[n+1:n+3], 16, 8)
		if err != nil {
			break
		}
		bytes = append(bytes, byte(c))
		n += 3
	}
	if n == 0 { // a '%' that begins no escape
		b.WriteByte('%')
		return s[1:]
	}
	if !utf8.Valid(bytes) {
		// A run in another encoding (a query in GBK or windows-1251) may hold
		// bytes that read as UTF-8 by chance: it is shown as written, whole.
		b.WriteString(s[:n])
		return s[n:]
	}
	for i := 0; i < len(bytes); {
		r, size := utf8.DecodeRune(bytes[i:])
		if size > 1 && displayable(r) {
			b.WriteRune(r)
		} else {
			size = 1
			b.WriteString(s[3*i : 3*i+3]) // as written, in its case
		}
		i += size
	}
	return s[n:]
}

// slashLike are characters drawn as a slash or a backslash whose
// compatibility form is not one, so that "/a∕b" could pass for a path of
// two segments.
var slashLike = map[rune]bool{
	'\u2044': true, '\u2215': true, '\u2216': true, '\u2571': true, '\u2572': true,
	'\u29F5': true, '\u29F8': true, '\u29F9': true, '\u3033': true, '\uFE68': true,
}

// displayable reports a non-ASCII character that can be shown unescaped:
// printable, no space, and with no URL syntax in its compatibility form.
func displayable(r rune) bool {
	if r == utf8.RuneError || !unicode.IsGraphic(r) || unicode.IsSpace(r) || unicode.Is(unicode.Zs, r) || slashLike[r] {
		return false
	}
	var buf [utf8.UTFMax]byte
	folded := norm.NFKC.Bytes(utf8.AppendRune(buf[:0], r))
	for _, c := range folded {
		if c < utf8.RuneSelf && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
