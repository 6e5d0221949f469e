package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// propagationPair is a redis-server with a recorded replica link and a Strata with a recorded
// receiver of its committed writes, for comparing what each propagates.
type propagationPair struct {
	redis, strata       *testutil.Instance
	redisRec, strataRec *testutil.StreamRecorder
	fences              int
}

// startPropagationPair starts both servers; config holds CONFIG SET pairs applied to both
// (lazyfree-lazy-expire).
func startPropagationPair(t *testing.T, config ...string) *propagationPair {
	t.Helper()
	return startPairOn(t, testutil.StartRedis(t), config...)
}

// startPairOn is startPropagationPair with the redis-server given.
func startPairOn(t *testing.T, redis *testutil.Instance, config ...string) *propagationPair {
	t.Helper()
	p := &propagationPair{redis: redis}
	p.strata = testutil.StartStrata(t, activeExpiryFast)
	for _, inst := range []*testutil.Instance{p.redis, p.strata} {
		for i := 0; i+1 < len(config); i += 2 {
			c := testutil.Connect(t, inst.Addr)
			if r, err := c.Do("CONFIG", "SET", config[i], config[i+1]); err != nil || r.IsError() {
				t.Fatalf("%s: CONFIG SET %s: %v %v", inst.Name, config[i], r, err)
			}
		}
	}
	p.redisRec = testutil.AttachReplica(t, p.redis.Addr)
	p.strataRec = testutil.NewStreamRecorder()
	p.strata.Server.SetPropagate(p.strataRec.Add)
	return p
}

func activeExpiryFast(cfg *config.Config) { cfg.ActiveExpireHz = 100 }

// fence writes a marker key through conn on both servers and waits until each stream carries
// it; the streams up to it are then complete. It returns the streams without the markers.
func (p *propagationPair) fence(t *testing.T, redisConn, strataConn *testutil.Conn) (want, got []testutil.Propagated) {
	t.Helper()
	p.fences++
	val := fmt.Sprint("fence-", p.fences)
	for _, x := range []struct {
		c   *testutil.Conn
		rec *testutil.StreamRecorder
		out *[]testutil.Propagated
	}{{redisConn, p.redisRec, &want}, {strataConn, p.strataRec, &got}} {
		if r, err := x.c.Do("SET", "__fence__", val); err != nil || r.IsError() {
			t.Fatalf("fence: %v %v", r, err)
		}
		isFence := func(c testutil.Propagated) bool {
			return len(c.Args) == 3 && c.Args[0] == "SET" && c.Args[1] == "__fence__" && c.Args[2] == val
		}
		if ok, err := x.rec.WaitFor(5*time.Second, isFence); !ok {
			t.Fatalf("fence %s not propagated (%v): %v", val, err, x.rec.Commands())
		}
		for _, c := range x.rec.Commands() {
			if len(c.Args) > 1 && c.Args[1] == "__fence__" {
				continue
			}
			*x.out = append(*x.out, c)
		}
		x.rec.Reset()
	}
	return want, got
}

// runPropagation runs a transcript (testutil.ParseScript's format) on both servers, each on one
// connection, and fails when the two write streams differ command by command.
func runPropagation(t *testing.T, p *propagationPair, script string) {
	t.Helper()
	steps, err := testutil.ParseScript(script)
	if err != nil {
		t.Fatal(err)
	}
	rc, sc := testutil.Connect(t, p.redis.Addr), testutil.Connect(t, p.strata.Addr)
	for _, c := range []*testutil.Conn{rc, sc} {
		for _, st := range steps {
			if st.Sleep > 0 {
				time.Sleep(st.Sleep)
				continue
			}
			if _, err := c.Do(st.Args...); err != nil {
				t.Fatalf("line %d %q: %v", st.Line, st.Text, err)
			}
		}
		c.Do("SELECT", "0")
	}
	want, got := p.fence(t, rc, sc)
	maskRandomPops(want)
	maskRandomPops(got)
	if len(want) == 0 {
		t.Fatalf("redis-server propagated nothing for the transcript")
	}
	if d := testutil.DiffStreams(want, got); d != "" {
		t.Errorf("write streams differ: %s\nredis:\n%s\nstrata:\n%s", d, render(want), render(got))
	}
}

// maskRandomPops replaces the members of each run of several SREMs of one key by "?": SPOP key
// count pops members at random, so only the number of SREMs it propagates can be compared.
func maskRandomPops(s []testutil.Propagated) {
	isSRem := func(c testutil.Propagated) bool { return c.Args[0] == "SREM" && len(c.Args) == 3 }
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && isSRem(s[j]) && s[j].DB == s[i].DB && s[j].Args[1] == s[i].Args[1] {
			j++
		}
		for k := i; j-i > 1 && k < j; k++ {
			s[k].Args[2] = "?"
		}
		i = max(j, i+1)
	}
}

func render(s []testutil.Propagated) string {
	var b strings.Builder
	for _, c := range s {
		b.WriteString("  " + c.String() + "\n")
	}
	return b.String()
}

func TestPropagationStrings(t *testing.T) {
	p := startPropagationPair(t)
	runPropagation(t, p, `
set a 1
set a 2 nx
set b 1 ex 100
set b 2 px 100000 get
set c 1 exat 4102444800
set c 2 pxat 4102444800000
set d 1 keepttl
setex e 100 v
psetex f 100000 v
getex b ex 200
getex b persist
getex b persist
getex c pxat 4102444801000
getex a
getdel a
getdel a
incrbyfloat n 1.5
incrbyfloat n 2
set t 1 ex 100
incrbyfloat t 0.25
incr i
append s x
setrange s 3 y
mset m1 1 m2 2
msetnx m1 1 m3 3
getset s z
set neg 1 px -5
set big 1 ex 100 get
set big 2 xx get
`)
	runPropagation(t, p, `
set old 1 exat 1
!sleep 300
`)
}

func TestPropagationExpire(t *testing.T) {
	p := startPropagationPair(t)
	runPropagation(t, p, `
set k 1
expire k 100
pexpire k 200000 gt
expireat k 4102444800
pexpireat k 4102444800000
expire k 50 nx
expire missing 100
persist k
persist k
set gone 1
expire gone -1
set gone2 1
pexpireat gone2 1
hset h f v
expire h 0
`)
	q := startPropagationPair(t, "lazyfree-lazy-expire", "yes")
	runPropagation(t, q, `
set gone 1
expire gone -1
set g2 1 ex 100
getex g2 pxat 1
`)
}

func TestPropagationCollections(t *testing.T) {
	p := startPropagationPair(t)
	runPropagation(t, p, `
hset h a 1 b 2
hincrbyfloat h a 1.5
hincrbyfloat h c 2
hincrby h b 3
hdel h a
sadd s a
srandmember s
srandmember s 5
spop s
spop s
sadd s2 a b c
spop s2 2
spop s2 5
sadd s3 a b
spop s3 0
spop missing
rpush l a b c d e
lpop l
rpop l 2
lmpop 1 l left count 1
lmpop 2 nol l right count 5
lmpop 1 nol left
zadd z 1 a 2 b 3 c 4 d
zpopmin z
zmpop 1 z max count 2
zpopmax z 5
zmpop 1 z min
zadd z2 1 a 2 b
zincrby z2 2 a
zrem z2 b
pfadd hll a b c
pfcount hll
pfcount hll
pfadd hll a
pfcount hll
`)
}

func TestPropagationStreams(t *testing.T) {
	p := startPropagationPair(t)
	runPropagation(t, p, `
xadd s 1-1 f a
xadd s 1-* f b
xadd s 5-5 f c
xadd s maxlen ~ 1 6-1 f d
xadd s minid ~ 2 7-1 f e
xadd s minid = 100 8-1 f gone
xadd s2 minid ~ 100 9-1 f gone
xtrim s maxlen = 1
xadd s3 1-1 a 1
xadd s3 2-1 a 2
xadd s3 3-1 a 3
xgroup create s3 g 0
xreadgroup group g alice count 2 streams s3 >
xreadgroup group g bob noack streams s3 >
xack s3 g 1-1
xclaim s3 g carol 0 2-1
xautoclaim s3 g dave 0 0
xgroup setid s3 g 1-1
xgroup createconsumer s3 g erin
xgroup delconsumer s3 g erin
xdel s3 3-1
xsetid s3 9-9
xgroup destroy s3 g
`)
}

func TestPropagationKeyspace(t *testing.T) {
	p := startPropagationPair(t)
	c := testutil.Connect(t, p.redis.Addr)
	c.Do("SET", "dumped", "val")
	testutil.Connect(t, p.strata.Addr).Do("SET", "dumped", "val")
	dump, err := c.Do("DUMP", "dumped")
	if err != nil || dump.Kind != testutil.KindBulk {
		t.Fatalf("DUMP: %v %v", dump, err)
	}
	var quoted strings.Builder
	quoted.WriteByte('"')
	for _, b := range []byte(dump.Str) {
		fmt.Fprintf(&quoted, "\\x%02x", b)
	}
	quoted.WriteByte('"')
	runPropagation(t, p, strings.ReplaceAll(`
set a 1
rename a b
renamenx b c
copy c d
copy c e db 2
move e 3
select 3
set x 1
select 0
swapdb 0 3
select 3
set y 1
flushdb
select 0
set z 1 ex 100
restore r 0 DUMP
restore r2 100000 DUMP
restore r3 4102444800000 DUMP absttl
restore r3 0 DUMP replace
restore r3 1 DUMP replace absttl
restore rnew 1 DUMP absttl
touch r r2
object encoding r
del b c d missing
unlink z
rpush src 3 1 2
sort src store dst
sort src
geoadd g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
geosearchstore gd g fromlonlat 15 37 byradius 200 km asc
georadius g 15 37 200 km store gr
flushall
`, "DUMP", quoted.String()))
}

func TestPropagationMultiExec(t *testing.T) {
	p := startPropagationPair(t)
	runPropagation(t, p, `
multi
set a 1
incr a
get a
exec
multi
set b 1
get b
exec
multi
get a
exec
multi
set c 1
expire c 100
select 2
set d 1
exec
select 0
multi
set e 1 nx
set e 2 nx
exec
multi
set e 3 nx
incr e
exec
multi
eval "redis.call('set', KEYS[1], 'v'); redis.call('select', 6); redis.call('incrbyfloat', KEYS[1], 1); return 1" 1 ms
get ms
lpush ml a
exec
multi
eval "redis.call('incrbyfloat', KEYS[1], 1); return 1" 1 ms2
exec
multi
publish ch m
exec
eval "redis.call('publish', 'ch', 'n'); return 1" 0
multi
select 4
publish ch o
set f 1
exec
set g 1
`)
}

// TestPropagationScanExpiry: SCAN and RANDOMKEY delete the expired keys they meet, each with
// a DEL of its own, as redis-server's do (with the active expiry cycle off on both; one
// expired key for each scan and for RANDOMKEY: Redis's hash order is not Strata's).
func TestPropagationScanExpiry(t *testing.T) {
	p := &propagationPair{redis: testutil.StartRedis(t, "--enable-debug-command", "yes")}
	p.strata = debugStrata(t, "yes")
	p.redisRec = testutil.AttachReplica(t, p.redis.Addr)
	p.strataRec = testutil.NewStreamRecorder()
	p.strata.Server.SetPropagate(p.strataRec.Add)
	for _, inst := range []*testutil.Instance{p.redis, p.strata} {
		if r, err := testutil.Connect(t, inst.Addr).Do("DEBUG", "SET-ACTIVE-EXPIRE", "0"); err != nil || r.IsError() {
			t.Fatalf("%s: DEBUG SET-ACTIVE-EXPIRE: %v %v", inst.Name, r, err)
		}
	}
	runPropagation(t, p, `
set foo1 bar px 1
set live 1
!sleep 20
scan 0
select 2
set foo2 bar px 1
!sleep 20
scan 0 match foo*
select 1
set r1 bar px 1
!sleep 20
randomkey
`)
}

func TestPropagationScripts(t *testing.T) {
	p := startPropagationPair(t)
	runPropagation(t, p, `
eval "redis.call('set', KEYS[1], 'v'); redis.call('expire', KEYS[1], 100); return 1" 1 s1
eval "return redis.call('set', KEYS[1], 'w')" 1 s2
eval "return redis.call('get', KEYS[1])" 1 s2
eval "redis.call('spop', KEYS[1]); return redis.call('incrbyfloat', KEYS[2], 1)" 2 nos f
eval "redis.call('sadd', KEYS[1], 'a'); redis.call('spop', KEYS[1]); redis.call('select', 4); redis.call('set', KEYS[2], 1); return 1" 2 ss y
eval "redis.call('set', KEYS[1], 1, 'nx'); return 1" 1 s2
function load "#!lua name=lib\nredis.register_function('f', function(keys) return redis.call('incr', keys[1]) end)"
fcall f 1 cnt
function delete lib
function delete lib
function flush
`)
}

func TestPropagationActiveExpiry(t *testing.T) {
	for _, lazy := range []string{"no", "yes"} {
		t.Run("lazyfree-lazy-expire="+lazy, func(t *testing.T) {
			p := startPropagationPair(t, "lazyfree-lazy-expire", lazy)
			runPropagation(t, p, `
set short 1 px 50
select 5
hset shorth f v
pexpire shorth 50
select 0
!sleep 600
`)
		})
	}
}

// TestPropagationBlockingWake checks the propagated form of blocking pops served on a wake-up:
// each blocks on one connection until another pushes, and propagates as its non-blocking form
// after the push.
func TestPropagationBlockingWake(t *testing.T) {
	p := startPropagationPair(t)
	cases := [][2]string{
		{"blpop l1 l 0", "rpush l a b"},
		{"brpop l2 lb 0", "rpush lb c"},
		{"blmove m dst left right 0", "rpush m x y"},
		{"brpoplpush m2 dst 0", "rpush m2 x"},
		{"blmpop 0 2 n1 n left count 5", "rpush n a b c"},
		{"bzpopmin z1 z 0", "zadd z 1 a 2 b"},
		{"bzpopmax zb 0", "zadd zb 3 c"},
		{"bzmpop 0 1 zz max count 2", "zadd zz 1 a 2 b 3 c"},
	}
	var conns [2][2]*testutil.Conn
	for i, inst := range []*testutil.Instance{p.redis, p.strata} {
		blocked, pusher := testutil.Connect(t, inst.Addr), testutil.Connect(t, inst.Addr)
		conns[i] = [2]*testutil.Conn{blocked, pusher}
		for _, c := range cases {
			if err := blocked.Send(strings.Fields(c[0])...); err != nil {
				t.Fatal(err)
			}
			waitBlocked(t, pusher, 1)
			if r, err := pusher.Do(strings.Fields(c[1])...); err != nil || r.IsError() {
				t.Fatalf("%s: %s: %v %v", inst.Name, c[1], r, err)
			}
			if r, err := blocked.ReadReply(); err != nil || r.IsNil() || r.IsError() {
				t.Fatalf("%s: %s not served: %v %v", inst.Name, c[0], r, err)
			}
		}
	}
	want, got := p.fence(t, conns[0][1], conns[1][1])
	if n := len(want); n != 2*len(cases) {
		t.Fatalf("redis-server propagated %d commands, want %d:\n%s", n, 2*len(cases), render(want))
	}
	if d := testutil.DiffStreams(want, got); d != "" {
		t.Errorf("write streams differ: %s\nredis:\n%s\nstrata:\n%s", d, render(want), render(got))
	}
}

// TestPropagationLazyExpiry checks that a write meeting an expired key propagates the key's
// deletion first, in one MULTI/EXEC block with the write, as Redis 7.0 does; active expiry is
// off on both servers, so that only the writes delete the keys. The expiries are 100 ms, so that
// a loaded machine never finds one already past when it is set.
func TestPropagationLazyExpiry(t *testing.T) {
	for _, lazy := range []string{"no", "yes"} {
		t.Run("lazyfree-lazy-expire="+lazy, func(t *testing.T) {
			redis := testutil.StartRedis(t, "--enable-debug-command", "yes")
			if r, err := testutil.Connect(t, redis.Addr).Do("DEBUG", "SET-ACTIVE-EXPIRE", "0"); err != nil || r.IsError() {
				t.Fatalf("DEBUG SET-ACTIVE-EXPIRE: %v %v", r, err)
			}
			p := startPairOn(t, redis, "lazyfree-lazy-expire", lazy)
			p.strata.Server.Store().SetExpireByMaster(true) // the cycle off, as on a replica
			runPropagation(t, p, `
set k1 1 px 100
rpush l1 a
pexpire l1 100
hset h1 f v
pexpire h1 100
set k2 1 px 100
set k3 1 px 100
select 2
sadd s1 a
pexpire s1 100
select 3
set mv 1 px 100
select 0
set mv 2
rpush le a
pexpire le 100
rpush le2 a
pexpire le2 100
!sleep 250
move mv 3
multi
lset le 0 x
set z2 1
exec
eval "redis.pcall('lset', KEYS[1], 0, 'x'); return 1" 1 le2
set k1 2
rpush l1 b
del h1
incr k2
multi
set k3 x
set z 1
exec
select 2
eval "return redis.call('sadd', KEYS[1], 'b')" 1 s1
`)
		})
	}
}

func TestPropagationMisc(t *testing.T) {
	p := startPropagationPair(t, "lazyfree-lazy-user-del", "yes")
	runPropagation(t, p, `
set a 1
move a 3
move a 3
getdel missing
set g 1
getdel g
publish ch hello
multi
set m 1
publish ch inmulti
exec
eval "redis.call('publish', 'ch', 'inscript'); return redis.call('set', KEYS[1], 2)" 1 m
script load "return redis.call('incr', KEYS[1])"
evalsha 2bab3b661081db58bd2341920e0ba7cf5dc77b25 1 cnt
evalsha 2bab3b661081db58bd2341920e0ba7cf5dc77b25 1 cnt
`)
}

// TestPropagationStagedSet checks SETs whose value the server streams to the value log while
// it arrives: the propagated form carries the value.
func TestPropagationStagedSet(t *testing.T) {
	p := startPropagationPair(t)
	big := strings.Repeat("v", 100_000)
	rc, sc := testutil.Connect(t, p.redis.Addr), testutil.Connect(t, p.strata.Addr)
	for _, c := range []*testutil.Conn{rc, sc} {
		for _, cmd := range [][]string{
			{"SET", "b1", big}, {"SET", "b2", big, "EX", "100"}, {"SET", "b1", big + "w", "GET"},
			{"MULTI"}, {"SET", "b3", big, "XX"}, {"SET", "b4", big}, {"EXEC"},
		} {
			if r, err := c.Do(cmd...); err != nil || r.IsError() {
				t.Fatalf("%s: %v %v", cmd[0], r, err)
			}
		}
	}
	want, got := p.fence(t, rc, sc)
	if len(want) != 4 { // the SET XX in MULTI finds no key
		t.Fatalf("redis-server propagated %d commands, want 4", len(want))
	}
	if d := testutil.DiffStreams(want, got); d != "" {
		t.Errorf("write streams differ: %.2000s", d)
	}
}

// TestPropagationMigrate checks that MIGRATE propagates as DEL of the keys the target took,
// and not at all with COPY.
func TestPropagationMigrate(t *testing.T) {
	p := startPropagationPair(t)
	targets := []*testutil.Instance{testutil.StartRedis(t), testutil.StartStrata(t)}
	for i, inst := range []*testutil.Instance{p.redis, p.strata} {
		host, port, _ := strings.Cut(targets[i].Addr, ":")
		c := testutil.Connect(t, inst.Addr)
		for _, cmd := range [][]string{
			{"MSET", "k1", "1", "k2", "2", "k3", "3"},
			{"MIGRATE", host, port, "k1", "0", "5000"},
			{"MIGRATE", host, port, "", "0", "5000", "REPLACE", "KEYS", "k2", "k3", "nokey"},
			{"SET", "k4", "4"},
			{"MIGRATE", host, port, "k4", "0", "5000", "COPY"},
		} {
			if r, err := c.Do(cmd...); err != nil || r.IsError() {
				t.Fatalf("%s: %v: %v %v", inst.Name, cmd, r, err)
			}
		}
	}
	runPropagation(t, p, "")
}

// TestPropagationEmptyFlush checks that FLUSHDB and FLUSHALL propagate when there was nothing to
// flush, as Redis forces them to, and that SWAPDB of two empty databases does too.
func TestPropagationEmptyFlush(t *testing.T) {
	p := startPropagationPair(t)
	runPropagation(t, p, `
flushdb
select 1
flushdb async
flushall
swapdb 2 3
`)
}
