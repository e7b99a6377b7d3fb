package botauth

import (
	"encoding/base64"
	"net"
	"strconv"
	"strings"
)

// component is one covered component of a signature (RFC 9421 §2): its
// identifier as the signature base writes it, and its value.
type component struct {
	id, value string
}

// signatureBase is the signature base of RFC 9421 §2.5: a line per
// covered component, then the signature parameters. params is the
// serialised inner list with its parameters, as Signature-Input carries it.
func signatureBase(components []component, params string) string {
	var b strings.Builder
	for _, c := range components {
		b.WriteString(c.id)
		b.WriteString(": ")
		b.WriteString(c.value)
		b.WriteByte('\n')
	}
	b.WriteString(`"@signature-params": `)
	b.WriteString(params)
	return b.String()
}

// innerList serialises the identifiers of components as an RFC 9651
// inner list, without parameters.
func innerList(components []component) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, c := range components {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.id)
	}
	b.WriteByte(')')
	return b.String()
}

// sfString serialises s as an RFC 9651 String (§4.1.6). s is printable
// ASCII: the callers pass URLs, base64 and thumbprints.
func sfString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// sfBytes serialises p as an RFC 9651 Byte Sequence (§4.1.8).
func sfBytes(p []byte) string {
	return ":" + base64.StdEncoding.EncodeToString(p) + ":"
}

// sfInt serialises n as an RFC 9651 Integer.
func sfInt(n int64) string { return strconv.FormatInt(n, 10) }

// authority is the @authority of a request to host (RFC 9421 §2.2.3): the
// host in lower case, its port left out when it is the scheme's default.
func authority(scheme, host string) string {
	host = strings.ToLower(host)
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		return host // no port
	}
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return host
}
