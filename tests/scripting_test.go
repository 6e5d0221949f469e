package tests

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// TestScriptingTranscripts compares the scripting and functions transcripts with redis-server.
func TestScriptingTranscripts(t *testing.T) {
	want := testutil.StartRedis(t)
	got := testutil.StartStrata(t)
	for _, f := range []string{"testdata/scripting.txt", "testdata/functions.txt"} {
		testutil.DiffFilesBetween(t, f, want, got)
	}
}

// scriptDo runs one command on c and fails the test on an I/O error.
func scriptDo(t *testing.T, c *testutil.Conn, args ...string) testutil.Reply {
	t.Helper()
	r, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%s: %v", strings.Join(args, " "), err)
	}
	return r
}

// TestScriptIncrConcurrent: many clients run read-modify-write scripts on the same keys; a
// script runs atomically, so no increment is lost.
func TestScriptIncrConcurrent(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := testutil.Client(t, inst, func(o *redis.Options) { o.PoolSize = 32 })
	ctx := context.Background()
	// GET then SET: without atomicity concurrent runs would overwrite each other.
	script := redis.NewScript(`
local v = tonumber(redis.call('get', KEYS[1]) or '0')
redis.call('set', KEYS[1], v + 1)
redis.call('hincrby', KEYS[2], 'n', 2)
redis.call('rpush', KEYS[3], ARGV[1])
return v + 1`)
	const clients, runs = 16, 150
	var wg sync.WaitGroup
	var failures atomic.Int64
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < runs; j++ {
				if err := script.Run(ctx, c, []string{"ctr", "h", "log"}, i).Err(); err != nil {
					failures.Add(1)
					t.Errorf("script run: %v", err)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	if failures.Load() > 0 {
		return
	}
	if v, err := c.Get(ctx, "ctr").Int(); err != nil || v != clients*runs {
		t.Errorf("ctr = %d, %v; want %d", v, err, clients*runs)
	}
	if v, err := c.HGet(ctx, "h", "n").Int(); err != nil || v != 2*clients*runs {
		t.Errorf("h.n = %d, %v; want %d", v, err, 2*clients*runs)
	}
	if n, err := c.LLen(ctx, "log").Result(); err != nil || n != clients*runs {
		t.Errorf("log length = %d, %v; want %d", n, err, clients*runs)
	}
}

// TestScriptLock is a lock written the way client libraries write it: SET NX PX to take it,
// and a compare-and-delete script, run through go-redis's Script (EVALSHA, then EVAL on
// NOSCRIPT), to release it only by its owner. The lock guards a non-atomic counter update.
func TestScriptLock(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := testutil.Client(t, inst, func(o *redis.Options) { o.PoolSize = 16 })
	ctx := context.Background()
	unlock := redis.NewScript(`
if redis.call("get", KEYS[1]) == ARGV[1] then
	return redis.call("del", KEYS[1])
else
	return 0
end`)

	// The first Run finds no cached script: EVALSHA answers NOSCRIPT and go-redis falls back
	// to EVAL, which caches it.
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.SetNX(ctx, "lock", "token-a", 10*time.Second).Result(); err != nil || !ok {
		t.Fatalf("SET NX: %v, %v", ok, err)
	}
	if n, err := unlock.Run(ctx, c, []string{"lock"}, "token-b").Int(); err != nil || n != 0 {
		t.Fatalf("unlock with another token = %d, %v; want 0", n, err)
	}
	if v, _ := c.Get(ctx, "lock").Result(); v != "token-a" {
		t.Fatalf("lock holds %q after a foreign unlock", v)
	}
	if ex, err := unlock.Exists(ctx, c).Result(); err != nil || !ex[0] {
		t.Fatalf("SCRIPT EXISTS after Run = %v, %v", ex, err)
	}
	if n, err := unlock.Run(ctx, c, []string{"lock"}, "token-a").Int(); err != nil || n != 1 {
		t.Fatalf("unlock by the owner = %d, %v; want 1", n, err)
	}
	if n, _ := c.Exists(ctx, "lock").Result(); n != 0 {
		t.Fatal("lock still held after unlock")
	}

	// Contending workers: the counter is read and written back without atomicity, so only
	// mutual exclusion keeps the total exact.
	const workers, rounds = 8, 25
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				token := fmt.Sprintf("w%d-r%d", w, r)
				for {
					ok, err := c.SetNX(ctx, "mutex", token, 5*time.Second).Result()
					if err != nil {
						t.Errorf("SET NX: %v", err)
						return
					}
					if ok {
						break
					}
					time.Sleep(time.Millisecond)
				}
				v, _ := c.Get(ctx, "guarded").Int()
				if err := c.Set(ctx, "guarded", v+1, 0).Err(); err != nil {
					t.Errorf("SET: %v", err)
				}
				if n, err := unlock.Run(ctx, c, []string{"mutex"}, token).Int(); err != nil || n != 1 {
					t.Errorf("unlock = %d, %v", n, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if v, err := c.Get(ctx, "guarded").Int(); err != nil || v != workers*rounds {
		t.Errorf("guarded = %d, %v; want %d", v, err, workers*rounds)
	}
}

// TestScriptRateLimiter is a fixed-window rate limiter: of many concurrent requests in one
// window exactly the limit pass, and the window expires.
func TestScriptRateLimiter(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := testutil.Client(t, inst, func(o *redis.Options) { o.PoolSize = 32 })
	ctx := context.Background()
	limiter := redis.NewScript(`
local n = redis.call('incr', KEYS[1])
if n == 1 then
	redis.call('pexpire', KEYS[1], ARGV[2])
end
if n > tonumber(ARGV[1]) then
	return {0, redis.call('pttl', KEYS[1])}
end
return {1, tonumber(ARGV[1]) - n}`)
	const limit, requests = 10, 64
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < requests; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := limiter.Run(ctx, c, []string{"rl:user1"}, limit, 60000).Int64Slice()
			if err != nil {
				t.Errorf("limiter: %v", err)
				return
			}
			if res[0] == 1 {
				allowed.Add(1)
			} else if res[1] <= 0 || res[1] > 60000 {
				t.Errorf("refused with pttl %d", res[1])
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != limit {
		t.Errorf("%d requests allowed; want %d", allowed.Load(), limit)
	}
	if ttl, err := c.PTTL(ctx, "rl:user1").Result(); err != nil || ttl <= 0 {
		t.Errorf("window TTL = %v, %v", ttl, err)
	}
	// A short window: after it passes, requests are allowed again.
	for i := 0; i < 3; i++ {
		limiter.Run(ctx, c, []string{"rl:user2"}, 2, 100)
	}
	time.Sleep(250 * time.Millisecond)
	if res, err := limiter.Run(ctx, c, []string{"rl:user2"}, 2, 100).Int64Slice(); err != nil || res[0] != 1 {
		t.Errorf("after the window: %v, %v", res, err)
	}
}

// TestScriptBusyAndKill: past busy-reply-threshold other clients get BUSY, SCRIPT KILL stops
// a script that has not written, refuses one that has, and SHUTDOWN NOSAVE stops that one
// dropping its writes. FUNCTION KILL and FUNCTION STATS do the same for functions.
func TestScriptBusyAndKill(t *testing.T) {
	inst := testutil.StartStrata(t, func(c *config.Config) { c.BusyReplyThreshold = 100 })
	a := testutil.Connect(t, inst.Addr)
	b := testutil.Connect(t, inst.Addr)

	if r := scriptDo(t, b, "SCRIPT", "KILL"); r.String() != "(error) NOTBUSY No scripts in execution right now." {
		t.Errorf("SCRIPT KILL with nothing running: %s", r)
	}
	// An endless script, even one that catches errors with pcall, is stopped by SCRIPT KILL.
	done := make(chan testutil.Reply, 1)
	go func() {
		r, _ := a.Do("EVAL", "while true do pcall(function() local x = 1 end) end", "0")
		done <- r
	}()
	scriptWaitBusy(t, b, "SCRIPT KILL")
	if r := scriptDo(t, b, "GET", "x"); r.String() != "(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE." {
		t.Errorf("GET while busy: %s", r)
	}
	if r := scriptDo(t, b, "FUNCTION", "KILL"); r.String() != "(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE." {
		t.Errorf("FUNCTION KILL on an EVAL: %s", r)
	}
	if r := scriptDo(t, b, "FUNCTION", "STATS"); !r.IsError() {
		t.Errorf("FUNCTION STATS during an EVAL: %s", r)
	}
	if r := scriptDo(t, b, "SCRIPT", "KILL"); r.String() != "OK" {
		t.Errorf("SCRIPT KILL: %s", r)
	}
	select {
	case r := <-done:
		if !strings.HasPrefix(r.Str, "ERR Script killed by user with SCRIPT KILL... script: ") {
			t.Errorf("killed script answered %s", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the script was not killed")
	}
	if r := scriptDo(t, b, "PING"); r.String() != "PONG" {
		t.Errorf("PING after the kill: %s", r)
	}

	// A function: FUNCTION KILL stops it; SCRIPT KILL refuses; FUNCTION STATS shows it.
	scriptDo(t, b, "FUNCTION", "LOAD", "#!lua name=spin\nredis.register_function('spin', function() while true do end end)")
	go func() {
		r, _ := a.Do("FCALL", "spin", "0")
		done <- r
	}()
	scriptWaitBusy(t, b, "FUNCTION KILL")
	if r := scriptDo(t, b, "SCRIPT", "KILL"); r.String() != "(error) BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE." {
		t.Errorf("SCRIPT KILL on a function: %s", r)
	}
	if r := scriptDo(t, b, "FUNCTION", "STATS"); !strings.Contains(r.String(), `"spin"`) || !strings.Contains(r.String(), "duration_ms") {
		t.Errorf("FUNCTION STATS: %s", r)
	}
	if r := scriptDo(t, b, "FUNCTION", "KILL"); r.String() != "OK" {
		t.Errorf("FUNCTION KILL: %s", r)
	}
	if r := <-done; !strings.HasPrefix(r.Str, "ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:") {
		t.Errorf("killed function answered %s", r)
	}

	// A script that wrote cannot be killed; SHUTDOWN NOSAVE stops it and drops its writes.
	go func() {
		r, _ := a.Do("EVAL", "redis.call('set', 'written', '1') while true do end", "0")
		done <- r
	}()
	scriptWaitBusy(t, b, "SCRIPT KILL")
	if r := scriptDo(t, b, "SCRIPT", "KILL"); !strings.HasPrefix(r.Str, "UNKILLABLE Sorry the script already executed write commands") {
		t.Errorf("SCRIPT KILL after a write: %s", r)
	}
	b.Do("SHUTDOWN", "NOSAVE") // the server closes the connection
	select {
	case r := <-done:
		if !r.IsError() {
			t.Errorf("script stopped by SHUTDOWN NOSAVE answered %s", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("SHUTDOWN NOSAVE did not stop the script")
	}
	c := testutil.Connect(t, inst.Addr)
	if r := scriptDo(t, c, "EXISTS", "written"); r.String() != "(integer) 0" {
		t.Errorf("the write of the script stopped by SHUTDOWN NOSAVE survived: %s", r)
	}
}

// scriptWaitBusy polls c with PING until the server answers BUSY naming kill.
func scriptWaitBusy(t *testing.T, c *testutil.Conn, kill string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		r := scriptDo(t, c, "PING")
		if r.IsError() {
			if !strings.Contains(r.Str, "You can only call "+kill) {
				t.Fatalf("PING while busy: %s", r)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the server never answered BUSY")
}

// TestScriptWaitsBelowThreshold: before the threshold a script is simply atomic: other
// clients' commands on keys wait for it and see all of its writes.
func TestScriptWaitsBelowThreshold(t *testing.T) {
	inst := testutil.StartStrata(t)
	a := testutil.Connect(t, inst.Addr)
	b := testutil.Connect(t, inst.Addr)
	done := make(chan testutil.Reply, 1)
	go func() {
		r, _ := a.Do("EVAL", `
redis.call('set', 'first', '1')
local x = 0
for i = 1, tonumber(ARGV[1]) do x = x + i end
redis.call('set', 'second', '2')
return 'done'`, "0", "3000000")
		done <- r
	}()
	time.Sleep(50 * time.Millisecond)
	r := scriptDo(t, b, "MGET", "first", "second")
	if r.String() != "1) \"1\"\n2) \"2\"" {
		t.Errorf("MGET during the script saw a partial state: %s", r)
	}
	if r := <-done; r.String() != `"done"` {
		t.Errorf("script: %s", r)
	}
}

// TestScriptWakesBlockedClient: a push made by a script serves a client blocked on the list.
func TestScriptWakesBlockedClient(t *testing.T) {
	inst := testutil.StartStrata(t)
	a := testutil.Connect(t, inst.Addr)
	b := testutil.Connect(t, inst.Addr)
	got := make(chan testutil.Reply, 1)
	go func() {
		r, _ := a.Do("BLPOP", "jobs", "5")
		got <- r
	}()
	time.Sleep(100 * time.Millisecond)
	scriptDo(t, b, "EVAL", "return redis.call('rpush', KEYS[1], ARGV[1])", "1", "jobs", "job-1")
	select {
	case r := <-got:
		if r.String() != "1) \"jobs\"\n2) \"job-1\"" {
			t.Errorf("BLPOP got %s", r)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the blocked client was not woken by the script's push")
	}
}

// TestScriptInTransaction: EVAL inside MULTI runs at EXEC; a script's write breaks another
// client's WATCH.
func TestScriptInTransaction(t *testing.T) {
	inst := testutil.StartStrata(t)
	a := testutil.Connect(t, inst.Addr)
	b := testutil.Connect(t, inst.Addr)
	scriptDo(t, a, "MULTI")
	scriptDo(t, a, "EVAL", "return redis.call('incr', KEYS[1])", "1", "tx")
	scriptDo(t, a, "EVAL", "return redis.call('incr', KEYS[1])", "1", "tx")
	if r := scriptDo(t, a, "EXEC"); r.String() != "1) (integer) 1\n2) (integer) 2" {
		t.Errorf("EXEC: %s", r)
	}
	scriptDo(t, a, "WATCH", "tx")
	scriptDo(t, b, "EVAL", "return redis.call('set', KEYS[1], 'changed')", "1", "tx")
	scriptDo(t, a, "MULTI")
	scriptDo(t, a, "GET", "tx")
	if r := scriptDo(t, a, "EXEC"); !r.IsNil() {
		t.Errorf("EXEC after a script changed the watched key: %s", r)
	}
	// A script inside another client's EXEC breaks the watch too.
	scriptDo(t, a, "WATCH", "tx")
	scriptDo(t, b, "MULTI")
	scriptDo(t, b, "EVAL", "redis.call('select', 0) return redis.call('append', KEYS[1], '!')", "1", "tx")
	if r := scriptDo(t, b, "EXEC"); r.String() != "1) (integer) 8" {
		t.Errorf("EXEC of a script: %s", r)
	}
	scriptDo(t, a, "MULTI")
	scriptDo(t, a, "GET", "tx")
	if r := scriptDo(t, a, "EXEC"); !r.IsNil() {
		t.Errorf("EXEC after a script in another EXEC changed the watched key: %s", r)
	}
}

// TestFunctionsPersistAndDump: libraries survive a restart, and FUNCTION DUMP/RESTORE round
// trip with every policy.
func TestFunctionsPersistAndDump(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := context.Background()
	c := testutil.Client(t, inst)
	lib1 := "#!lua name=lib1\nredis.register_function('hello', function(keys, args) return 'hello ' .. args[1] end)"
	lib2 := "#!lua name=lib2\nredis.register_function{function_name='twice', callback=function(keys) return redis.call('incrby', keys[1], 2) end}"
	for _, code := range []string{lib1, lib2} {
		if err := c.FunctionLoad(ctx, code).Err(); err != nil {
			t.Fatal(err)
		}
	}
	inst.Restart(t)
	c = testutil.Client(t, inst)
	if v, err := c.FCall(ctx, "hello", nil, "world").Text(); err != nil || v != "hello world" {
		t.Fatalf("FCALL after restart: %q, %v", v, err)
	}
	if v, err := c.FCall(ctx, "twice", []string{"n"}).Int(); err != nil || v != 2 {
		t.Fatalf("FCALL twice: %d, %v", v, err)
	}
	dump, err := c.FunctionDump(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.FunctionRestore(ctx, dump).Err(); err == nil || !strings.Contains(err.Error(), "Library lib1 already exists") {
		t.Errorf("RESTORE APPEND over the same libraries: %v", err)
	}
	if err := c.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.FCall(ctx, "hello", nil, "x").Err(); err == nil || !strings.Contains(err.Error(), "Function not found") {
		t.Errorf("FCALL after FLUSH: %v", err)
	}
	if err := c.FunctionRestore(ctx, dump).Err(); err != nil {
		t.Fatalf("RESTORE: %v", err)
	}
	if err := c.Do(ctx, "FUNCTION", "RESTORE", dump, "REPLACE").Err(); err != nil {
		t.Errorf("RESTORE REPLACE: %v", err)
	}
	if err := c.FunctionLoad(ctx, "#!lua name=lib3\nredis.register_function('three', function() return 3 end)").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "FUNCTION", "RESTORE", dump, "FLUSH").Err(); err != nil {
		t.Errorf("RESTORE FLUSH: %v", err)
	}
	libs, err := c.FunctionList(ctx, redis.FunctionListQuery{}).Result()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range libs {
		names = append(names, l.Name)
	}
	if strings.Join(names, ",") != "lib1,lib2" {
		t.Errorf("libraries after RESTORE FLUSH: %v", names)
	}
	// A library replaced by another defining the same function name elsewhere is refused.
	conflict := "#!lua name=lib9\nredis.register_function('hello', function() return 9 end)"
	if err := c.FunctionLoad(ctx, conflict).Err(); err == nil || !strings.Contains(err.Error(), "Function hello already exists") {
		t.Errorf("conflicting function name: %v", err)
	}
	inst.Restart(t)
	c = testutil.Client(t, inst)
	if v, err := c.FCall(ctx, "hello", nil, "again").Text(); err != nil || v != "hello again" {
		t.Errorf("FCALL after restore and restart: %q, %v", v, err)
	}
	if err := c.FCall(ctx, "three", nil).Err(); err == nil {
		t.Error("lib3, flushed by RESTORE FLUSH, came back after a restart")
	}
	if err := c.Do(ctx, "FUNCTION", "RESTORE", dump[:len(dump)-1]+"x").Err(); err == nil || !strings.Contains(err.Error(), "payload version or checksum are wrong") {
		t.Errorf("RESTORE of a damaged payload: %v", err)
	}
}

// TestScriptGoRedisReplies: go-redis reads script replies of every type, in RESP2 and RESP3.
func TestScriptGoRedisReplies(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		c := testutil.Client(t, inst, func(o *redis.Options) { o.Protocol = proto })
		v, err := c.Eval(ctx, "return {1, 'two', {3}, redis.status_reply('OK'), false}", nil).Slice()
		if err != nil || len(v) != 5 || v[0] != int64(1) || v[1] != "two" || v[3] != "OK" || v[4] != nil {
			t.Errorf("RESP%d array: %#v, %v", proto, v, err)
		}
		if _, err := c.Eval(ctx, "return redis.error_reply('MYERR custom')", nil).Result(); err == nil || err.Error() != "MYERR custom" {
			t.Errorf("RESP%d error reply: %v", proto, err)
		}
		m, err := c.Eval(ctx, "redis.setresp(3) return {map={a=1}}", nil).Result()
		if err != nil {
			t.Errorf("RESP%d map: %v", proto, err)
		}
		if proto == 3 {
			if mm, ok := m.(map[interface{}]interface{}); !ok || mm["a"] != int64(1) {
				t.Errorf("RESP3 map: %#v", m)
			}
		} else if s, ok := m.([]interface{}); !ok || len(s) != 2 {
			t.Errorf("RESP2 map: %#v", m)
		}
		f, err := c.Eval(ctx, "return {double=2.5}", nil).Result()
		if err != nil || fmt.Sprint(f) != "2.5" {
			t.Errorf("RESP%d double: %#v, %v", proto, f, err)
		}
		var rerr redis.Error
		if err := c.EvalSha(ctx, strings.Repeat("0", 40), nil).Err(); !errors.As(err, &rerr) || !strings.HasPrefix(err.Error(), "NOSCRIPT") {
			t.Errorf("RESP%d NOSCRIPT: %v", proto, err)
		}
		n, err := c.EvalRO(ctx, "return #KEYS", []string{"a", "b"}).Int()
		if err != nil || n != 2 {
			t.Errorf("RESP%d EVAL_RO: %d, %v", proto, n, err)
		}
	}
}

// TestScriptCacheInfo: INFO memory counts the scripts SCRIPT LOAD and EVAL cached, and
// SCRIPT FLUSH empties the count.
func TestScriptCacheInfo(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := testutil.Connect(t, inst.Addr)
	cached := func(info string) string {
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "number_of_cached_scripts:"); ok {
				return v
			}
		}
		return "(missing)"
	}
	for i := 0; i < 3; i++ {
		scriptDo(t, c, "SCRIPT", "LOAD", fmt.Sprintf("return %d", i))
	}
	if got := cached(scriptDo(t, c, "INFO", "memory").Str); got != "3" {
		t.Fatalf("number_of_cached_scripts after 3 loads = %s, want 3", got)
	}
	scriptDo(t, c, "EVAL", "return 'eval'", "0")
	if got := cached(scriptDo(t, c, "INFO", "memory").Str); got != "4" {
		t.Fatalf("number_of_cached_scripts after an EVAL = %s, want 4", got)
	}
	for _, mode := range []string{"ASYNC", "SYNC"} {
		scriptDo(t, c, "SCRIPT", "LOAD", "return 'x'")
		scriptDo(t, c, "SCRIPT", "FLUSH", mode)
		if got := cached(scriptDo(t, c, "INFO", "memory").Str); got != "0" {
			t.Fatalf("number_of_cached_scripts after SCRIPT FLUSH %s = %s, want 0", mode, got)
		}
	}
}
