package politetest

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// Report sums up the audit's verdict on politeness, per address.
type Report struct {
	Requests  int // visits recorded
	Addresses int // addresses that saw at least one request
	// Overlaps counts visits that ran concurrently with an earlier visit to
	// the same address: those with Overlap set, plus those that started
	// before an earlier visit's End (or while it had not ended). Each visit
	// counts at most once.
	Overlaps int
	// ShortGaps lists consecutive visits on one address whose gap
	// (next.Start - prev.End) is less than minRest(prev). Overlapping
	// pairs have a negative gap, so they appear here too. Pairs whose
	// first visit has not ended are skipped.
	ShortGaps []Gap
	// MinGap is the smallest gap per address, for addresses with at least
	// two visits (and one ended pair).
	MinGap map[netip.Addr]time.Duration
}

// Gap is a rest between two consecutive visits to one address that was
// shorter than wanted.
type Gap struct {
	Addr       netip.Addr
	Prev, Next Visit
	Gap        time.Duration // Next.Start - Prev.End
	Want       time.Duration // minRest(Prev)
}

// Polite reports whether the audit found no overlap and no short gap: from
// the server's side, one request at a time per address (R1.1) and every
// rest as long as wanted (R2).
func (r Report) Polite() bool { return r.Overlaps == 0 && len(r.ShortGaps) == 0 }

// AtLeast is a minRest for Report that wants the same rest, d, after every
// visit: AtLeast(3 * time.Second) checks the floor of R2.1.
func AtLeast(d time.Duration) func(prev Visit) time.Duration {
	return func(Visit) time.Duration { return d }
}

// Report checks the visits since the last Reset. minRest gives the rest
// wanted after each visit (for example from its host's Crawl-delay, or the
// status its path is scripted with); AtLeast wants one rest after every
// visit; nil means 0, which flags only overlapping pairs as short gaps.
func (a *Audit) Report(minRest func(prev Visit) time.Duration) Report {
	return ReportOn(a.filter(func(*Visit) bool { return true }, false), minRest)
}

// ReportOn checks visits recorded by another audit, such as a farm's in
// another process, as Report does.
func ReportOn(vs []Visit, minRest func(prev Visit) time.Duration) Report {
	vs = slices.Clone(vs)
	slices.SortStableFunc(vs, func(a, b Visit) int { return a.Start.Compare(b.Start) })
	byAddr := make(map[netip.Addr][]Visit)
	for _, v := range vs {
		byAddr[v.Addr] = append(byAddr[v.Addr], v)
	}
	r := Report{Requests: len(vs), Addresses: len(byAddr), MinGap: make(map[netip.Addr]time.Duration)}
	addrs := make([]netip.Addr, 0, len(byAddr))
	for addr := range byAddr {
		addrs = append(addrs, addr)
	}
	// Sorted so that ShortGaps come out in the same order on every run.
	slices.SortFunc(addrs, netip.Addr.Compare)
	for _, addr := range addrs {
		r.checkAddr(addr, byAddr[addr], minRest)
	}
	return r
}

// checkAddr adds the verdict on one address's visits, sorted by Start.
func (r *Report) checkAddr(addr netip.Addr, vs []Visit, minRest func(Visit) time.Duration) {
	var lastEnd time.Time // latest End among earlier visits
	open := false         // an earlier visit has not ended
	for i, v := range vs {
		if v.Overlap || (i > 0 && (open || v.Start.Before(lastEnd))) {
			r.Overlaps++
		}
		if i > 0 && !vs[i-1].End.IsZero() {
			prev := vs[i-1]
			gap := v.Start.Sub(prev.End)
			if m, ok := r.MinGap[addr]; !ok || gap < m {
				r.MinGap[addr] = gap
			}
			var want time.Duration
			if minRest != nil {
				want = minRest(prev)
			}
			if gap < want {
				prev.Header, v.Header = prev.Header.Clone(), v.Header.Clone()
				r.ShortGaps = append(r.ShortGaps, Gap{Addr: addr, Prev: prev, Next: v, Gap: gap, Want: want})
			}
		}
		if v.End.IsZero() {
			open = true
		} else if v.End.After(lastEnd) {
			lastEnd = v.End
		}
	}
}

// String is a one-paragraph summary: requests, addresses, overlaps, short
// gaps (the first few in detail) and the smallest gap overall.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests to %d addresses; %d overlaps; %d short gaps", r.Requests, r.Addresses, r.Overlaps, len(r.ShortGaps))
	const shown = 3
	for i, g := range r.ShortGaps {
		if i == shown {
			fmt.Fprintf(&b, " …and %d more", len(r.ShortGaps)-shown)
			break
		}
		sep := ", "
		if i == 0 {
			sep = " ("
		}
		fmt.Fprintf(&b, "%s%v: %v < %v before %s %s%s", sep, g.Addr, g.Gap, g.Want, g.Next.Method, g.Next.Host, g.Next.Path)
	}
	if len(r.ShortGaps) > 0 {
		b.WriteString(")")
	}
	first := true
	var minAddr netip.Addr
	var minGap time.Duration
	for addr, g := range r.MinGap {
		if first || g < minGap || (g == minGap && addr.Less(minAddr)) {
			minAddr, minGap, first = addr, g, false
		}
	}
	if first {
		b.WriteString("; no address saw two requests.")
	} else {
		fmt.Fprintf(&b, "; smallest gap %v at %v.", minGap, minAddr)
	}
	return b.String()
}
