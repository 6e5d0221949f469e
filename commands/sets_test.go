package commands

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestSetRepliesRESP2AndRESP3(t *testing.T) {
	s := testStore(t)
	collExpect(t, s, 2, [][2]string{
		{"SADD s c a b", ":3\r\n"},
		{"SADD t b c d", ":3\r\n"},
		{"SMEMBERS s", "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"},
		{"SMEMBERS nokey", "*0\r\n"},
		{"SINTER s t", "*2\r\n$1\r\nb\r\n$1\r\nc\r\n"},
		{"SUNION s t", "*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"},
		{"SDIFF s t", "*1\r\n$1\r\na\r\n"},
		{"SISMEMBER s a", ":1\r\n"},
		{"SMISMEMBER s a z", "*2\r\n:1\r\n:0\r\n"},
		{"SRANDMEMBER s 10", "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"},
		{"SRANDMEMBER nokey", "$-1\r\n"},
		{"SPOP nokey", "$-1\r\n"},
		{"SPOP nokey 2", "*0\r\n"},
		{"SPOP s 0", "*0\r\n"},
	})
	collExpect(t, s, 3, [][2]string{
		{"SMEMBERS s", "~3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"},
		{"SMEMBERS nokey", "~0\r\n"},
		{"SINTER s t", "~2\r\n$1\r\nb\r\n$1\r\nc\r\n"},
		{"SINTER s nokey", "~0\r\n"},
		{"SUNION s t", "~4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n"},
		{"SDIFF s t", "~1\r\n$1\r\na\r\n"},
		{"SISMEMBER s a", ":1\r\n"}, // an integer in Redis 7.0, not a boolean
		{"SMISMEMBER s a z", "*2\r\n:1\r\n:0\r\n"},
		{"SINTERCARD 2 s t", ":2\r\n"},
		{"SRANDMEMBER nokey", "_\r\n"},
		{"SRANDMEMBER nokey 3", "*0\r\n"},
		{"SPOP nokey", "_\r\n"},
		{"SPOP nokey 2", "~0\r\n"},
		{"SPOP s 0", "~0\r\n"},
	})
	// SRANDMEMBER with a count is an array, SPOP with a count a set, in RESP3.
	for _, c := range []struct{ cmd, prefix string }{
		{"SRANDMEMBER s 10", "*3\r\n"},
		{"SRANDMEMBER s -5", "*5\r\n"},
		{"SRANDMEMBER s 2", "*2\r\n"},
		{"SPOP t 1", "~1\r\n"},
		{"SPOP t 10", "~2\r\n"},
	} {
		if got := replyOf(s, 3, strings.Fields(c.cmd)...); !strings.HasPrefix(got, c.prefix) || strings.Count(got, "$1\r\n") != int(c.prefix[1]-'0') {
			t.Errorf("RESP3 %s = %q, want %s and as many members", c.cmd, got, c.prefix)
		}
	}
	collExpect(t, s, 2, [][2]string{{"EXISTS t", ":0\r\n"}})
}

func TestSetCommandErrors(t *testing.T) {
	s := testStore(t)
	collExpect(t, s, 2, [][2]string{
		{"SADD s a b c", ":3\r\n"},
		{"SPOP s -1", "-ERR value is out of range, must be positive\r\n"},
		{"SPOP s x", "-ERR value is out of range, must be positive\r\n"},
		{"SPOP s 1 2", "-ERR syntax error\r\n"},
		{"SRANDMEMBER s x", "-ERR value is not an integer or out of range\r\n"},
		{"SRANDMEMBER s -9223372036854775808", "-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n"},
		{"SRANDMEMBER s 1 2", "-ERR syntax error\r\n"},
		{"SINTERCARD 0 s", "-ERR numkeys should be greater than 0\r\n"},
		{"SINTERCARD x s", "-ERR numkeys should be greater than 0\r\n"},
		{"SINTERCARD 2 s", "-ERR Number of keys can't be greater than number of args\r\n"},
		{"SINTERCARD 1 s LIMIT -1", "-ERR LIMIT can't be negative\r\n"},
		{"SINTERCARD 1 s LIMIT x", "-ERR LIMIT can't be negative\r\n"},
		{"SINTERCARD 1 s LIMIT", "-ERR syntax error\r\n"},
		{"SINTERCARD 1 s LIMIT 2", ":2\r\n"},
		{"SET str x", "+OK\r\n"},
		{"SINTER nokey str", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"SUNIONSTORE d s str", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"EXISTS d", ":0\r\n"},
		{"SMOVE nokey str a", ":0\r\n"},
		{"SMOVE s str zz", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"SUNIONSTORE str s", ":3\r\n"},
		{"TYPE str", "+set\r\n"},
		{"SINTERSTORE str s nokey", ":0\r\n"},
		{"EXISTS str", ":0\r\n"},
	})
}

func TestSInterCardKeys(t *testing.T) {
	for _, c := range []struct {
		args string
		want string
	}{
		{"sintercard 2 a b", "[a b]"},
		{"sintercard 1 a LIMIT 3", "[a]"},
		{"sintercard 3 a b", "[]"},
		{"sintercard 0 a", "[]"},
		{"sintercard x a", "[]"},
		{"sintercard -1 a", "[]"},
	} {
		var args [][]byte
		for _, a := range strings.Fields(c.args) {
			args = append(args, []byte(a))
		}
		got := fmt.Sprintf("%s", sinterCardKeys(args))
		if got != c.want {
			t.Errorf("keys of %q = %s, want %s", c.args, got, c.want)
		}
	}
	if cmd := Lookup([]byte("SINTERCARD")); cmd == nil || cmd.Keys == nil {
		t.Fatal("sintercard has no key extractor")
	}
}

// TestSetStoreDestinationIsSource checks that a *STORE whose destination is one of its sources
// reads the old members and replaces them in one command.
func TestSetStoreDestinationIsSource(t *testing.T) {
	s := testStore(t)
	collExpect(t, s, 2, [][2]string{
		{"SADD a 1 2 3", ":3\r\n"},
		{"SADD b 2 3 4", ":3\r\n"},
		{"SDIFFSTORE a a b", ":1\r\n"},
		{"SMEMBERS a", "*1\r\n$1\r\n1\r\n"},
		{"SUNIONSTORE a a b", ":4\r\n"},
		{"SMEMBERS a", "*4\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n4\r\n"},
		{"DBSIZE", ":2\r\n"},
	})
}

// TestSetSizesStayExactUnderConcurrency runs writers on a few keys at once and then checks that
// every set's SCARD matches its members and every hash's HLEN its fields.
func TestSetSizesStayExactUnderConcurrency(t *testing.T) {
	s := testStore(t)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for i := 0; i < 300; i++ {
				k := "s" + strconv.Itoa(r.IntN(3))
				k2 := "s" + strconv.Itoa(r.IntN(3))
				m := strconv.Itoa(r.IntN(20))
				var args []string
				switch r.IntN(7) {
				case 0, 1:
					args = []string{"SADD", k, m, strconv.Itoa(r.IntN(20))}
				case 2:
					args = []string{"SREM", k, m}
				case 3:
					args = []string{"SPOP", k, strconv.Itoa(r.IntN(3))}
				case 4:
					args = []string{"SMOVE", k, k2, m}
				case 5:
					args = []string{"HSET", "h" + k, m, "v", strconv.Itoa(r.IntN(20)), "w"}
				default:
					args = []string{"HDEL", "h" + k, m}
				}
				if got := replyOf(s, 2, args...); strings.HasPrefix(got, "-") {
					t.Errorf("%v: %q", args, got)
				}
			}
		}(w)
	}
	wg.Wait()
	for i := 0; i < 3; i++ {
		k := "s" + strconv.Itoa(i)
		card := replyOf(s, 2, "SCARD", k)
		members := replyOf(s, 2, "SMEMBERS", k)
		if want := ":" + strings.TrimPrefix(strings.SplitN(members, "\r\n", 2)[0], "*") + "\r\n"; card != want {
			t.Errorf("SCARD %s = %q, SMEMBERS header %q", k, card, members[:min(len(members), 10)])
		}
		hlen := replyOf(s, 2, "HLEN", "h"+k)
		keys := replyOf(s, 2, "HKEYS", "h"+k)
		if want := ":" + strings.TrimPrefix(strings.SplitN(keys, "\r\n", 2)[0], "*") + "\r\n"; hlen != want {
			t.Errorf("HLEN h%s = %q, HKEYS header %q", k, hlen, keys[:min(len(keys), 10)])
		}
	}
}
