package redisshare

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// checkPolicy reads maxmemory-policy of every server rdb writes to and
// refuses one that may evict keys (ErrEvicting). A server that does not
// permit CONFIG GET (a managed Redis, an ACL user without it) is trusted,
// with one warning that says what to check.
func (s *Shared) checkPolicy(ctx context.Context) error {
	var mu sync.Mutex
	var evicting, unread []string
	look := func(ctx context.Context, c redis.Cmdable, name string) error {
		policy, err := c.ConfigGet(ctx, "maxmemory-policy").Result()
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil && isReply(err):
			unread = append(unread, fmt.Sprintf("%s (%v)", name, err))
		case err != nil:
			return err
		case len(policy) == 0:
			unread = append(unread, name+" (no maxmemory-policy in its reply)")
		case policy["maxmemory-policy"] != "noeviction":
			evicting = append(evicting, fmt.Sprintf("%s has maxmemory-policy %s", name, policy["maxmemory-policy"]))
		}
		return nil
	}
	var err error
	if c, ok := s.rdb.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			return look(ctx, m, m.Options().Addr)
		})
	} else {
		if info, ierr := s.rdb.Info(ctx, "cluster").Result(); ierr == nil && strings.Contains(info, "cluster_enabled:1") {
			return ErrClusterNode
		}
		err = look(ctx, s.rdb, "Redis at "+addrOf(s.rdb))
	}
	if err != nil {
		return fmt.Errorf("redisshare: reading maxmemory-policy: %w", err)
	}
	if len(evicting) > 0 {
		return fmt.Errorf("%w: %s", ErrEvicting, strings.Join(evicting, "; "))
	}
	if len(unread) > 0 {
		s.logger.Warn("redisshare: cannot read maxmemory-policy; make sure it is noeviction, or a key evicted mid-lease lets two requests go to one server",
			"servers", unread)
	}
	return nil
}

// ErrClusterNode is returned by New for a client of one server that is a
// node of a Redis Cluster: its keys are on every master, and only a
// redis.ClusterClient follows them there.
var ErrClusterNode = errors.New("redisshare: the server is a Redis Cluster node: use redis.NewClusterClient")

// addrOf is the address a client of one server dials, if it says.
func addrOf(c redis.UniversalClient) string {
	if cl, ok := c.(*redis.Client); ok {
		return cl.Options().Addr
	}
	return "its address"
}
