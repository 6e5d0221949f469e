package tests

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/storage"
)

// Large SET values stream into the value log while they arrive (server/stage.go). These tests
// send such SETs in every position a client can put them (alone, pipelined after SELECT, in
// MULTI, with options, refused by syntax, ACL or type errors, cut off by a disconnect) and
// compare every reply with redis-server's.

func bigValue(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return string(b)
}

func short(s string) string {
	if len(s) > 200 {
		return fmt.Sprintf("%q... (%d bytes)", s[:80], len(s))
	}
	return s
}

// stageStep is raw bytes sent at once (written in pieces of random sizes, with pauses, to
// split the values across reads) and the number of replies they produce.
type stageStep struct {
	send    []byte
	replies int
}

func cmds(args ...[]string) stageStep {
	var b []byte
	for _, a := range args {
		b = append(b, testutil.EncodeCommand(a...)...)
	}
	return stageStep{b, len(args)}
}

func runStageSteps(t *testing.T, inst *testutil.Instance, steps []stageStep, seed uint64) []string {
	t.Helper()
	c := dial(t, inst)
	r := rand.New(rand.NewPCG(seed, 1))
	var out []string
	for _, st := range steps {
		b := st.send
		for len(b) > 0 {
			n := min(len(b), 1+r.IntN(200000))
			if err := c.WriteRaw(b[:n]); err != nil {
				t.Fatal(err)
			}
			b = b[n:]
			if r.IntN(4) == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		for range st.replies {
			rep, err := c.ReadReply()
			if err != nil {
				t.Fatalf("%s: %v", inst.Name, err)
			}
			out = append(out, rep.String())
		}
	}
	return out
}

func TestStagedSetMatchesRedis(t *testing.T) {
	a, b, c := bigValue(1, 300000), bigValue(2, 1<<20+17), bigValue(3, 70000)
	steps := []stageStep{
		cmds([]string{"SET", "k", a}, []string{"GET", "k"}, []string{"STRLEN", "k"}),
		cmds([]string{"SET", "k", b, "GET"}, []string{"GET", "k"}),
		cmds([]string{"SET", "k", c, "NX"}, []string{"SET", "k", c, "XX", "EX", "100"}, []string{"TTL", "k"}, []string{"GET", "k"}),
		cmds([]string{"SET", "k", a, "BADOPTION"}, []string{"SET", "k", a, "EX"}, []string{"SET", "k", a, "EX", "-1"}, []string{"GET", "k"}),
		cmds([]string{"SET", "k", a, "NX", "GET"}, []string{"SET", "k", b, "XX", "KEEPTTL", "GET"}, []string{"TTL", "k"}),
		// pipelined after a SELECT: the value lands in database 1
		cmds([]string{"SELECT", "1"}, []string{"SET", "k", a}, []string{"GET", "k"}, []string{"SELECT", "0"}, []string{"GET", "k"}),
		cmds([]string{"MULTI"}, []string{"SET", "m", c}, []string{"GET", "m"}, []string{"APPEND", "m", "tail"}, []string{"EXEC"}),
		cmds([]string{"MULTI"}, []string{"SET", "m2", c, "NOSUCHOPT"}, []string{"EXEC"}, []string{"EXISTS", "m2"}),
		cmds([]string{"RPUSH", "l", "x"}, []string{"SET", "l", a, "GET"}, []string{"SET", "l", a}, []string{"TYPE", "l"}, []string{"GETRANGE", "l", "1000", "1010"}),
		cmds([]string{"SET", "k", a, "PX", "50"}, []string{"PERSIST", "k"}, []string{"RENAME", "k", "k2"}, []string{"GETDEL", "k2"}, []string{"EXISTS", "k2"}),
		cmds([]string{"set", "K", c}, []string{"SeT", "K", a}, []string{"GET", "K"}, []string{"SETRANGE", "K", "5", "zz"}, []string{"GETRANGE", "K", "0", "9"}),
		// a second argument that is not a short key, and other commands with large arguments
		cmds([]string{"SET", strings.Repeat("x", 70000), a}, []string{"GET", strings.Repeat("x", 70000)},
			[]string{"HSET", "h", "f", a}, []string{"HGET", "h", "f"}, []string{"GETSET", "g", c}, []string{"GET", "g"}),
		cmds([]string{"DBSIZE"}, []string{"FLUSHALL"}),
	}
	strata := testutil.StartStrata(t)
	got := runStageSteps(t, strata, steps, 7)
	if err := storage.CheckInvariants(strata.Server.Store()); err != nil {
		t.Fatal(err)
	}
	// Every SET of a large value with a short key was staged (the refused ones too).
	if n := strata.Server.Store().ValueLogStats().Staged; n != 17 {
		t.Errorf("%d values staged, want 17", n)
	}
	redis := testutil.MaybeStartRedis(t)
	if redis == nil {
		t.Skip("redis-server not installed: nothing to compare with")
	}
	want := runStageSteps(t, redis, steps, 8)
	if len(got) != len(want) {
		t.Fatalf("%d replies, redis gave %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("reply %d: strata %s, redis %s", i, short(got[i]), short(want[i]))
		}
	}
}

// A client that goes away in the middle of a large SET leaves the key as it was, and the
// partly written value becomes garbage that the invariants and a restart accept.
func TestStagedSetCutOffByDisconnect(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := dial(t, inst)
	mustDo(t, c, "OK", "SET", "k", "old")
	for _, cut := range []int{1, 100000, 299999, 300000, 300001} {
		raw := testutil.EncodeCommand("SET", "k", bigValue(4, 300000))
		hdr := len(raw) - 300000 - 2
		d := dial(t, inst)
		if err := d.WriteRaw(raw[:hdr+cut]); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		d.Close()
	}
	time.Sleep(50 * time.Millisecond)
	mustDo(t, c, `"old"`, "GET", "k")
	mustDo(t, c, "(integer) 1", "DBSIZE")
	if err := storage.CheckInvariants(inst.Server.Store()); err != nil {
		t.Fatal(err)
	}
	inst.Restart(t)
	c = dial(t, inst)
	mustDo(t, c, `"old"`, "GET", "k")
	v := bigValue(5, 200000)
	mustDo(t, c, "OK", "SET", "k", v)
	if r, err := c.Do("GET", "k"); err != nil || r.Str != v {
		t.Fatalf("GET after the restart: %v, %d bytes", err, len(r.Str))
	}
}

// A user who may not write the key gets Redis's NOPERM, and the value is dropped.
func TestStagedSetRefusedByACL(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := dial(t, inst)
	mustDo(t, c, "OK", "ACL", "SETUSER", "ro", "on", ">pw", "~*", "+@all", "-set")
	mustDo(t, c, "OK", "SET", "k", "old")
	d := dial(t, inst)
	mustDo(t, d, "OK", "AUTH", "ro", "pw")
	r, err := d.Do("SET", "k", bigValue(6, 100000))
	if err != nil || !strings.HasPrefix(r.Str, "NOPERM") {
		t.Fatalf("SET by a user without SET: %v %v", r, err)
	}
	mustDo(t, c, `"old"`, "GET", "k")
	if err := storage.CheckInvariants(inst.Server.Store()); err != nil {
		t.Fatal(err)
	}
}

// Concurrent large SETs and GETs of a few keys: every GET returns one of the values written,
// whole.
func TestStagedSetConcurrent(t *testing.T) {
	inst := testutil.StartStrata(t, func(c *config.Config) { c.AppendFsync = "always" })
	vals := make([]string, 6)
	for i := range vals {
		vals[i] = bigValue(uint64(10+i), 150000+i*30000)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := testutil.Dial(inst.Addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for i := range 20 {
				k := fmt.Sprintf("k%d", (w+i)%3)
				if r, err := c.Do("SET", k, vals[(w*7+i)%len(vals)]); err != nil || r.Str != "OK" {
					errs <- fmt.Errorf("SET: %v %v", r, err)
					return
				}
				r, err := c.Do("GET", fmt.Sprintf("k%d", i%3))
				if err != nil {
					errs <- err
					return
				}
				if !r.IsNil() && !containsValue(vals, r.Str) {
					errs <- fmt.Errorf("GET returned %d bytes that were never written", len(r.Str))
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
	if err := storage.CheckInvariants(inst.Server.Store()); err != nil {
		t.Fatal(err)
	}
}

func containsValue(vals []string, s string) bool {
	for _, v := range vals {
		if v == s {
			return true
		}
	}
	return false
}
