package redisshare

import (
	"context"
	"time"
)

// restoreBatch bounds the addresses written back in one call.
const restoreBatch = 500

// watch looks, every watchEvery while this process holds a lease or
// knows a rest not yet over, whether Redis lost its data (its epoch
// changed), and writes back what it knows when it did, within Grace.
func (s *Shared) watch() {
	defer s.wg.Done()
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-s.lost:
		case <-tick.C:
			s.payOwedRecords()
			if !s.prune() {
				continue
			}
			s.payOwed()
			ctx, cancel := context.WithTimeout(context.Background(), watchEvery)
			e, err := s.currentEpoch(ctx)
			cancel()
			if err != nil {
				continue // unreachable: nothing is granted meanwhile either
			}
			s.mu.Lock()
			same := e == s.epoch
			s.mu.Unlock()
			if same {
				continue
			}
		}
		s.restore()
	}
}

// prune forgets what is over, and reports whether anything is left.
func (s *Shared) prune() bool {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, k := range s.known {
		if !k.leaseEnds.After(now) && !k.restEnds.After(now) {
			delete(s.known, key)
		}
	}
	return len(s.known) > 0
}

// payOwedRecords sends again the stops that did not reach Redis, in the
// order they were made, until one fails.
func (s *Shared) payOwedRecords() {
	for {
		s.mu.Lock()
		if len(s.owedRecords) == 0 {
			s.mu.Unlock()
			return
		}
		write := s.owedRecords[0]
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), watchEvery)
		s.calls.Add(1)
		err := write(ctx)
		cancel()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.owedRecords = s.owedRecords[1:]
		s.mu.Unlock()
	}
}

// payOwed sends again the give-backs that did not reach Redis, with what
// is left of their rests, until the rest is over (restScript ignores one
// whose address was granted to another since).
func (s *Shared) payOwed() {
	type owed struct {
		key   string
		token int64
		rest  time.Duration
	}
	now := time.Now()
	var due []owed
	s.mu.Lock()
	for key, k := range s.known {
		if k.owed && (k.leaseEnds.After(now) || k.restEnds.After(now)) {
			due = append(due, owed{key, k.token, max(k.restEnds.Sub(now), 0)})
		}
	}
	s.mu.Unlock()
	for _, o := range due {
		ctx, cancel := context.WithTimeout(context.Background(), watchEvery)
		err := s.giveBack(ctx, o.key, o.token, o.rest)
		cancel()
		if err != nil {
			return // still unreachable
		}
		s.remember(o.key, func(k *knownAt) {
			if k.token == o.token {
				k.owed, k.leaseEnds = false, time.Time{}
			}
		})
	}
}

// restore writes back the leases and rests this process knows, under the
// epoch Redis has now, which it takes up as the one seen once they are
// written. A server found
// empty gets its epoch here if no Take made it first, so what is written
// lands within its Grace.
func (s *Shared) restore() {
	ctx, cancel := context.WithTimeout(context.Background(), Grace)
	defer cancel()
	e, err := s.currentEpoch(ctx)
	if err != nil {
		return
	}
	now := time.Now()
	s.mu.Lock()
	old := s.epoch
	var batches []batch
	b := batch{keys: []string{s.epochKey()}, args: []any{e}}
	for key, k := range s.known {
		switch {
		case k.leaseEnds.After(now):
			b.add(key, "l", k.token, k.leaseEnds.Sub(now), k.lrest)
		case k.restEnds.After(now):
			b.add(key, "r", 0, k.restEnds.Sub(now), 0)
		}
		if len(b.keys) > restoreBatch {
			batches = append(batches, b)
			b = batch{keys: []string{s.epochKey()}, args: []any{e}}
		}
	}
	if len(b.keys) > 1 {
		batches = append(batches, b)
	}
	s.mu.Unlock()
	if old == e {
		return
	}
	n := 0
	for _, b := range batches {
		s.calls.Add(1)
		if err := restoreScript.Run(ctx, s.rdb, b.keys, b.args...).Err(); err != nil {
			// The epoch stays the old one seen: the next look tries again.
			s.logger.Warn("redisshare: writing back leases and rests failed", "err", err)
			return
		}
		n += len(b.keys) - 1
	}
	s.mu.Lock()
	s.epoch = e
	s.mu.Unlock()
	s.logger.Warn("redisshare: Redis lost its data; leases and rests written back", "addresses", n, "epoch", e)
}

// currentEpoch is Redis's epoch, made now if it is missing.
func (s *Shared) currentEpoch(ctx context.Context) (string, error) {
	s.calls.Add(1)
	return epochScript.Run(ctx, s.rdb, []string{s.epochKey()}).Text()
}

// batch is one restoreScript call's keys and arguments.
type batch struct {
	keys []string
	args []any
}

// add puts one address in the batch; the time left is rounded up.
func (b *batch) add(key, kind string, token int64, left, lrest time.Duration) {
	b.keys = append(b.keys, key)
	b.args = append(b.args, kind, token, left.Milliseconds()+1, lrest.Milliseconds())
}
