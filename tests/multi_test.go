package tests

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/strata-db/strata/internal/testutil"
)

// txStep is one step of a two-client WATCH scenario: client 0 or 1 runs args, or the step
// sleeps.
type txStep struct {
	who   int
	args  []string
	sleep time.Duration
}

func txA(args ...string) txStep { return txStep{who: 0, args: args} }
func txB(args ...string) txStep { return txStep{who: 1, args: args} }
func txSleep(ms int) txStep     { return txStep{sleep: time.Duration(ms) * time.Millisecond} }

// txRun runs a scenario on fresh connections to inst and returns one rendered line per
// command.
func txRun(t *testing.T, inst *testutil.Instance, steps []txStep) []string {
	t.Helper()
	conns := []*testutil.Conn{dial(t, inst), dial(t, inst)}
	var out []string
	for _, st := range steps {
		if st.sleep > 0 {
			time.Sleep(st.sleep)
			continue
		}
		r, err := conns[st.who].Do(st.args...)
		if err != nil {
			t.Fatalf("%s: client %d: %s: %v", inst.Name, st.who, strings.Join(st.args, " "), err)
		}
		out = append(out, fmt.Sprintf("c%d %s -> %s", st.who, strings.Join(st.args, " "), r))
	}
	return out
}

// txScenarios are WATCH cases that need a second client; each must end with the EXEC whose
// outcome it is about (and may read the result afterwards).
var txScenarios = map[string][]txStep{
	"other client's SET breaks the watch": {
		txA("SET", "k", "1"), txA("WATCH", "k"), txB("SET", "k", "2"),
		txA("MULTI"), txA("SET", "k", "3"), txA("EXEC"), txA("GET", "k")},
	"other client's no-op writes do not": {
		txA("SET", "k", "1"), txA("WATCH", "k", "h", "l", "z", "s"),
		txB("SET", "k", "2", "NX"), txB("HDEL", "h", "f"), txB("LPOP", "l"), txB("ZREM", "z", "m"),
		txB("SREM", "s", "m"), txB("DEL", "nokey"), txB("PERSIST", "k"), txB("EXPIRE", "missing", "10"),
		txB("GET", "k"), txB("LRANGE", "l", "0", "-1"),
		txA("MULTI"), txA("SET", "k", "3"), txA("EXEC"), txA("GET", "k")},
	"other client's EXEC on the key breaks it": {
		txA("WATCH", "k"), txB("MULTI"), txB("INCR", "k"), txB("EXEC"),
		txA("MULTI"), txA("INCR", "k"), txA("EXEC"), txA("GET", "k")},
	"other client's EXEC on other keys does not": {
		txA("WATCH", "k"), txB("MULTI"), txB("INCR", "other"), txB("GET", "k"), txB("EXEC"),
		txA("MULTI"), txA("INCR", "k"), txA("EXEC")},
	"DEL of several keys touches the deleted ones": {
		txA("SET", "a", "1"), txA("WATCH", "b"), txB("DEL", "a", "b"),
		txA("MULTI"), txA("PING"), txA("EXEC"),
		txA("SET", "b", "1"), txA("WATCH", "b"), txB("DEL", "a", "b"),
		txA("MULTI"), txA("PING"), txA("EXEC")},
	"FLUSHALL by another client": {
		txA("SET", "k", "1"), txA("WATCH", "k"), txB("FLUSHALL"),
		txA("MULTI"), txA("PING"), txA("EXEC"),
		txA("WATCH", "k"), txB("FLUSHALL"), txA("MULTI"), txA("PING"), txA("EXEC")},
	"FLUSHDB of another database does not": {
		txA("SET", "k", "1"), txA("WATCH", "k"), txB("SELECT", "3"), txB("SET", "k", "x"), txB("FLUSHDB"),
		txA("MULTI"), txA("PING"), txA("EXEC")},
	"SWAPDB by another client": {
		txB("SELECT", "1"), txB("SET", "k", "1"), txA("WATCH", "k"), txB("SWAPDB", "0", "1"),
		txA("MULTI"), txA("PING"), txA("EXEC"),
		txA("WATCH", "nothere"), txB("SWAPDB", "0", "1"), txA("MULTI"), txA("PING"), txA("EXEC")},
	"a write in another database does not": {
		txA("WATCH", "k"), txB("SELECT", "2"), txB("SET", "k", "1"),
		txA("MULTI"), txA("PING"), txA("EXEC")},
	"a watch in another database is broken there": {
		txA("SELECT", "2"), txA("WATCH", "k"), txB("SELECT", "2"), txB("SET", "k", "1"),
		txA("MULTI"), txA("PING"), txA("EXEC")},
	"MOVE breaks watches in both databases": {
		txA("SET", "k", "1"), txA("WATCH", "k"), txB("MOVE", "k", "5"),
		txA("MULTI"), txA("PING"), txA("EXEC"),
		txA("SELECT", "5"), txA("DEL", "k"), txA("SELECT", "0"), txA("SET", "k", "2"),
		txA("SELECT", "5"), txA("WATCH", "k"), txB("MOVE", "k", "5"),
		txA("MULTI"), txA("PING"), txA("EXEC")},
	"RENAME onto the watched key": {
		txA("SET", "src", "1"), txA("WATCH", "dst"), txB("RENAME", "src", "dst"),
		txA("MULTI"), txA("PING"), txA("EXEC")},
	"EXPIRE and PERSIST": {
		txA("SET", "k", "1"), txA("WATCH", "k"), txB("EXPIRE", "k", "100"),
		txA("MULTI"), txA("PING"), txA("EXEC"),
		txA("WATCH", "k"), txB("PERSIST", "k"), txA("MULTI"), txA("PING"), txA("EXEC")},
	"collection writes": {
		txA("WATCH", "h", "s", "z", "l"), txB("HSET", "h", "f", "v"),
		txA("MULTI"), txA("PING"), txA("EXEC"),
		txA("WATCH", "h", "s", "z", "l"), txB("SADD", "s", "m"), txA("MULTI"), txA("PING"), txA("EXEC"),
		txA("WATCH", "h", "s", "z", "l"), txB("ZADD", "z", "1", "m"), txA("MULTI"), txA("PING"), txA("EXEC"),
		txA("WATCH", "h", "s", "z", "l"), txB("ZADD", "z", "1", "m"), txA("MULTI"), txA("PING"), txA("EXEC"),
		txA("WATCH", "h", "s", "z", "l"), txB("RPUSH", "l", "a"), txA("MULTI"), txA("PING"), txA("EXEC"),
		txA("WATCH", "h", "s", "z", "l"), txB("LMOVE", "l", "l2", "LEFT", "LEFT"), txA("MULTI"), txA("PING"), txA("EXEC")},
	"the expiry cycle deletes the watched key": {
		txA("SET", "k", "1", "PX", "50"), txA("WATCH", "k"), txSleep(400),
		txB("EXISTS", "k"), txA("MULTI"), txA("PING"), txA("EXEC")},
	"a key already expired when watched": {
		txA("SET", "k", "1", "PX", "20"), txSleep(60), txA("WATCH", "k"), txSleep(400),
		txA("MULTI"), txA("PING"), txA("EXEC")},
	"UNWATCH and a second transaction": {
		txA("WATCH", "k"), txB("SET", "k", "1"), txA("UNWATCH"),
		txA("MULTI"), txA("GET", "k"), txA("EXEC"),
		txA("WATCH", "k"), txA("MULTI"), txA("EXEC"), txB("SET", "k", "2"),
		txA("MULTI"), txA("GET", "k"), txA("EXEC")},
}

// TestWatchAcrossClients runs every scenario on Strata and redis-server and compares the
// replies line by line.
func TestWatchAcrossClients(t *testing.T) {
	strata := testutil.StartStrata(t)
	ref := testutil.MaybeStartRedis(t)
	for name, steps := range txScenarios {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			testutil.FlushAll(t, strata)
			got := txRun(t, strata, steps)
			if ref == nil {
				t.Logf("no redis-server: checking that the scenario runs\n%s", strings.Join(got, "\n"))
				return
			}
			testutil.FlushAll(t, ref)
			want := txRun(t, ref, steps)
			if testing.Verbose() {
				t.Logf("redis-server:\n%s", strings.Join(want, "\n"))
			}
			for i := range want {
				if i >= len(got) || got[i] != want[i] {
					t.Errorf("step %d differs:\n redis:  %s\n strata: %s\n\nredis run:\n%s\n\nstrata run:\n%s",
						i, want[i], at(got, i), strings.Join(want, "\n"), strings.Join(got, "\n"))
					return
				}
			}
		})
	}
}

func at(list []string, i int) string {
	if i < len(list) {
		return list[i]
	}
	return "<missing>"
}

// TestWatchIncrementsAreExact has many clients increment the same few keys with
// WATCH/GET/MULTI/SET/EXEC, retrying when EXEC fails: every increment lands exactly once.
func TestWatchIncrementsAreExact(t *testing.T) {
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			testutil.FlushAll(t, inst)
			const clients, perClient, keys = 12, 40, 3
			var wg sync.WaitGroup
			var retries atomic.Int64
			errs := make(chan error, clients)
			for i := 0; i < clients; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					c, err := testutil.Dial(inst.Addr)
					if err != nil {
						errs <- err
						return
					}
					defer c.Close()
					for n := 0; n < perClient; n++ {
						key := fmt.Sprintf("ctr:%d", (i+n)%keys)
						for {
							ok, err := txIncr(c, key)
							if err != nil {
								errs <- err
								return
							}
							if ok {
								break
							}
							retries.Add(1)
						}
					}
				}(i)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			c := dial(t, inst)
			total := int64(0)
			for k := 0; k < keys; k++ {
				r, err := c.Do("GET", fmt.Sprintf("ctr:%d", k))
				if err != nil {
					t.Fatal(err)
				}
				n, _ := strconv.ParseInt(r.Str, 10, 64)
				total += n
			}
			if total != clients*perClient {
				t.Fatalf("counters add up to %d, want %d", total, clients*perClient)
			}
			t.Logf("%d increments, %d retries", total, retries.Load())
		})
	}
}

// txIncr increments key with a watched read-modify-write; false means EXEC failed.
func txIncr(c *testutil.Conn, key string) (bool, error) {
	if r, err := c.Do("WATCH", key); err != nil || r.IsError() {
		return false, fmt.Errorf("WATCH: %v %v", r, err)
	}
	r, err := c.Do("GET", key)
	if err != nil {
		return false, err
	}
	n := int64(0)
	if !r.IsNil() {
		n, _ = strconv.ParseInt(r.Str, 10, 64)
	}
	for _, args := range [][]string{{"MULTI"}, {"SET", key, strconv.FormatInt(n+1, 10)}} {
		if r, err := c.Do(args...); err != nil || r.IsError() {
			return false, fmt.Errorf("%v: %v %v", args, r, err)
		}
	}
	r, err = c.Do("EXEC")
	if err != nil {
		return false, err
	}
	switch {
	case r.IsNil():
		return false, nil
	case r.Kind == testutil.KindArray && len(r.Elems) == 1 && r.Elems[0].Str == "OK":
		return true, nil
	}
	return false, fmt.Errorf("EXEC: %s", r)
}

// TestGoRedisWatchHelper uses go-redis's Watch with TxPipelined, the usual optimistic-locking
// idiom, from many goroutines.
func TestGoRedisWatchHelper(t *testing.T) {
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			testutil.FlushAll(t, inst)
			rdb := testutil.Client(t, inst, func(o *redis.Options) { o.PoolSize = 16 })
			ctx := context.Background()
			incr := func(key string) error {
				for i := 0; i < 1000; i++ {
					err := rdb.Watch(ctx, func(tx *redis.Tx) error {
						n, err := tx.Get(ctx, key).Int()
						if err != nil && !errors.Is(err, redis.Nil) {
							return err
						}
						_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
							pipe.Set(ctx, key, n+1, 0)
							pipe.SAdd(ctx, key+":seen", n+1)
							return nil
						})
						return err
					}, key)
					if errors.Is(err, redis.TxFailedErr) {
						continue
					}
					return err
				}
				return errors.New("too many retries")
			}
			const workers, each = 10, 30
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < each; i++ {
						if err := incr("gr:counter"); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if n, err := rdb.Get(ctx, "gr:counter").Int(); err != nil || n != workers*each {
				t.Fatalf("counter = %d, %v; want %d", n, err, workers*each)
			}
			// Every value was written by exactly one successful transaction.
			if n, err := rdb.SCard(ctx, "gr:counter:seen").Result(); err != nil || n != workers*each {
				t.Fatalf("distinct values = %d, %v; want %d", n, err, workers*each)
			}
		})
	}
}

// TestExecIsAtomic moves units between keys of several types inside MULTI/EXEC while other
// clients read them outside transactions: a reader never sees a transaction half applied.
func TestExecIsAtomic(t *testing.T) {
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			testutil.FlushAll(t, inst)
			c := dial(t, inst)
			const total = 1000
			mustDo(t, c, "OK", "MSET", "acct:a", strconv.Itoa(total), "acct:b", "0")
			mustDo(t, c, "(integer) 1", "HSET", "acct:h", "n", "0")
			var stop atomic.Bool
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			const writers, readers, moves = 4, 3, 150
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					wc, err := testutil.Dial(inst.Addr)
					if err != nil {
						errs <- err
						return
					}
					defer wc.Close()
					for i := 0; i < moves; i++ {
						wc.Send("MULTI")
						wc.Send("DECRBY", "acct:a", "1")
						wc.Send("INCRBY", "acct:b", "1")
						wc.Send("HINCRBY", "acct:h", "n", "1")
						wc.Send("RPUSH", "acct:log", "x")
						wc.Send("EXEC")
						for j := 0; j < 6; j++ {
							r, err := wc.ReadReply()
							if err != nil || r.IsError() {
								errs <- fmt.Errorf("writer: %v %v", r, err)
								return
							}
						}
					}
				}()
			}
			var rwg sync.WaitGroup
			var reads atomic.Int64
			for r := 0; r < readers; r++ {
				rwg.Add(1)
				go func() {
					defer rwg.Done()
					rc, err := testutil.Dial(inst.Addr)
					if err != nil {
						errs <- err
						return
					}
					defer rc.Close()
					for !stop.Load() {
						// One MULTI makes the four reads a consistent snapshot on both servers;
						// each must then agree with the others.
						rc.Send("MULTI")
						rc.Send("MGET", "acct:a", "acct:b")
						rc.Send("HGET", "acct:h", "n")
						rc.Send("LLEN", "acct:log")
						rc.Send("EXEC")
						var last testutil.Reply
						for j := 0; j < 5; j++ {
							if last, err = rc.ReadReply(); err != nil {
								errs <- err
								return
							}
						}
						if len(last.Elems) != 3 {
							errs <- fmt.Errorf("reader EXEC: %s", last)
							return
						}
						a, _ := strconv.Atoi(last.Elems[0].Elems[0].Str)
						b, _ := strconv.Atoi(last.Elems[0].Elems[1].Str)
						h, _ := strconv.Atoi(last.Elems[1].Str)
						l := int(last.Elems[2].Int)
						if a+b != total || b != h || b != l {
							errs <- fmt.Errorf("saw a half-applied transaction: a=%d b=%d h=%d llen=%d", a, b, h, l)
							return
						}
						// A plain MGET must never see a+b != total either.
						r, err := rc.Do("MGET", "acct:a", "acct:b")
						if err != nil {
							errs <- err
							return
						}
						a, _ = strconv.Atoi(r.Elems[0].Str)
						b, _ = strconv.Atoi(r.Elems[1].Str)
						if a+b != total {
							errs <- fmt.Errorf("MGET saw a half-applied transaction: a=%d b=%d", a, b)
							return
						}
						reads.Add(1)
					}
				}()
			}
			wg.Wait()
			stop.Store(true)
			rwg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			mustDo(t, c, fmt.Sprintf("%q", strconv.Itoa(writers*moves)), "GET", "acct:b")
			t.Logf("%d consistent reads", reads.Load())
		})
	}
}

// TestExecWakesBlockedClients checks that a push inside EXEC serves a client blocked on the
// list once the transaction commits, and that the blocked client sees the whole transaction.
func TestExecWakesBlockedClients(t *testing.T) {
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			testutil.FlushAll(t, inst)
			b := dial(t, inst)
			if err := b.Send("BLPOP", "wq", "5"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			c := dial(t, inst)
			mustDo(t, c, "OK", "MULTI")
			mustDo(t, c, "QUEUED", "RPUSH", "wq", "job1", "job2")
			mustDo(t, c, "QUEUED", "SET", "wq:state", "pushed")
			mustDo(t, c, "1) (integer) 2\n2) OK", "EXEC")
			r, err := b.ReadReply()
			if err != nil || r.String() != "1) \"wq\"\n2) \"job1\"" {
				t.Fatalf("blocked client got %s, %v", r, err)
			}
			mustDo(t, b, `"pushed"`, "GET", "wq:state")
			mustDo(t, c, `1) "job2"`, "LRANGE", "wq", "0", "-1")
		})
	}
}

// TestWatchSeesScriptWrites: a script that writes a watched key fails the watcher's EXEC, on
// the normal path and inside another client's transaction.
func TestWatchSeesScriptWrites(t *testing.T) {
	probe := dial(t, testutil.StartStrata(t))
	if r, err := probe.Do("EVAL", "return 1", "0"); err != nil || r.IsError() {
		t.Fatalf("EVAL: %v %v", r, err)
	}
	script := "redis.call('SET', KEYS[1], ARGV[1]) return 1"
	steps := []txStep{
		txA("SET", "k", "1"), txA("WATCH", "k"), txB("EVAL", script, "1", "k", "2"),
		txA("MULTI"), txA("GET", "k"), txA("EXEC"),
		txA("WATCH", "k"), txB("MULTI"), txB("EVAL", script, "1", "k", "3"), txB("EXEC"),
		txA("MULTI"), txA("GET", "k"), txA("EXEC"),
		txA("WATCH", "k"), txB("EVAL", script, "1", "other", "4"),
		txA("MULTI"), txA("GET", "k"), txA("EXEC"),
	}
	strata := testutil.StartStrata(t)
	got := txRun(t, strata, steps)
	if ref := testutil.MaybeStartRedis(t); ref != nil {
		want := txRun(t, ref, steps)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("redis:\n%s\n\nstrata:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
	}
	for i, want := range map[int]string{5: "(nil array)", 12: "(nil array)", 17: `1) "3"`} {
		if !strings.HasSuffix(got[i], want) {
			t.Errorf("step %d: %s, want %s", i, got[i], want)
		}
	}
}
