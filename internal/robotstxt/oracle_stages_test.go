package robotstxt

import (
	"math"
	"strconv"
	"strings"
)

// The oracle's stages: the rewrites that take temoto's faults away one by
// one, in the order they apply.

// oracleLine is one record as the rewrites render it.
type oracleLine struct{ key, value string }

func renderOracle(lines []oracleLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.key)
		b.WriteString(": ")
		b.WriteString(l.value)
		b.WriteByte('\n')
	}
	return b.String()
}

// oracleRecords reads text into lines of canonical keys and values as we
// read them (cut lines stay cut).
func oracleRecords(text string) []oracleLine {
	var out []oracleLine
	for _, rec := range Lex([]byte(text)) {
		out = append(out, oracleLine{rec.Key, rec.Value})
	}
	return out
}

// encodeSpace writes white space inside a value percent-encoded, which is
// how we compare it anyway, so temoto's tokenizer keeps it one word.
func encodeSpace(v string) string {
	return strings.NewReplacer(" ", "%20", "\t", "%09", "\v", "%0B", "\f", "%0C").Replace(v)
}

// oracleAgentValue is a User-agent value as one word: we read only its
// token anyway. An empty token gets a name no agent has, so the line stays
// a User-agent line for temoto.
func oracleAgentValue(v string, token bool) string {
	if i := indexSpace(v); i >= 0 {
		v = v[:i]
	}
	if token {
		v = AgentToken(v)
	}
	if v == "" {
		return "oracle-empty-agent"
	}
	return v
}

var oracleStages = []oracleStage{
	// Fault 5, the tokenizer: one clean "key: value" line per line we read,
	// keys as written, values one word; comments, blank lines and lines we
	// drop (three-word colon-less lines) are gone. Long lines are not cut
	// here (that is fault 12).
	{fault: 5, text: func(text, agent string) string {
		bom := text[:len(text)-len(skipBOM(text))] // a broken one is fault 12
		raw := rawLines(text)
		var lines []oracleLine
		for _, rec := range Lex([]byte(text)) {
			key, value := rawKeyValue(raw[rec.Line-1])
			if rec.Key == KeyUserAgent {
				value = oracleAgentValue(value, false)
			} else {
				value = encodeSpace(value)
			}
			lines = append(lines, oracleLine{key, value})
		}
		return bom + renderOracle(lines)
	}},
	// Fault 12, Google's extensions: keys spelled right, agent values cut to
	// their token, long lines cut, and the index.html reading written out.
	{fault: 12, text: func(text, agent string) string {
		var lines []oracleLine
		for _, l := range oracleRecords(text) {
			switch l.key {
			case KeyUserAgent:
				l.value = oracleAgentValue(l.value, true)
			case KeyAllow:
				if rule := newRule(Record{Key: KeyAllow, Value: l.value}); rule.index != "" {
					lines = append(lines, l)
					l.value = rule.index
				}
			}
			lines = append(lines, l)
		}
		return renderOracle(lines)
	}},
	// Fault 1, parse errors: no rules or Crawl-delay before the first
	// User-agent, no Crawl-delay temoto cannot read.
	{fault: 1, text: func(text, agent string) string {
		var lines []oracleLine
		sawAgent := false
		for _, l := range oracleRecords(text) {
			switch l.key {
			case KeyUserAgent:
				sawAgent = true
			case KeyAllow, KeyDisallow:
				if !sawAgent {
					continue
				}
			case KeyCrawlDelay:
				f, err := strconv.ParseFloat(l.value, 64)
				if !sawAgent || err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
					continue
				}
			}
			lines = append(lines, l)
		}
		return renderOracle(lines)
	}},
	// Fault 4: no Crawl-delay lines.
	{fault: 4, text: func(text, agent string) string {
		var lines []oracleLine
		for _, l := range oracleRecords(text) {
			if l.key != KeyCrawlDelay {
				lines = append(lines, l)
			}
		}
		return renderOracle(lines)
	}},
	// Fault 3: every group gets a rule no test path meets, so none is empty.
	{fault: 3, text: func(text, agent string) string {
		var lines []oracleLine
		recs := oracleRecords(text)
		for i, l := range recs {
			lines = append(lines, l)
			if l.key == KeyUserAgent && (i+1 == len(recs) || recs[i+1].key != KeyUserAgent) {
				lines = append(lines, oracleLine{KeyAllow, "/polite-oracle-sentinel"})
			}
		}
		return renderOracle(lines)
	}},
	// Fault 2: a group naming a prefix of the agent's token names nobody.
	{fault: 2, text: func(text, agent string) string {
		lines := oracleRecords(text)
		for i, l := range lines {
			if l.key == KeyUserAgent && len(l.value) < len(agent) && strings.HasPrefix(strings.ToLower(agent), strings.ToLower(l.value)) {
				lines[i].value = "oracle-prefix-agent"
			}
		}
		return renderOracle(lines)
	}},
	// Fault 6, the rewrite of patterns: a pattern that starts with neither
	// '/' nor '*' matches nothing for us, and goes; a pattern of stars only
	// matches every path, as does "/" and as many stars after it.
	{fault: 6, text: func(text, agent string) string {
		var lines []oracleLine
		for _, l := range oracleRecords(text) {
			if l.key == KeyAllow || l.key == KeyDisallow {
				switch {
				case l.value == "":
				case strings.Trim(l.value, "*") == "":
					l.value = "/" + l.value[1:]
				case l.value[0] != '/' && l.value[0] != '*':
					continue
				}
			}
			lines = append(lines, l)
		}
		return renderOracle(lines)
	}},
	// Fault 9, in part: temoto's regexes anchor at every '$', where only a
	// final '$' anchors and any other is a character. Written encoded, in
	// the pattern and in the path, it is a character to temoto too.
	{fault: 9, text: func(text, agent string) string {
		lines := oracleRecords(text)
		for i, l := range lines {
			if l.key == KeyAllow || l.key == KeyDisallow {
				if n := len(l.value) - 1; n > 0 {
					lines[i].value = strings.ReplaceAll(l.value[:n], "$", "%24") + l.value[n:]
				}
			}
		}
		return renderOracle(lines)
	}, path: func(path string) string { return strings.ReplaceAll(path, "$", "%24") }},
	// Fault 10, percent-encoding: patterns and the path in canonical form.
	{fault: 10, text: func(text, agent string) string {
		lines := oracleRecords(text)
		for i, l := range lines {
			if l.key == KeyAllow || l.key == KeyDisallow {
				lines[i].value = canonical(l.value, false)
			}
		}
		return renderOracle(lines)
	}, path: func(path string) string {
		p, _ := RequestPath(path)
		return p
	}},
}

// rawLines splits text into its lines as Lex does, without
// cutting long ones.
func rawLines(text string) []string {
	text = skipBOM(readText([]byte(text)))
	var out []string
	for len(text) > 0 {
		end := strings.IndexAny(text, "\r\n")
		if end < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:end])
		next := end + 1
		if text[end] == '\r' && next < len(text) && text[next] == '\n' {
			next++
		}
		text = text[next:]
	}
	return out
}

// rawKeyValue is parseLine keeping the key as written.
func rawKeyValue(line string) (key, value string) {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = trimSpace(line)
	if c := strings.IndexByte(line, ':'); c >= 0 {
		k := trimSpace(line[:c])
		if k != "" && (indexSpace(k) < 0 || strings.EqualFold(k, "user agent")) {
			return k, trimSpace(line[c+1:])
		}
	}
	sp := indexSpace(line)
	return line[:sp], trimSpace(line[sp:])
}

// temotoModel decides as temoto's matcher would with the given faults
// switched on, over the rules of one (merged) group in file order, all
// patterns and the path canonical: with no fault on, it is RFC 9309 by
// other means than ours (Go's regexp). Google's index.html reading is not
