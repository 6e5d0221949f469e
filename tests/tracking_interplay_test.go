package tests

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/strata-db/strata/internal/testutil"
)

func TestTrackingGoRedis(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := context.Background()
	mut := testutil.Client(t, inst)

	cache := redis.NewLocalCache(redis.CacheConfig{MaxEntries: 128})
	csc := testutil.Client(t, inst, func(o *redis.Options) {
		o.Protocol = 3
		o.ClientSideCache = cache
	})
	if err := mut.Set(ctx, "csc", "v1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := csc.Get(ctx, "csc").Result(); err != nil || v != "v1" {
		t.Fatalf("GET csc = %q, %v", v, err)
	}
	eventually(t, "the value is cached", func() bool { return cache.Len() >= 1 })
	if err := mut.Set(ctx, "csc", "v2", 0).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the cached value is invalidated", func() bool {
		v, err := csc.Get(ctx, "csc").Result()
		return err == nil && v == "v2"
	})
	if err := csc.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "FLUSHDB invalidates the cache", func() bool { return csc.Get(ctx, "csc").Err() == redis.Nil })

	tr := testutil.Client(t, inst, func(o *redis.Options) {
		o.Protocol = 3
		o.PoolSize = 2
		o.OnConnect = func(ctx context.Context, cn *redis.Conn) error {
			return cn.Do(ctx, "CLIENT", "TRACKING", "ON").Err()
		}
	})
	for i := 0; i < 200; i++ {
		k := "k" + strconv.Itoa(i%10)
		want := strconv.Itoa(i)
		if err := tr.Set(ctx, k, want, 0).Err(); err != nil {
			t.Fatalf("SET %s: %v", k, err)
		}
		if v, err := tr.Get(ctx, k).Result(); err != nil || v != want {
			t.Fatalf("GET %s = %q, %v; want %q", k, v, err, want)
		}
		if err := mut.Incr(ctx, k).Err(); err != nil { // an invalidation for tr
			t.Fatal(err)
		}
		if n, err := tr.HIncrBy(ctx, "h", k, 1).Result(); err != nil || n < 1 {
			t.Fatalf("HINCRBY: %d, %v", n, err)
		}
		if i%20 == 0 {
			cmds, err := tr.Pipelined(ctx, func(p redis.Pipeliner) error {
				p.Get(ctx, k)
				p.Incr(ctx, k)
				p.HGetAll(ctx, "h")
				return nil
			})
			if err != nil || len(cmds) != 3 {
				t.Fatalf("pipeline: %v", err)
			}
			if _, err := tr.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Get(ctx, k)
				p.Set(ctx, k, "x", 0)
				return nil
			}); err != nil {
				t.Fatalf("MULTI/EXEC: %v", err)
			}
		}
	}
	if v, err := tr.Do(ctx, "CLIENT", "TRACKINGINFO").Result(); err != nil {
		t.Fatalf("CLIENT TRACKINGINFO: %v", err)
	} else if !strings.Contains(fmt.Sprint(v), "on") {
		t.Fatalf("CLIENT TRACKINGINFO = %v", v)
	}
	if err := tr.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTrackingBcastGroupsPerCommand checks that BCAST invalidations are grouped per prefix
// over a whole command: one message per prefix for an EXEC or a script, however many of its
// commands changed keys under it.
func TestTrackingBcastGroupsPerCommand(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.do("r", "SUBSCRIBE", "__redis__:invalidate")
		s.do("a", "CLIENT", "TRACKING", "ON", "BCAST", "REDIRECT", "@r", "PREFIX", "a:", "PREFIX", "b:")
		s.do("a", "MULTI")
		for _, k := range []string{"a:1", "b:2", "a:2", "b:1", "c:1", "a:1"} {
			s.do("a", "INCR", k)
		}
		s.do("a", "EXEC")
		s.drain("r")
		s.do("b", "EVAL", "redis.call('set','b:3','1') redis.call('set','a:3','1') redis.call('set','a:4','1')", "0")
		s.drain("r")
		s.do("a", "CLIENT", "TRACKING", "ON", "BCAST", "REDIRECT", "@r", "PREFIX", "c:")
		s.do("b", "INCR", "c:1234")
		s.drain("r")

		// NOLOOP: the client's own transaction sends nothing; another client's does.
		s.quiet("n", "HELLO", "3")
		s.do("n", "CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP")
		s.do("n", "MULTI")
		s.do("n", "SET", "x1", "1")
		s.do("n", "SET", "x2", "1")
		s.do("n", "EXEC")
		s.drain("n")
		s.do("b", "MULTI")
		s.do("b", "SET", "x2", "1")
		s.do("b", "SET", "x1", "1")
		s.do("b", "EXEC")
		s.drain("n")

		// The client's own BCAST push follows its reply.
		s.do("a", "CLIENT", "TRACKING", "OFF")
		s.quiet("a", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "y")
		s.do("a", "MSET", "y2", "1", "y1", "1")
		s.drain("a")
	})
}

// TestTrackingScripts checks which keys a script leaves tracked: the keys it declares, once it
// has run a read-only command, as Redis 7.0 does; nothing when it only writes or pings.
func TestTrackingScripts(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.quiet("a", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKING", "ON")
		s.do("b", "MSET", "key2{t}", "1", "key2{t}", "1")
		s.do("a", "EVAL", "redis.call('set', 'key3{t}', 'bar')", "2", "key1{t}", "key2{t}")
		s.do("b", "MSET", "key2{t}", "2", "key1{t}", "2")
		s.drain("a")
		s.do("a", "EVAL", "redis.call('get', 'key3{t}')", "2", "key1{t}", "key2{t}")
		s.do("b", "MSET", "key2{t}", "2", "key1{t}", "2", "key3{t}", "2")
		s.drain("a")
		s.do("a", "EVAL_RO", "redis.call('ping')", "2", "key1{t}", "key2{t}")
		s.do("b", "MSET", "key2{t}", "2", "key1{t}", "2")
		s.drain("a")
		s.do("a", "EVAL_RO", "redis.call('get', 'key1{t}')", "2", "key1{t}", "key2{t}")
		s.do("b", "MSET", "key2{t}", "3", "key1{t}", "3")
		s.drain("a")
		s.do("a", "MULTI")
		s.do("a", "EVAL", "return redis.call('exists', 'zz')", "1", "key4{t}")
		s.do("a", "EXEC")
		s.do("b", "MSET", "key4{t}", "1", "zz", "1")
		s.drain("a")
	})
}

// TestTrackingUnblockedBLMove checks that a client served in BLMOVE gets the invalidation of
// the destination it pushed to after the BLMOVE's reply.
func TestTrackingUnblockedBLMove(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.do("b", "RPUSH", "list2{t}", "a")
		s.quiet("a", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKING", "ON")
		s.do("a", "LRANGE", "list2{t}", "0", "-1")
		if err := s.conn("a").Send("BLMOVE", "list1{t}", "list2{t}", "LEFT", "LEFT", "0"); err != nil {
			s.t.Fatal(err)
		}
		listsWaitBlocked(s.t, s.inst, 1)
		s.do("b", "RPUSH", "list1{t}", "foo")
		s.log("a: BLMOVE -> %s", s.render(s.read("a", "BLMOVE"), false))
		s.drain("a")
	})
}

// TestTrackingReplyOff checks that invalidations reach a client whose replies are off, on its
// own connection (RESP3), through a redirect client that silenced its replies, and as
// tracking-redir-broken.
func TestTrackingReplyOff(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.quiet("a", "HELLO", "3")
		s.do("a", "CLIENT", "TRACKING", "ON")
		s.do("b", "SET", "foo", "bar")
		s.do("a", "GET", "foo")
		s.conn("a").Send("CLIENT", "REPLY", "OFF")
		s.do("b", "SET", "foo", "bar2")
		s.wait("a", 5*time.Second)
		s.do("a", "CLIENT", "REPLY", "ON")
		s.do("a", "PING")

		s.quiet("r", "HELLO", "3")
		s.do("c", "CLIENT", "TRACKING", "ON", "REDIRECT", "@r")
		s.do("c", "GET", "foo")
		s.conn("r").Send("CLIENT", "REPLY", "OFF")
		s.do("b", "SET", "foo", "bar3")
		s.wait("r", 5*time.Second)
		s.do("r", "CLIENT", "REPLY", "ON")
		s.do("r", "PING")

		s.quiet("d", "HELLO", "3")
		s.do("d", "CLIENT", "TRACKING", "ON", "REDIRECT", "@r")
		s.do("d", "GET", "foo")
		s.conn("d").Send("CLIENT", "REPLY", "OFF")
		s.do("r", "QUIT")
		s.close("r")
		time.Sleep(100 * time.Millisecond)
		s.do("b", "SET", "foo", "bar4")
		s.wait("d", 5*time.Second)
		s.do("d", "CLIENT", "REPLY", "ON")
		s.do("d", "PING")
	})
}

// TestTrackingRedirectQuit checks that a redirect client that has answered QUIT is gone for the
// invalidations that follow, subscribed or not: the tracking client gets tracking-redir-broken.
func TestTrackingRedirectQuit(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		for i := 0; i < 8; i++ {
			r := fmt.Sprintf("r%d", i)
			if i%2 == 1 {
				s.do(r, "SUBSCRIBE", "__redis__:invalidate") // its QUIT's reply is queued
			}
			s.quiet("a", "HELLO", "3")
			s.do("a", "CLIENT", "TRACKING", "ON", "REDIRECT", "@"+r)
			s.do("b", "SET", "key1", "1")
			s.do("a", "GET", "key1")
			s.do(r, "QUIT")
			s.do("b", "SET", "key1", "2")
			s.do("a", "PING")
			s.do("a", "CLIENT", "TRACKING", "OFF")
		}
	})
}

// TestTrackingTableMaxKeysLowered checks that lowering tracking-table-max-keys below the keys
// remembered invalidates the excess without waiting for another read, as Redis's cron does.
func TestTrackingTableMaxKeysLowered(t *testing.T) {
	trkCompare(t, func(s *trkSession) {
		s.do("r", "SUBSCRIBE", "__redis__:invalidate")
		s.do("a", "CLIENT", "TRACKING", "ON", "REDIRECT", "@r", "NOLOOP")
		s.do("a", "MSET", "key1{t}", "1", "key2{t}", "2")
		s.do("a", "MGET", "key1{t}", "key2{t}")
		s.do("a", "CONFIG", "SET", "tracking-table-max-keys", "1")
		c := s.conn("r")
		c.Timeout = 5 * time.Second
		r, err := c.ReadReply()
		if err != nil || len(r.Elems) != 3 {
			s.log("r: no invalidation (%v)", err)
		} else {
			s.log("r: got an invalidation of %d key(s)", len(r.Elems[2].Elems))
		}
		info, _ := s.conn("a").Do("INFO", "stats")
		for _, l := range strings.Split(info.Str, "\r\n") {
			if strings.HasPrefix(l, "tracking_total_keys") {
				s.log("info %s", l)
			}
		}
		s.do("a", "CONFIG", "SET", "tracking-table-max-keys", "1000000")
	})
}
