package robotstxt

// The lines a reader of content signals wants (R7.1): Content-Signal and
// Content-Usage records, each scoped to a path (Record.Scope) and picked as
// Allow and Disallow are picked (RFC 9309 2.2.2, draft-ietf-aipref-attach).

// HasSignalLines reports whether some record is a Content-Signal or
// Content-Usage line: most files have none, and their pages skip the search.
func (f *File) HasSignalLines() bool { return f != nil && f.signalLines }

// BeforeGroups returns the records of kind key before the first User-agent
// line whose scope matches path, a canonical path and query (RequestPath).
func (f *File) BeforeGroups(key, path string) []Record {
	if f == nil {
		return nil
	}
	var out []Record
	for _, rec := range f.records {
		if rec.Key == KeyUserAgent {
			break
		}
		if rec.Key == key && scopeMatch(rec, path) >= 0 {
			out = append(out, rec)
		}
	}
	return out
}

// Scoped returns, in file order, the records of the groups that apply to
// agent whose scope matches path (a canonical path and query, RequestPath)
// the longest, for each of keys: a line without a path counts as "/", and
// lines of the same length all count.
func (f *File) Scoped(agent, path string, keys ...string) []Record {
	if len(keys) == 0 {
		return nil
	}
	group := f.Group(agent)
	out := longestMatching(group, keys[0], path)
	for _, key := range keys[1:] {
		out = mergeByLine(out, longestMatching(group, key, path))
	}
	return out
}

// longestMatching returns the records of kind key whose scope matches path
// with the longest canonical pattern, in file order.
func longestMatching(recs []Record, key, path string) []Record {
	best := -1
	var out []Record
	for _, rec := range recs {
		if rec.Key != key {
			continue
		}
		n := scopeMatch(rec, path)
		switch {
		case n < 0 || n < best:
			continue
		case n > best:
			best, out = n, out[:0]
		}
		out = append(out, rec)
	}
	return out
}

// scopeMatch matches the scope of a path-scoped record against path, with
// the matcher of Allow and Disallow: it returns the length of the matching
// pattern, or -1.
func scopeMatch(rec Record, path string) int {
	pattern, _ := rec.Scope()
	if pattern == "" {
		pattern = "/"
	}
	r := newRule(Record{Key: rec.Key, Value: pattern, Line: rec.Line})
	return r.match(path)
}

// mergeByLine merges two lists in file order.
func mergeByLine(a, b []Record) []Record {
	out := make([]Record, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].Line <= b[0].Line {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}
