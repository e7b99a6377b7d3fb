package redisshare

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Every call a Shared makes goes through a lane: one per Redis server (a
// Cluster's master; one for any other client), each a goroutine that
// sends what its callers queued as one pipeline, then what queued
// meanwhile, at most once every batchEvery. Under load many calls share a
// round trip; a server that hangs or is gone holds only its own lane, and
// the addresses on it (R12.2: they fail closed; the others go on).
//
// A lane also beats: every beat while the Shared owns an address on it,
// it renews the leases running short, and reads one slot's epoch there
// if it sent nothing since the beat before, which tells both that the server
// answers and whether it lost its data. An address is asked without a
// call only while its lane answered within Silence.

const (
	// batchEvery is the least time between two pipelines of a lane.
	batchEvery = 20 * time.Millisecond
	// beat is how often a lane looks at what it owns.
	beat = 200 * time.Millisecond
	// probeEvery: a lane that owns anything and sent nothing for this
	// long reads an epoch, so every beat while it is quiet: a Redis
	// stopped is seen within a beat or two, and no request is sent after
	// (TestRedisStoppedTenSeconds allows half a second). Probing every
	// other beat instead halved the calls of a small crawl and let that
	// test see a request 0.6 s into the outage.
	probeEvery = beat * 3 / 4
	// callTimeout bounds one pipeline.
	callTimeout = 2 * time.Second
)

// Silence is how long a lane may go without an answer from its server
// before the addresses on it are asked of Redis again, each request: a
// Redis that hangs or is gone stops them within Silence (fail closed).
const Silence = time.Second

// call is one command of a lane's pipeline: a script, or a plain command
// that queue adds. apply, when set, runs in the lane once the reply is
// in, with the time the pipeline was sent, even if the caller stopped
// waiting: what Redis did is never lost.
type call struct {
	script *redis.Script
	keys   []string
	args   []any
	queue  func(ctx context.Context, p redis.Pipeliner) redis.Cmder
	apply  func(cmd redis.Cmder, sent time.Time)
	cmd    redis.Cmder
	done   chan struct{}
}

// lane is the calls to one server.
type lane struct {
	s    *Shared
	name string // the server's address; "" for a client of one server
	kick chan struct{}

	mu       sync.Mutex
	pending  []*call
	sent     time.Time // when the last pipeline was sent
	answered time.Time // when the last pipeline it answered whole was sent
	failed   bool      // the last pipeline failed: down until one is answered
	// losses counts the losses of its server's data this Shared found
	// (restore.go). Guarded by the Shared's mu.
	losses int
	// owedRecords are stops that did not reach its server, queued again
	// every beat until they do: the other processes learn of a stop from
	// them. Guarded by the Shared's mu.
	owedRecords []func(context.Context, redis.Pipeliner) redis.Cmder
}

// errDown is what Take says of an address whose server's last pipeline
// failed, though it asks nothing of it now.
var errDown = errors.New("its Redis server does not answer")

// down says the lane's last pipeline failed.
func (l *lane) down() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failed
}

// answering says the lane's server answered within Silence before now.
func (l *lane) answering(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.failed && now.Sub(l.answered) < Silence
}

// do queues c and waits for its reply or ctx's end.
func (l *lane) do(ctx context.Context, c *call) error {
	c.done = make(chan struct{})
	l.enqueue(c)
	select {
	case <-c.done:
		return c.cmd.Err()
	case <-ctx.Done():
		return ctx.Err()
	case <-l.s.done:
		return ErrClosed
	}
}

// enqueue queues c without waiting for it.
func (l *lane) enqueue(c *call) {
	l.mu.Lock()
	l.pending = append(l.pending, c)
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// run is the lane's goroutine.
func (l *lane) run() {
	defer l.s.wg.Done()
	tick := time.NewTicker(beat)
	defer tick.Stop()
	var last time.Time
	for {
		select {
		case <-l.s.done:
			l.fail(ErrClosed)
			return
		case <-l.kick:
		case <-tick.C:
			l.s.beat(l)
		}
		if wait := batchEvery - time.Since(last); wait > 0 {
			select {
			case <-time.After(wait):
			case <-l.s.done:
				l.fail(ErrClosed)
				return
			}
		}
		l.mu.Lock()
		batch := l.pending
		l.pending = nil
		l.mu.Unlock()
		if len(batch) > 0 {
			last = time.Now()
			l.send(batch)
		}
	}
}

// fail answers every queued call with err.
func (l *lane) fail(err error) {
	l.mu.Lock()
	batch := l.pending
	l.pending = nil
	l.mu.Unlock()
	for _, c := range batch {
		cmd := redis.NewCmd(context.Background())
		cmd.SetErr(err)
		c.cmd = cmd
		close(c.done)
	}
}

// send runs batch as one pipeline (and the scripts Redis did not know,
// as a second, with their text), then applies each reply.
func (l *lane) send(batch []*call) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	sent := time.Now()
	l.mu.Lock()
	l.sent = sent
	l.mu.Unlock()
	cmds := make([]redis.Cmder, len(batch))
	l.pipeline(ctx, batch, cmds, false)
	var again []int
	for i, c := range batch {
		if c.script != nil && redis.HasErrorPrefix(cmds[i].Err(), "NOSCRIPT") {
			again = append(again, i)
		}
	}
	if len(again) > 0 {
		sub := make([]*call, len(again))
		subCmds := make([]redis.Cmder, len(again))
		for j, i := range again {
			sub[j] = batch[i]
		}
		l.pipeline(ctx, sub, subCmds, true)
		for j, i := range again {
			cmds[i] = subCmds[j]
		}
	}
	whole := true
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil && !isReply(err) {
			whole = false
		}
	}
	l.mu.Lock()
	wasDown := l.failed
	l.failed = !whole
	if whole {
		l.answered = sent
	}
	l.mu.Unlock()
	if !whole && !wasDown {
		l.s.wakeWaiters(l)
	}
	for i, c := range batch {
		c.cmd = cmds[i]
		if c.apply != nil {
			c.apply(cmds[i], sent)
		}
		if c.done != nil {
			close(c.done)
		}
	}
}

// pipeline sends batch, scripts by their hash or, with text, whole.
func (l *lane) pipeline(ctx context.Context, batch []*call, cmds []redis.Cmder, text bool) {
	l.s.roundTrips.Add(1)
	l.s.commands.Add(int64(len(batch)))
	_, _ = l.s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, c := range batch {
			switch {
			case c.script != nil && text:
				cmds[i] = c.script.Eval(ctx, p, c.keys, c.args...)
			case c.script != nil:
				cmds[i] = c.script.EvalSha(ctx, p, c.keys, c.args...)
			default:
				cmds[i] = c.queue(ctx, p)
			}
		}
		return nil
	})
}

// isReply says err is the server's answer (a Redis error reply, or nil's
// redis.Nil), not a failure to reach it.
func isReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && !redis.HasErrorPrefix(err, "CLUSTERDOWN") &&
		!redis.HasErrorPrefix(err, "LOADING") && !redis.HasErrorPrefix(err, "TRYAGAIN") &&
		!redis.HasErrorPrefix(err, "MOVED") && !redis.HasErrorPrefix(err, "ASK")
}

// owedCalls takes the stops owed to the lane's server, to send again.
func (l *lane) owedCalls(s *Shared) []*call {
	s.mu.Lock()
	owed := l.owedRecords
	l.owedRecords = nil
	s.mu.Unlock()
	calls := make([]*call, len(owed))
	for i, w := range owed {
		calls[i] = s.recordCall(l, w)
	}
	return calls
}
