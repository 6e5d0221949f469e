package commands

import (
	"strconv"
	"strings"
	"testing"

	"github.com/strata-db/strata/storage"
)

// collExpect runs each {command, reply} pair and checks the raw replies.
func collExpect(t *testing.T, s *storage.Store, proto int, steps [][2]string) {
	t.Helper()
	for _, st := range steps {
		args := strings.Fields(st[0])
		if got := replyOf(s, proto, args...); got != st[1] {
			t.Errorf("RESP%d %s:\n got  %q\n want %q", proto, st[0], got, st[1])
		}
	}
}

func TestHashRepliesRESP2AndRESP3(t *testing.T) {
	s := testStore(t)
	collExpect(t, s, 2, [][2]string{
		{"HSET h a 1 b 2", ":2\r\n"}, // a packed hash keeps insertion order
		{"HGETALL h", "*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n"},
		{"HGETALL nokey", "*0\r\n"},
		{"HKEYS h", "*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{"HVALS h", "*2\r\n$1\r\n1\r\n$1\r\n2\r\n"},
		{"HGET h nope", "$-1\r\n"},
		{"HMGET h a nope", "*2\r\n$1\r\n1\r\n$-1\r\n"},
		{"HEXISTS h a", ":1\r\n"},
		{"HINCRBYFLOAT h a 0.5", "$3\r\n1.5\r\n"},
		{"HRANDFIELD h 5 WITHVALUES", "*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n2\r\n"},
		{"HRANDFIELD nokey", "$-1\r\n"},
		{"HRANDFIELD nokey 3 WITHVALUES", "*0\r\n"},
		{"HMSET h c 3", "+OK\r\n"},
	})
	collExpect(t, s, 3, [][2]string{
		{"HGETALL h", "%3\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n"},
		{"HGETALL nokey", "%0\r\n"},
		{"HKEYS h", "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"},
		{"HGET h nope", "_\r\n"},
		{"HMGET h nope", "*1\r\n_\r\n"},
		{"HEXISTS h nope", ":0\r\n"},
		{"HINCRBYFLOAT h a 1", "$3\r\n2.5\r\n"},
		{"HRANDFIELD h 5 WITHVALUES", "*3\r\n*2\r\n$1\r\na\r\n$3\r\n2.5\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n"},
		{"HRANDFIELD nokey", "_\r\n"},
		{"HRANDFIELD nokey 2", "*0\r\n"},
		{"HRANDFIELD h 0 WITHVALUES", "*0\r\n"},
	})
	// Whole-hash picks may come in any order; check the shape of random ones.
	for _, proto := range []int{2, 3} {
		got := replyOf(s, proto, "HRANDFIELD", "h", "-4", "WITHVALUES")
		want := "*8\r\n"
		if proto == 3 {
			want = "*4\r\n*2\r\n"
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("RESP%d HRANDFIELD h -4 WITHVALUES = %q", proto, got)
		}
	}
}

func TestHashErrorsWriteNothing(t *testing.T) {
	s := testStore(t)
	collExpect(t, s, 2, [][2]string{
		{"HSET h a 1 b", "-ERR wrong number of arguments for 'hset' command\r\n"},
		{"HMSET h a 1 b", "-ERR wrong number of arguments for 'hmset' command\r\n"},
		{"EXISTS h", ":0\r\n"},
		{"HINCRBY h a x", "-ERR value is not an integer or out of range\r\n"},
		{"HINCRBYFLOAT h a x", "-ERR value is not a valid float\r\n"},
		{"HINCRBYFLOAT h a inf", "-ERR value is NaN or Infinity\r\n"},
		{"EXISTS h", ":0\r\n"},
		{"HSET h n 9223372036854775807 s x", ":2\r\n"},
		{"HINCRBY h n 1", "-ERR increment or decrement would overflow\r\n"},
		{"HINCRBY h s 1", "-ERR hash value is not an integer\r\n"},
		{"HINCRBYFLOAT h s 1", "-ERR hash value is not a float\r\n"},
		{"HGET h n", "$19\r\n9223372036854775807\r\n"},
		{"HRANDFIELD h -9223372036854775808", "-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n"},
		{"HRANDFIELD h 4611686018427387904 WITHVALUES", "-ERR value is out of range\r\n"},
		{"SET str x", "+OK\r\n"},
		{"HSET str a 1", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"HLEN str", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
	})
}

// TestHIncrByFloatLongDouble checks results that differ between float64 and x87 long double
// arithmetic (values taken from redis-server 7.0).
func TestHIncrByFloatLongDouble(t *testing.T) {
	s := testStore(t)
	collExpect(t, s, 2, [][2]string{
		{"HINCRBYFLOAT h z 0.1", "$3\r\n0.1\r\n"},
		{"HINCRBYFLOAT h z 0.2", "$3\r\n0.3\r\n"},
		{"HINCRBYFLOAT h x 10.5", "$4\r\n10.5\r\n"},
		{"HINCRBYFLOAT h x 0.1", "$4\r\n10.6\r\n"},
	})
	// 1e300 rounded to a 64-bit mantissa, printed exactly by %.17Lf (redis-server's reply).
	got := replyOf(s, 2, "HINCRBYFLOAT", "h", "e", "1e300")
	if want := "$301\r\n100000000000000000000899732407955919387052394427329074793826008232126564659618093575584915208375049719035037250861427483"; !strings.HasPrefix(got, want) {
		t.Errorf("HINCRBYFLOAT h e 1e300 = %q, want prefix %q", got, want)
	}
}

func BenchmarkHSetExistingField(b *testing.B) {
	s := testStore(b)
	replyOf(s, 2, "HSET", "myhash", "element:1", "xxx")
	for b.Loop() {
		replyOf(s, 2, "HSET", "myhash", "element:1", "xxx")
	}
}

func BenchmarkHSetNewFields(b *testing.B) {
	s := testStore(b)
	i := 0
	for b.Loop() {
		i++
		replyOf(s, 2, "HSET", "myhash", "element:"+strconv.Itoa(i), "xxx")
	}
}
