package polite

import (
	"cmp"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/politecrawler/polite/internal/pacing"
	"github.com/politecrawler/polite/internal/schedule"
	"github.com/politecrawler/polite/politetest"
)

// requestLog keeps the fetcher's own account of its requests
// (Config.OnRequest), to tell where a benchmark's efficiency goes.
type requestLog struct {
	mu     sync.Mutex
	events []RequestEvent
}

func (l *requestLog) add(e RequestEvent) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// reportLoss splits what a gap between two requests to an address took
// beyond the limit's (visitRates) into its parts, each a mean over the
// gaps, in milliseconds: late_ms, how long a budget waited past its rest
// for the fetcher to start it; overhead_ms, how much longer the fetcher
// measured a request than the farm saw it, its connection, its CPU wait
// and its body read; rest_extra_ms, how much longer the rest that
// followed from the fetcher's measure was than the one from the farm's
// (R2.2: five times the duration). late_first_gap_ms and
// late_later_gaps_ms split late_ms between the gap after robots.txt and
// those after a page. send_lag_*_ms (from the fetcher's start to the
// farm's) and recv_lag_*_ms (from the farm's end to the fetcher's) split
// overhead_ms, for each address's first request (robots.txt, on a new
// connection) and its later ones. Requests and visits are paired in order per
// address: one request at a time goes to each (R1.1); unpaired counts the
// requests of addresses where the counts differ.
func reportLoss(b *testing.B, log *requestLog, visits []politetest.Visit) {
	policy := pacing.Policy{Floor: MinRest, Factor: MinDurationFactor}
	events := make(map[netip.Addr][]RequestEvent)
	for _, e := range log.events {
		events[e.Addr] = append(events[e.Addr], e)
	}
	seen := make(map[netip.Addr][]politetest.Visit)
	for _, v := range visits {
		seen[v.Addr] = append(seen[v.Addr], v)
	}
	var late, overhead, restExtra time.Duration
	var sendLag, recvLag [2]time.Duration
	var lagged [2]int
	gaps, paired, unpaired := 0, 0, 0
	var lateBy [3]time.Duration
	var gapsBy [3]int
	for addr, es := range events {
		slices.SortFunc(es, func(a, b RequestEvent) int { return a.Started.Compare(b.Started) })
		vs := seen[addr]
		slices.SortFunc(vs, func(a, b politetest.Visit) int { return cmp.Compare(a.Start.UnixNano(), b.Start.UnixNano()) })
		if len(vs) != len(es) {
			unpaired += len(es)
			continue
		}
		for i, e := range es {
			farm := vs[i].End.Sub(vs[i].Start)
			overhead += e.Duration - farm
			paired++
			k := min(i, 1)
			sendLag[k] += vs[i].Start.Sub(e.Started)
			recvLag[k] += e.Started.Add(e.Duration).Sub(vs[i].End)
			lagged[k]++
			if i == 0 {
				continue
			}
			prev := es[i-1]
			late += e.Gap - prev.Rest.Wait
			lateBy[min(i, 2)] += e.Gap - prev.Rest.Wait
			gapsBy[min(i, 2)]++
			prevFarm := vs[i-1].End.Sub(vs[i-1].Start)
			restExtra += prev.Rest.Wait - restAfter(policy, pacing.Outcome{Duration: prevFarm}).Wait
			gaps++
		}
	}
	ms := func(d time.Duration, n int) float64 {
		if n == 0 {
			return 0
		}
		return d.Seconds() * 1000 / float64(n)
	}
	b.ReportMetric(ms(late, gaps), "late_ms")
	b.ReportMetric(ms(lateBy[1], gapsBy[1]), "late_first_gap_ms")
	b.ReportMetric(ms(lateBy[2], gapsBy[2]), "late_later_gaps_ms")
	b.ReportMetric(ms(overhead, paired), "overhead_ms")
	b.ReportMetric(ms(restExtra, gaps), "rest_extra_ms")
	b.ReportMetric(ms(sendLag[0], lagged[0]), "send_lag_first_ms")
	b.ReportMetric(ms(recvLag[0], lagged[0]), "recv_lag_first_ms")
	b.ReportMetric(ms(sendLag[1], lagged[1]), "send_lag_later_ms")
	b.ReportMetric(ms(recvLag[1], lagged[1]), "recv_lag_later_ms")
	b.ReportMetric(float64(unpaired), "unpaired")
}

// reportSchedWait reports sched_wait_us: how long, on average, the
// process's goroutines waited to run since waits0 and wait0 were read
// (schedule.RunnableWaits), the CPU's shortage the fetcher heeds.
func reportSchedWait(b *testing.B, waits0 uint64, wait0 float64) {
	waits1, wait1 := schedule.RunnableWaits()
	if waits1 > waits0 {
		b.ReportMetric((wait1-wait0)/float64(waits1-waits0)*1e6, "sched_wait_us")
	}
}
