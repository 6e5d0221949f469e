package tests

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/strata-db/strata/internal/testutil"
)

// listsBlocked returns INFO's blocked_clients.
func listsBlocked(t *testing.T, inst *testutil.Instance) int {
	t.Helper()
	c := testutil.Connect(t, inst.Addr)
	defer c.Close()
	r, err := c.Do("INFO", "clients")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(r.Text(), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "blocked_clients:"); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	t.Fatalf("%s: no blocked_clients in INFO: %q", inst.Name, r.Text())
	return 0
}

func listsWaitBlocked(t *testing.T, inst *testutil.Instance, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for listsBlocked(t, inst) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: blocked_clients did not reach %d", inst.Name, n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// listsBlockingScenarios run on an instance and return what the clients saw. They are run on
// redis-server and on Strata, and the outcomes compared.
var listsBlockingScenarios = map[string]func(t *testing.T, inst *testutil.Instance) []string{
	// Clients are served in the order they blocked; one push of three elements serves three.
	"order": func(t *testing.T, inst *testutil.Instance) []string {
		var cs []*testutil.Conn
		for i := 0; i < 4; i++ {
			c := testutil.Connect(t, inst.Addr)
			cmd := []string{"BLPOP", "k", "0"}
			if i == 2 {
				cmd = []string{"BRPOP", "other", "k", "0"}
			}
			if err := c.Send(cmd...); err != nil {
				t.Fatal(err)
			}
			listsWaitBlocked(t, inst, i+1)
			cs = append(cs, c)
		}
		p := testutil.Connect(t, inst.Addr)
		var out []string
		r, _ := p.Do("RPUSH", "k", "a", "b", "c")
		out = append(out, r.String())
		for _, c := range cs[:3] {
			r, err := c.ReadReply()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.String())
		}
		listsWaitBlocked(t, inst, 1)
		r, _ = p.Do("LPUSH", "k", "d", "e")
		out = append(out, r.String())
		r, _ = cs[3].ReadReply()
		out = append(out, r.String())
		r, _ = p.Do("LRANGE", "k", "0", "-1")
		return append(out, r.String())
	},
	// A blocked client that disconnects is forgotten: the next push stays in the list.
	"disconnect": func(t *testing.T, inst *testutil.Instance) []string {
		c := testutil.Connect(t, inst.Addr)
		c.Send("BLPOP", "k", "0")
		listsWaitBlocked(t, inst, 1)
		c.Close()
		listsWaitBlocked(t, inst, 0)
		p := testutil.Connect(t, inst.Addr)
		r1, _ := p.Do("RPUSH", "k", "x")
		r2, _ := p.Do("LRANGE", "k", "0", "-1")
		return []string{r1.String(), r2.String()}
	},
	// BLMOVE served by a push pushes to its destination, which serves the next client.
	"chain": func(t *testing.T, inst *testutil.Instance) []string {
		a := testutil.Connect(t, inst.Addr)
		a.Send("BLMOVE", "src", "mid", "RIGHT", "LEFT", "0")
		listsWaitBlocked(t, inst, 1)
		b := testutil.Connect(t, inst.Addr)
		b.Send("BLMPOP", "0", "2", "x", "mid", "RIGHT", "COUNT", "2")
		listsWaitBlocked(t, inst, 2)
		p := testutil.Connect(t, inst.Addr)
		r0, _ := p.Do("RPUSH", "src", "1", "2")
		ra, _ := a.ReadReply()
		rb, _ := b.ReadReply()
		r1, _ := p.Do("LRANGE", "src", "0", "-1")
		r2, _ := p.Do("EXISTS", "mid")
		return []string{r0.String(), ra.String(), rb.String(), r1.String(), r2.String()}
	},
	// Timeouts answer a null array, for every blocking command.
	"timeout": func(t *testing.T, inst *testutil.Instance) []string {
		c := testutil.Connect(t, inst.Addr)
		var out []string
		for _, cmd := range [][]string{{"BLPOP", "k", "0.05"}, {"BRPOP", "k", "j", "0.05"},
			{"BRPOPLPUSH", "k", "d", "0.05"}, {"BLMOVE", "k", "d", "LEFT", "LEFT", "0.05"},
			{"BLMPOP", "0.05", "1", "k", "LEFT"}} {
			start := time.Now()
			r, err := c.Do(cmd...)
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d < 40*time.Millisecond {
				t.Errorf("%s: %v answered after %v", inst.Name, cmd, d)
			}
			out = append(out, r.String())
		}
		return out
	},
}

func TestListsBlockingVsRedis(t *testing.T) {
	want := testutil.StartRedis(t)
	got := testutil.StartStrata(t)
	for name, sc := range listsBlockingScenarios {
		t.Run(name, func(t *testing.T) {
			testutil.FlushAll(t, want)
			testutil.FlushAll(t, got)
			w, g := sc(t, want), sc(t, got)
			if fmt.Sprint(w) != fmt.Sprint(g) {
				t.Errorf("outcomes differ\nredis:  %q\nstrata: %q", w, g)
			}
			t.Logf("both: %q", g)
		})
	}
}

// TestListsBlockingExactlyOnce: go-redis consumers blocked in BLPOP/BRPOP/BLMPOP while
// producers push concurrently: every element is received exactly once.
func TestListsBlockingExactlyOnce(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := context.Background()
	const consumers, producers, perProducer = 8, 4, 50
	total := producers * perProducer
	var mu sync.Mutex
	seen := map[string]int{}
	received := 0
	done := make(chan struct{})
	var cw sync.WaitGroup
	for i := 0; i < consumers; i++ {
		cw.Add(1)
		go func(i int) {
			defer cw.Done()
			rc := testutil.Client(t, inst)
			for {
				select {
				case <-done:
					return
				default:
				}
				var vals []string
				var err error
				switch i % 3 {
				case 0:
					var kv []string
					kv, err = rc.BLPop(ctx, 200*time.Millisecond, "q").Result()
					if err == nil {
						vals = kv[1:]
					}
				case 1:
					var kv []string
					kv, err = rc.BRPop(ctx, 200*time.Millisecond, "none", "q").Result()
					if err == nil {
						vals = kv[1:]
					}
				default:
					_, vals, err = rc.BLMPop(ctx, 200*time.Millisecond, "left", 3, "q").Result()
				}
				if errors.Is(err, redis.Nil) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, v := range vals {
					seen[v]++
				}
				received += len(vals)
				if received >= total {
					select {
					case <-done:
					default:
						close(done)
					}
				}
				mu.Unlock()
			}
		}(i)
	}
	var pw sync.WaitGroup
	for p := 0; p < producers; p++ {
		pw.Add(1)
		go func(p int) {
			defer pw.Done()
			rc := testutil.Client(t, inst)
			for i := 0; i < perProducer; i++ {
				if err := rc.RPush(ctx, "q", fmt.Sprintf("%d-%d", p, i)).Err(); err != nil {
					t.Error(err)
					return
				}
				if i%10 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}(p)
	}
	pw.Wait()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("only %d of %d elements received", received, total)
	}
	cw.Wait()
	if len(seen) != total {
		t.Fatalf("%d distinct elements received, want %d", len(seen), total)
	}
	var dup []string
	for v, n := range seen {
		if n != 1 {
			dup = append(dup, v)
		}
	}
	sort.Strings(dup)
	if len(dup) > 0 {
		t.Fatalf("received more than once: %v", dup)
	}
	rc := testutil.Client(t, inst)
	if n, _ := rc.Exists(ctx, "q").Result(); n != 0 {
		t.Fatal("list left behind")
	}
}

// TestListsBlockingTimeoutGoRedis: a go-redis BLPOP with a timeout gets redis.Nil after about
// the timeout, and a push before it ends delivers the element.
func TestListsBlockingTimeoutGoRedis(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := context.Background()
	rc := testutil.Client(t, inst)
	start := time.Now()
	if _, err := rc.BLPop(ctx, 300*time.Millisecond, "k").Result(); !errors.Is(err, redis.Nil) {
		t.Fatalf("BLPOP = %v, want redis.Nil", err)
	}
	if d := time.Since(start); d < 280*time.Millisecond || d > 3*time.Second {
		t.Fatalf("timed out after %v", d)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		testutil.Client(t, inst).LPush(ctx, "k", "v")
	}()
	v, err := rc.BLMove(ctx, "k", "dst", "LEFT", "RIGHT", 5*time.Second).Result()
	if err != nil || v != "v" {
		t.Fatalf("BLMOVE = %q, %v", v, err)
	}
	if got, _ := rc.LRange(ctx, "dst", 0, -1).Result(); fmt.Sprint(got) != "[v]" {
		t.Fatalf("dst = %v", got)
	}
}
