package commands

import (
	"strconv"
	"strings"
	"testing"
)

// TestRestoreKeepsEncodings: DUMP then RESTORE of small and large hashes, sets and sorted sets
// gives keys of the same contents and the same OBJECT ENCODING, as RESTORE builds a packed
// collection while the value fits the thresholds.
func TestRestoreKeepsEncodings(t *testing.T) {
	s := testStore(t)
	do := func(args ...string) string { return string(runDump(s, nil, bs(args...)...).W.Bytes()) }
	big := func(cmd, key string, n int, withValues bool) {
		args := []string{cmd, key}
		for i := 0; i < n; i++ {
			if cmd == "ZADD" {
				args = append(args, strconv.Itoa(i))
			}
			args = append(args, strconv.Itoa(i))
			if withValues {
				args = append(args, "v")
			}
		}
		do(args...)
	}
	do("HSET", "h", "b", "2", "a", "1")
	big("HSET", "hbig", 600, true)
	do("SADD", "si", "3", "-1", "2")
	do("SADD", "sw", "3", "x")
	big("SADD", "sbig", 600, false)
	do("ZADD", "z", "2", "b", "1", "a")
	big("ZADD", "zbig", 200, false)
	for key, enc := range map[string]string{"h": "listpack", "hbig": "hashtable", "si": "intset", "sw": "hashtable",
		"sbig": "hashtable", "z": "listpack", "zbig": "skiplist"} {
		if got := do("OBJECT", "ENCODING", key); got != "$"+strconv.Itoa(len(enc))+"\r\n"+enc+"\r\n" {
			t.Fatalf("OBJECT ENCODING %s = %q, want %s", key, got, enc)
		}
		dump := []byte(do("DUMP", key))
		payload := string(dump[strings.Index(string(dump), "\r\n")+2 : len(dump)-2])
		if got := do("RESTORE", key+":r", "0", payload); got != "+OK\r\n" {
			t.Fatalf("RESTORE %s: %q", key, got)
		}
		if got := do("OBJECT", "ENCODING", key+":r"); got != "$"+strconv.Itoa(len(enc))+"\r\n"+enc+"\r\n" {
			t.Errorf("OBJECT ENCODING of restored %s = %q, want %s", key, got, enc)
		}
		if got, want := do("DEBUG", "DIGEST-VALUE", key+":r"), do("DEBUG", "DIGEST-VALUE", key); got != want {
			t.Errorf("restored %s digest %q, want %q", key, got, want)
		}
	}
	if got := do("HGETALL", "h:r"); got != "*4\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\na\r\n$1\r\n1\r\n" {
		t.Errorf("restored packed hash keeps insertion order: %q", got)
	}
}
