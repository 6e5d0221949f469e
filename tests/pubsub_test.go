package tests

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// psSession drives a subscriber and a publisher connection to one server and records what
// both see, rendered, so that the records of Strata and redis-server can be compared.
type psSession struct {
	t        *testing.T
	inst     *testutil.Instance
	sub, pub *testutil.Conn
	out      []string
}

func newPSSession(t *testing.T, inst *testutil.Instance) *psSession {
	return &psSession{t: t, inst: inst, sub: dial(t, inst), pub: dial(t, inst)}
}

func (s *psSession) log(format string, args ...any) {
	s.out = append(s.out, fmt.Sprintf(format, args...))
}

// subDo sends a command on the subscriber and reads n replies.
func (s *psSession) subDo(n int, args ...string) {
	s.t.Helper()
	if err := s.sub.Send(args...); err != nil {
		s.t.Fatalf("%s: sub %v: %v", s.inst.Name, args, err)
	}
	for i := 0; i < n; i++ {
		r, err := s.sub.ReadReply()
		if err != nil {
			s.t.Fatalf("%s: sub %v reply %d: %v", s.inst.Name, args, i, err)
		}
		s.log("sub %s -> %s", strings.Join(args, " "), r)
	}
}

// pubDo runs a command on the publisher and returns its reply.
func (s *psSession) pubDo(args ...string) testutil.Reply {
	s.t.Helper()
	r, err := s.pub.Do(args...)
	if err != nil {
		s.t.Fatalf("%s: pub %v: %v", s.inst.Name, args, err)
	}
	s.log("pub %s -> %s", strings.Join(args, " "), r)
	return r
}

// pubDoSorted runs a command whose reply lists things in hash order, and records it sorted.
func (s *psSession) pubDoSorted(args ...string) {
	s.t.Helper()
	r, err := s.pub.Do(args...)
	if err != nil {
		s.t.Fatalf("%s: pub %v: %v", s.inst.Name, args, err)
	}
	s.log("pub %s -> (sorted) %s", strings.Join(args, " "), r.Sorted())
}

// publish publishes and reads the deliveries the reply announces from the subscriber, sorted
// (Redis walks pattern subscriptions in hash order).
func (s *psSession) publish(cmd, channel, msg string) {
	s.t.Helper()
	r := s.pubDo(cmd, channel, msg)
	var got []string
	for i := int64(0); i < r.Int; i++ {
		m, err := s.sub.ReadReply()
		if err != nil {
			s.t.Fatalf("%s: delivery %d of %s %s: %v", s.inst.Name, i, cmd, channel, err)
		}
		got = append(got, m.String())
	}
	sort.Strings(got)
	for _, m := range got {
		s.log("  msg %s", strings.ReplaceAll(m, "\n", " | "))
	}
}

// untilSentinel reads messages up to the one published on channel "sentinel".
func (s *psSession) untilSentinel() []string {
	s.t.Helper()
	var got []string
	for {
		m, err := s.sub.ReadReply()
		if err != nil {
			s.t.Fatalf("%s: waiting for the sentinel after %v: %v\nrecord so far:\n%s", s.inst.Name, got, err,
				strings.Join(s.out, "\n"))
		}
		if len(m.Elems) >= 3 && m.Elems[1].Str == "sentinel" {
			return got
		}
		got = append(got, strings.ReplaceAll(m.String(), "\n", " | "))
	}
}

// psCompare runs scenario on Strata and, when installed, redis-server, and compares the records.
func psCompare(t *testing.T, scenario func(s *psSession)) {
	t.Helper()
	run := func(inst *testutil.Instance) []string {
		s := newPSSession(t, inst)
		scenario(s)
		return s.out
	}
	got := run(testutil.StartStrata(t))
	ref := testutil.MaybeStartRedis(t)
	if ref == nil {
		t.Logf("no redis-server; strata's record:\n%s", strings.Join(got, "\n"))
		return
	}
	want := run(ref)
	if testing.Verbose() {
		t.Logf("redis-server:\n%s", strings.Join(want, "\n"))
	}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("record line %d differs:\n redis:  %s\n strata: %s\n\nredis:\n%s\n\nstrata:\n%s",
				i, want[i], at(got, i), strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("strata recorded %d lines, redis %d", len(got), len(want))
	}
}

func TestPubSubChannelsAndPatterns(t *testing.T) {
	psCompare(t, func(s *psSession) {
		s.subDo(3, "SUBSCRIBE", "a", "b", "c d")
		s.subDo(8, "PSUBSCRIBE", "h?llo", "h[ae]llo", "h[^e]llo", "h*", `\*star`, "[a-c]x", "x[", "*")
		s.subDo(1, "SUBSCRIBE", "a")
		for _, ch := range []string{"a", "c d", "hello", "hallo", "hxllo", "*star", "xstar", "bx", "h",
			"zz", "x[", "HELLO"} {
			s.publish("PUBLISH", ch, "m:"+ch)
		}
		s.publish("PUBLISH", "bin\r\nch", "\x00\xff\r\n")
		s.publish("PUBLISH", "a", "")
		s.pubDo("PUBSUB", "NUMSUB", "a", "b", "c d", "zz")
		s.pubDo("PUBSUB", "NUMPAT")
		s.pubDoSorted("PUBSUB", "CHANNELS")
		s.pubDoSorted("PUBSUB", "CHANNELS", "[ab]")
		s.pubDoSorted("PUBSUB", "CHANNELS", "*")
		s.pubDoSorted("PUBSUB", "CHANNELS", "c?d")
		s.subDo(1, "UNSUBSCRIBE", "a")
		s.subDo(1, "PUNSUBSCRIBE", "*")
		s.publish("PUBLISH", "a", "after")
		s.publish("PUBLISH", "hello", "after")
		s.subDo(1, "PUNSUBSCRIBE", "h*")
		s.subDo(1, "PUNSUBSCRIBE", "nosuch")
		s.publish("PUBLISH", "hello", "again")
		// A second subscriber on the same channel
		other := dial(s.t, s.inst)
		r2, _ := other.Do("SUBSCRIBE", "b")
		s.log("other SUBSCRIBE b -> %s", r2)
		r3 := s.pubDo("PUBLISH", "b", "both")
		m1, _ := s.sub.ReadReply()
		m2, _ := other.ReadReply()
		s.log("  deliveries %d: %s / %s", r3.Int, m1, m2)
		s.pubDo("PUBSUB", "NUMSUB", "b")
		other.Close()
		time.Sleep(50 * time.Millisecond)
		s.pubDo("PUBSUB", "NUMSUB", "b")
	})
}

func TestPubSubShardChannels(t *testing.T) {
	psCompare(t, func(s *psSession) {
		s.subDo(2, "SSUBSCRIBE", "s1", "s2")
		s.subDo(1, "PSUBSCRIBE", "s*")
		s.publish("SPUBLISH", "s1", "shard")
		s.publish("PUBLISH", "s1", "plain")
		s.publish("SPUBLISH", "s3", "nobody")
		s.pubDo("PUBSUB", "SHARDNUMSUB", "s1", "s3")
		s.pubDoSorted("PUBSUB", "SHARDCHANNELS")
		s.pubDo("PUBSUB", "SHARDCHANNELS", "s1")
		s.subDo(1, "SUNSUBSCRIBE", "s1")
		s.publish("SPUBLISH", "s1", "gone")
		s.subDo(1, "SUNSUBSCRIBE")
		s.subDo(1, "PUNSUBSCRIBE")
	})
}

func TestPubSubRESP3(t *testing.T) {
	psCompare(t, func(s *psSession) {
		if _, err := s.sub.Do("HELLO", "3"); err != nil {
			s.t.Fatal(err)
		}
		s.subDo(2, "SUBSCRIBE", "r1", "r2")
		s.subDo(1, "PSUBSCRIBE", "r*")
		s.publish("PUBLISH", "r1", "push")
		s.subDo(1, "GET", "nokey")
		s.subDo(1, "PING")
		s.subDo(1, "SET", "k", "v")
		s.publish("PUBLISH", "r2", "push2")
		s.subDo(1, "GET", "k")
		s.subDo(2, "UNSUBSCRIBE", "r1", "r2")
		s.subDo(1, "PUNSUBSCRIBE", "r*")
		s.subDo(1, "UNSUBSCRIBE")
		s.subDo(1, "PING")
	})
}

// TestPubSubPipelinedAndQuit sends commands before, with and after SUBSCRIBE in one write, and
// QUIT in subscriber mode: replies keep their order and QUIT's +OK arrives before the close.
func TestPubSubPipelinedAndQuit(t *testing.T) {
	psCompare(t, func(s *psSession) {
		var buf bytes.Buffer
		buf.Write(testutil.EncodeCommand("SET", "pk", "1"))
		buf.Write(testutil.EncodeCommand("GET", "pk"))
		buf.Write(testutil.EncodeCommand("SUBSCRIBE", "p1", "p2"))
		buf.Write(testutil.EncodeCommand("PING"))
		buf.Write(testutil.EncodeCommand("GET", "pk"))
		buf.Write(testutil.EncodeCommand("UNSUBSCRIBE", "p1"))
		if err := s.sub.WriteRaw(buf.Bytes()); err != nil {
			s.t.Fatal(err)
		}
		for i := 0; i < 7; i++ {
			r, err := s.sub.ReadReply()
			if err != nil {
				s.t.Fatal(err)
			}
			s.log("pipelined reply %d: %s", i, r)
		}
		s.publish("PUBLISH", "p2", "still")
		s.subDo(1, "QUIT")
		closed, extra := s.sub.ExpectClosed(2 * time.Second)
		s.log("closed after QUIT: %v %q", closed, extra)
	})
}

// keyspaceCommands are run by the publisher with notify-keyspace-events KEA; the subscriber
// records the events of each.
var keyspaceCommands = [][]string{
	{"SET", "k", "v"}, {"SET", "k", "v", "EX", "100"}, {"SET", "k", "v", "NX"}, {"SET", "k2", "v", "XX"},
	{"SET", "k", "v2", "KEEPTTL", "GET"}, {"SETNX", "k", "x"}, {"SETNX", "n1", "x"}, {"GETSET", "k", "v3"},
	{"APPEND", "k", "x"}, {"SETRANGE", "k", "0", ""}, {"SETRANGE", "k", "1", "zz"}, {"SETRANGE", "nk", "0", ""},
	{"INCR", "c"}, {"INCRBY", "c", "5"}, {"DECR", "c"}, {"DECRBY", "c", "2"}, {"INCRBYFLOAT", "f", "1.5"},
	{"MSET", "m1", "1", "m2", "2"}, {"MSETNX", "m1", "1", "m3", "3"}, {"MSETNX", "m3", "3", "m4", "4"},
	{"GETDEL", "m1"}, {"GETDEL", "m1"}, {"GETEX", "m2", "EX", "100"}, {"GETEX", "m2", "PERSIST"},
	{"GETEX", "m2", "PERSIST"}, {"GETEX", "m2"}, {"SETEX", "se", "100", "v"}, {"PSETEX", "pe", "100000", "v"},
	{"SETBIT", "b", "7", "1"}, {"BITFIELD", "bf", "SET", "u8", "0", "255"}, {"BITFIELD", "bf", "GET", "u8", "0"},
	{"BITOP", "OR", "bo", "b"}, {"BITOP", "AND", "bo", "nokey"},
	{"DEL", "k", "nokey", "k"}, {"UNLINK", "m2", "m3"}, {"EXPIRE", "c", "100"}, {"PEXPIRE", "c", "100000"},
	{"EXPIREAT", "c", "9999999999"}, {"EXPIRE", "c", "100", "XX"}, {"EXPIRE", "c", "100", "NX"},
	{"PERSIST", "c"}, {"PERSIST", "c"}, {"EXPIRE", "c", "0"}, {"EXPIRE", "nokey", "10"},
	{"RENAME", "n1", "n2"}, {"RENAMENX", "n2", "m4"}, {"RENAME", "n2", "n2"}, {"COPY", "n2", "n3"},
	{"COPY", "n2", "n3"}, {"COPY", "n2", "n3", "DB", "3"}, {"MOVE", "n3", "2"}, {"MOVE", "nokey", "2"},
	{"LPUSH", "l", "a", "b"}, {"RPUSH", "l", "c"}, {"LPUSHX", "nol", "a"}, {"RPUSHX", "l", "d"},
	{"LPOP", "l"}, {"RPOP", "l"}, {"LPOP", "l", "0"}, {"LINSERT", "l", "BEFORE", "a", "z"},
	{"LINSERT", "l", "BEFORE", "nope", "z"}, {"LSET", "l", "0", "q"}, {"LREM", "l", "0", "q"},
	{"LREM", "l", "0", "nope"}, {"RPOPLPUSH", "l", "l2"}, {"LMOVE", "l2", "l", "LEFT", "RIGHT"},
	{"LTRIM", "l", "0", "0"}, {"LTRIM", "nol", "0", "1"}, {"LTRIM", "l", "5", "6"}, {"LMPOP", "1", "l", "LEFT"},
	{"RPUSH", "l3", "a", "b", "c"}, {"LMPOP", "2", "nol", "l3", "RIGHT", "COUNT", "2"}, {"BLPOP", "l3", "0"},
	{"RPUSH", "l4", "a"}, {"BLMOVE", "l4", "l5", "RIGHT", "LEFT", "0"}, {"BRPOPLPUSH", "l5", "l6", "0"},
	{"BRPOP", "l6", "0"}, {"RPUSH", "l7", "x"}, {"BLMPOP", "0", "1", "l7", "LEFT"},
	{"HSET", "h", "a", "1", "b", "2"}, {"HMSET", "h", "c", "3"}, {"HSETNX", "h", "a", "1"},
	{"HSETNX", "h", "d", "4"}, {"HINCRBY", "h", "a", "1"}, {"HINCRBYFLOAT", "h", "a", "1.5"},
	{"HDEL", "h", "nope"}, {"HDEL", "h", "a", "b", "c", "d"},
	{"SADD", "s", "a", "b"}, {"SADD", "s", "a"}, {"SREM", "s", "a"}, {"SREM", "s", "zz"},
	{"SMOVE", "s", "s2", "b"}, {"SADD", "s", "x", "y"}, {"SMOVE", "s", "s2", "nope"}, {"SADD", "s2", "x"},
	{"SMOVE", "s", "s2", "x"}, {"SPOP", "s"}, {"SPOP", "nos"}, {"SADD", "s", "p", "q"},
	{"SINTERSTORE", "sd", "s", "s2"}, {"SUNIONSTORE", "sd", "s", "s2"}, {"SDIFFSTORE", "sd", "nokey"},
	{"SDIFFSTORE", "sd", "nokey"},
	{"ZADD", "z", "1", "a", "2", "b"}, {"ZADD", "z", "1", "a"}, {"ZADD", "z", "CH", "5", "a"},
	{"ZADD", "z", "INCR", "1", "a"}, {"ZADD", "z", "NX", "INCR", "1", "a"}, {"ZINCRBY", "z", "1", "b"},
	{"ZREM", "z", "nope"}, {"ZREM", "z", "a"}, {"ZPOPMIN", "z"}, {"ZPOPMIN", "z"},
	{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"}, {"ZPOPMAX", "z"}, {"ZREMRANGEBYSCORE", "z", "0", "1"},
	{"ZREMRANGEBYLEX", "z", "[b", "[b"}, {"ZREMRANGEBYRANK", "z", "0", "0"}, {"ZREMRANGEBYRANK", "z", "0", "0"},
	{"ZADD", "z2", "1", "a", "2", "b"}, {"ZUNIONSTORE", "zd", "1", "z2"}, {"ZINTERSTORE", "zd", "2", "z2", "nokey"},
	{"ZRANGESTORE", "zd2", "z2", "0", "-1"}, {"ZDIFFSTORE", "zd3", "1", "z2"}, {"ZMPOP", "1", "z2", "MIN", "COUNT", "5"},
	{"RPUSH", "sl", "3", "1", "2"}, {"SORT", "sl", "STORE", "sd2"}, {"SORT", "sl"}, {"SORT", "nokey", "STORE", "sd2"},
	{"SORT", "nokey", "STORE", "sd2"},
	{"MULTI"}, {"SET", "tx1", "1"}, {"LPUSH", "tx2", "a"}, {"INCR", "tx1"}, {"EXEC"},
	{"FLUSHDB"},
}

func TestKeyspaceNotifications(t *testing.T) {
	psCompare(t, func(s *psSession) {
		s.pubDo("CONFIG", "SET", "notify-keyspace-events", "KEAn")
		s.subDo(1, "PSUBSCRIBE", "__key*__:*")
		s.subDo(1, "SUBSCRIBE", "sentinel")
		inMulti := false
		for _, cmd := range keyspaceCommands {
			s.pubDo(cmd...)
			switch strings.ToUpper(cmd[0]) {
			case "MULTI":
				inMulti = true
			case "EXEC":
				inMulti = false
			}
			if inMulti {
				continue
			}
			s.pubDo("PUBLISH", "sentinel", ".")
			for _, ev := range s.untilSentinel() {
				s.log("  event %s", ev)
			}
		}
		// The expiry cycle's event
		s.pubDo("SET", "soon", "1", "PX", "30")
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) {
			s.sub.Timeout = time.Until(deadline)
			m, err := s.sub.ReadReply()
			if err != nil {
				s.t.Fatalf("%s: no expired event: %v", s.inst.Name, err)
			}
			s.log("  event %s", strings.ReplaceAll(m.String(), "\n", " | "))
			if len(m.Elems) == 4 && m.Elems[3].Str == "expired" {
				break
			}
		}
		s.sub.Timeout = 5 * time.Second
		// Classes filter the events
		for _, classes := range []string{"El", "K$", "Eg", "Kx", "Eh", "Ks", "Ez", "AK", "En", "Kng", ""} {
			s.pubDo("CONFIG", "SET", "notify-keyspace-events", classes)
			for _, cmd := range [][]string{{"LPUSH", "fl", "a"}, {"SET", "fs", "1"}, {"DEL", "fs"},
				{"HSET", "fh", "f", "v"}, {"SADD", "fz", "m"}, {"ZADD", "fzz", "1", "m"}, {"DEL", "fl", "fh", "fz", "fzz"}} {
				s.pubDo(cmd...)
			}
			s.pubDo("PUBLISH", "sentinel", ".")
			for _, ev := range s.untilSentinel() {
				s.log("  event %s", ev)
			}
		}
	})
}

// TestPubSubSubscribeBeforeMessages subscribes and unsubscribes over and over while another
// client publishes on the channel without pause: the confirmation of SUBSCRIBE always comes
// before the first message, and no message follows the confirmation of UNSUBSCRIBE.
func TestPubSubSubscribeBeforeMessages(t *testing.T) {
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			sub := dial(t, inst)
			var stop atomic.Bool
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				pub, err := testutil.Dial(inst.Addr)
				if err != nil {
					t.Error(err)
					return
				}
				defer pub.Close()
				for !stop.Load() {
					if _, err := pub.Do("PUBLISH", "ord", "m"); err != nil {
						t.Error(err)
						return
					}
				}
			}()
			defer func() { stop.Store(true); wg.Wait() }()
			messages := 0
			for round := 0; round < 200; round++ {
				r, err := sub.Do("SUBSCRIBE", "ord")
				if err != nil {
					t.Fatal(err)
				}
				if r.String() != "1) \"subscribe\"\n2) \"ord\"\n3) (integer) 1" {
					t.Fatalf("round %d: first reply after SUBSCRIBE is %s", round, r)
				}
				if err := sub.Send("UNSUBSCRIBE", "ord"); err != nil {
					t.Fatal(err)
				}
				for {
					r, err := sub.ReadReply()
					if err != nil {
						t.Fatal(err)
					}
					if r.Elems[0].Str == "unsubscribe" {
						break
					}
					if r.Elems[0].Str != "message" {
						t.Fatalf("round %d: unexpected %s", round, r)
					}
					messages++
				}
				// Nothing may follow the confirmation: PING's reply must be next.
				r, err = sub.Do("PING")
				if err != nil || r.String() != "PONG" {
					t.Fatalf("round %d: after UNSUBSCRIBE got %s, %v", round, r, err)
				}
			}
			t.Logf("%d messages between the confirmations", messages)
		})
	}
}

// TestPubSubSlowSubscriberIsDisconnected has a subscriber stop reading while a publisher sends
// large messages: once the pending output passes client-output-buffer-limit pubsub, the server
// closes the subscriber instead of buffering without bound.
func TestPubSubSlowSubscriberIsDisconnected(t *testing.T) {
	for _, inst := range servers(t) {
		t.Run(inst.Name, func(t *testing.T) {
			for _, tc := range []struct {
				name, limit string
				pause       time.Duration
				minTime     time.Duration
			}{
				{"hard", "pubsub 512kb 0 0", 0, 0},
				{"soft", "pubsub 0 256kb 1", 20 * time.Millisecond, time.Second},
			} {
				t.Run(tc.name, func(t *testing.T) {
					pub := dial(t, inst)
					mustDo(t, pub, "OK", "CONFIG", "SET", "client-output-buffer-limit", tc.limit)
					defer pub.Do("CONFIG", "SET", "client-output-buffer-limit", "pubsub 32mb 8mb 60")
					sub := dial(t, inst)
					mustDo(t, sub, "1) \"subscribe\"\n2) \"slow\"\n3) (integer) 1", "SUBSCRIBE", "slow")
					msg := strings.Repeat("x", 64<<10)
					start := time.Now()
					sent := 0
					for {
						r, err := pub.Do("PUBLISH", "slow", msg)
						if err != nil {
							t.Fatal(err)
						}
						if r.Int == 0 {
							break // the subscriber is gone
						}
						sent++
						if sent > 4000 { // 256 MB
							t.Fatalf("subscriber still connected after %d MB", sent*64>>10)
						}
						time.Sleep(tc.pause)
					}
					took := time.Since(start)
					if took < tc.minTime {
						t.Fatalf("cut off after %v, before the soft limit's %v", took, tc.minTime)
					}
					mustDo(t, pub, "1) \"slow\"\n2) (integer) 0", "PUBSUB", "NUMSUB", "slow")
					sub.Timeout = 10 * time.Second
					if closed, _ := sub.ExpectClosed(10 * time.Second); !closed {
						t.Fatal("the subscriber's connection was not closed")
					}
					t.Logf("cut off after %d messages of 64 KB in %v", sent, took.Round(time.Millisecond))
				})
			}
		})
	}
}

// TestPubSubReplyOff checks that CLIENT REPLY OFF and SKIP silence replies but not what a
// subscriber is sent as pushes: the (un)subscribe confirmations and the messages, in RESP3 and
// RESP2.
func TestPubSubReplyOff(t *testing.T) {
	psCompare(t, func(s *psSession) {
		s.subDo(1, "HELLO", "3")
		s.out = s.out[:0] // HELLO's reply names the client ID
		s.subDo(0, "CLIENT", "REPLY", "OFF")
		s.subDo(1, "SUBSCRIBE", "channel")
		s.subDo(1, "PSUBSCRIBE", "ch*")
		s.subDo(0, "CLIENT", "REPLY", "OFF")
		s.subDo(0, "PING")
		s.subDo(0, "SET", "k", "v")
		s.publish("PUBLISH", "channel", "hello")
		s.subDo(1, "UNSUBSCRIBE", "channel")
		s.subDo(1, "PUNSUBSCRIBE", "ch*")
		s.subDo(1, "UNSUBSCRIBE", "never")
		s.subDo(1, "CLIENT", "REPLY", "ON")
		s.subDo(1, "PING")

		s.subDo(1, "HELLO", "2")
		s.out = s.out[:len(s.out)-1]
		s.subDo(0, "CLIENT", "REPLY", "SKIP")
		s.subDo(1, "PSUBSCRIBE", "*")
		s.subDo(0, "CLIENT", "REPLY", "OFF")
		s.pubDo("SET", "k", "w")
		s.publish("PUBLISH", "x", "resp2")
		s.subDo(1, "PUNSUBSCRIBE")
		s.subDo(1, "CLIENT", "REPLY", "ON")
		s.subDo(1, "PING")
	})
}
