package tests

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/rdb"
)

// The RDB file tests: Redis builds every type in every encoding it uses and SAVEs; strata
// import loads the file into a fresh data directory and Strata serves the same keys; strata
// export writes them back, and a fresh redis-server loads that file with the same keys.

// rdbKey is a key as the RDB tests compare it: type, canonical elements and expiry.
type rdbKey struct {
	Type     string
	Elems    []string
	ExpireAt int64
}

// rdbLib is the function library the tests carry through both directions.
const rdbLib = "#!lua name=rdblib\nredis.register_function('rdbf', function() return 'rdb-ok' end)"

// rdbDBs are the databases the fixture fills.
var rdbDBs = []int{0, 3, 15}

// rdbDo runs a command and fails the test on an error reply.
func rdbDo(t *testing.T, c *testutil.Conn, args ...string) testutil.Reply {
	t.Helper()
	r, err := c.Do(args...)
	if err != nil || r.IsError() {
		t.Fatalf("%.80q: %v %s", args, err, r.Str)
	}
	return r
}

// rdbPipeline sends cmds in one go and checks every reply.
func rdbPipeline(t *testing.T, c *testutil.Conn, cmds [][]string) {
	t.Helper()
	for _, cmd := range cmds {
		if err := c.Send(cmd...); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range cmds {
		if r, err := c.ReadReply(); err != nil || r.IsError() {
			t.Fatalf("%.80q: %v %s", cmd, err, r.Str)
		}
	}
}

// fillRDBFixture builds, on Redis 7.0, every type in each encoding it writes to an RDB:
// strings as 8/16/32-bit integers, raw and LZF; lists as quicklists of one and many listpack
// nodes; hashes and sorted sets as listpacks and as tables; sets as intsets and tables;
// collections larger than an import piece; binary keys and values; TTLs; a stream with a
// consumer group and a pending entry; three databases; and a function library.
func fillRDBFixture(t *testing.T, c *testutil.Conn) {
	bin := make([]byte, 256)
	for i := range bin {
		bin[i] = byte(i)
	}
	b := string(bin)
	cmds := [][]string{
		{"SET", "str:int8", "-7"}, {"SET", "str:int16", "30000"}, {"SET", "str:int32", "-2000000000"},
		{"SET", "str:int64", "12345678901234"}, {"SET", "str:raw", "hello"}, {"SET", "str:empty", ""},
		{"SET", "str:lzf", strings.Repeat("abcdefgh", 500)}, {"SET", "str:bin", b},
		{"SET", "str:large", strings.Repeat(b, 4096)}, // 1 MiB: Strata's value log
		{"SET", "bin\x00key\xff", b}, {"SET", "str:ttl", "x", "PX", "5000000"},
		{"RPUSH", "list:small", "a", "b", "1", "-2", "300000", b},
		{"HSET", "hash:small", "f", "v", "n", "12", "bin", b[:60]},
		{"HSET", "hash:bigvalue", "f", strings.Repeat("v", 100)},
		{"SADD", "set:intset", "1", "2", "-5", "70000", "5000000000"},
		{"SADD", "set:table", "a", "b", "c", b},
		{"ZADD", "zset:small", "1", "a", "2.5", "b", "-inf", "c", "inf", "d", "0.1", "e"},
		{"PEXPIRE", "hash:small", "9000000"},
		{"XADD", "stream", "1-1", "f", "v"}, {"XADD", "stream", "2-1", "f", "w", "g", "12"},
		{"XGROUP", "CREATE", "stream", "grp", "0"}, {"XREADGROUP", "GROUP", "grp", "alice", "COUNT", "1", "STREAMS", "stream", ">"},
		{"FUNCTION", "LOAD", rdbLib},
	}
	for i := 0; i < 3000; i++ {
		s := strconv.Itoa(i)
		cmds = append(cmds, []string{"RPUSH", "list:large", s + strings.Repeat("x", i%40)},
			[]string{"SADD", "set:large", s + "m"}, []string{"SADD", "set:largeint", s})
		if i < 600 { // above hash-max-listpack-entries (128) and zset-max-listpack-entries (128)
			cmds = append(cmds, []string{"HSET", "hash:large", "f" + s, "v" + s},
				[]string{"ZADD", "zset:large", strconv.FormatFloat(float64(i)/7, 'g', -1, 64), "m" + s})
		}
	}
	// Collections above the import's 8 MiB piece: committed in several batches.
	chunk := strings.Repeat("y", 4000)
	for i := 0; i < 2500; i++ {
		s := strconv.Itoa(i)
		cmds = append(cmds, []string{"RPUSH", "list:huge", s + chunk}, []string{"SADD", "set:huge", s + chunk},
			[]string{"HSET", "hash:huge", s, chunk}, []string{"ZADD", "zset:huge", s, s + chunk})
	}
	cmds = append(cmds, []string{"PEXPIRE", "list:large", "7000000"}, []string{"SELECT", "3"},
		[]string{"SET", "db3:str", "three"}, []string{"RPUSH", "db3:list", "x"}, []string{"PEXPIRE", "db3:list", "8000000"},
		[]string{"SET", "str:int8", "other db"},
		[]string{"SELECT", "15"}, []string{"ZADD", "db15:zset", "3", "z"}, []string{"SELECT", "0"})
	rdbPipeline(t, c, cmds)
}

// rdbSnapshot reads every key of rdbDBs through commands.
func rdbSnapshot(t *testing.T, c *testutil.Conn) map[string]rdbKey {
	t.Helper()
	out := map[string]rdbKey{}
	for _, db := range rdbDBs {
		rdbDo(t, c, "SELECT", strconv.Itoa(db))
		for _, k := range rdbDo(t, c, "KEYS", "*").Elems {
			key := k.Str
			ks := rdbKey{Type: rdbDo(t, c, "TYPE", key).Str, ExpireAt: rdbDo(t, c, "PEXPIRETIME", key).Int}
			var flat []testutil.Reply
			switch ks.Type {
			case "stream":
				for _, args := range [][]string{{"XRANGE", key, "-", "+"}, {"XINFO", "GROUPS", key}, {"XPENDING", key, "grp"}} {
					ks.Elems = append(ks.Elems, rdbDo(t, c, args...).String())
				}
			case "string":
				ks.Elems = []string{rdbDo(t, c, "GET", key).Str}
			case "list":
				flat = rdbDo(t, c, "LRANGE", key, "0", "-1").Elems
			case "set":
				flat = rdbDo(t, c, "SMEMBERS", key).Elems
			case "hash":
				pairs := rdbDo(t, c, "HGETALL", key).Elems
				for i := 0; i+1 < len(pairs); i += 2 {
					ks.Elems = append(ks.Elems, pairs[i].Str+"="+pairs[i+1].Str)
				}
			case "zset":
				pairs := rdbDo(t, c, "ZRANGE", key, "0", "-1", "WITHSCORES").Elems
				for i := 0; i+1 < len(pairs); i += 2 {
					f, _ := strconv.ParseFloat(pairs[i+1].Str, 64)
					ks.Elems = append(ks.Elems, pairs[i].Str+"="+strconv.FormatFloat(f, 'g', -1, 64))
				}
			}
			for _, e := range flat {
				ks.Elems = append(ks.Elems, e.Str)
			}
			if ks.Type != "list" && ks.Type != "zset" && ks.Type != "stream" {
				sort.Strings(ks.Elems)
			}
			out[fmt.Sprintf("%d/%q", db, key)] = ks
		}
	}
	rdbDo(t, c, "SELECT", "0")
	if r := rdbDo(t, c, "FCALL", "rdbf", "0"); r.Str != "rdb-ok" {
		t.Errorf("FCALL rdbf: %q, want rdb-ok", r.Str)
	}
	return out
}

func compareRDBKeys(t *testing.T, what string, got, want map[string]rdbKey) {
	t.Helper()
	if len(want) < 25 {
		t.Fatalf("%s: only %d keys in the reference: the fixture did not build", what, len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: key %s missing", what, k)
		} else if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: key %s\ngot  %s %d %d elements %.120q\nwant %s %d %d elements %.120q", what, k,
				g.Type, g.ExpireAt, len(g.Elems), g.Elems, w.Type, w.ExpireAt, len(w.Elems), w.Elems)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected key %s", what, k)
		}
	}
}

// runStrataTool runs the built binary with args and returns its combined output.
func runStrataTool(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	return string(out), err
}

// startRedisOnFile runs redis-server with dir/file as its RDB (loaded at start) and returns a
// connection once it answers PING; it is killed when the test ends.
func startRedisOnFile(t *testing.T, dir, file string) *testutil.Conn {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var out bytes.Buffer
	cmd := exec.Command(testutil.RedisServerPath(), "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", dir, "--dbfilename", file, "--save", "", "--appendonly", "no", "--daemonize", "no")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			t.Fatalf("redis-server exited loading %s: %s", file, out.String())
		default:
		}
		if c, err := testutil.Dial(addr); err == nil {
			if r, err := c.Do("PING"); err == nil && r.Str == "PONG" {
				t.Cleanup(func() { c.Close() })
				return c
			}
			c.Close()
		}
	}
	t.Fatalf("redis-server did not answer: %s", out.String())
	return nil
}

// TestRDBFileImportExport is directions (d) and (e): SAVE on Redis, strata import, compare;
// strata export, redis-server loads the file, compare, and redis-check-rdb accepts it.
func TestRDBFileImportExport(t *testing.T) {
	redis := testutil.StartRedis(t)
	rc := testutil.Connect(t, redis.Addr)
	fillRDBFixture(t, rc)
	// Saved with a TTL that has run out by the time the import reads it.
	rdbPipeline(t, rc, [][]string{{"SET", "str:gone", "x", "PX", "300"}, {"SAVE"}})
	time.Sleep(400 * time.Millisecond)
	want := rdbSnapshot(t, rc)
	if _, ok := want[`0/"str:gone"`]; ok {
		t.Fatal("str:gone has not expired on Redis")
	}
	bin := buildStrata(t)

	// (d) import.
	data := t.TempDir()
	out, err := runStrataTool(t, bin, "import", "--dir", data, filepath.Join(redis.Dir, "dump.rdb"))
	if err != nil {
		t.Fatalf("strata import: %v\n%s", err, out)
	}
	t.Logf("import:\n%s", out)
	for _, line := range []string{"skipped 1: already expired", "stream=1", "function libraries: rdblib", "db15: 1 keys (zset=1)"} {
		if !strings.Contains(out, line) {
			t.Errorf("import summary lacks %q", line)
		}
	}
	if out, err := runStrataTool(t, bin, "check", "--dir", data); err != nil {
		t.Fatalf("strata check after import: %v\n%s", err, out)
	}
	strata := testutil.StartStrata(t, func(c *config.Config) { c.Dir = data })
	sc := testutil.Connect(t, strata.Addr)
	compareRDBKeys(t, "import", rdbSnapshot(t, sc), want)
	strata.Close()

	// (e) export.
	exp := t.TempDir()
	out, err = runStrataTool(t, bin, "export", "--dir", data, "--to", filepath.Join(exp, "export.rdb"))
	if err != nil {
		t.Fatalf("strata export: %v\n%s", err, out)
	}
	t.Logf("export:\n%s", out)
	if matches, _ := filepath.Glob(filepath.Join(exp, "*.tmp*")); len(matches) > 0 {
		t.Errorf("export left temporary files: %v", matches)
	}
	loaded := startRedisOnFile(t, exp, "export.rdb")
	compareRDBKeys(t, "export", rdbSnapshot(t, loaded), want)
	if check, err := exec.LookPath("redis-check-rdb"); err == nil {
		out, err := exec.Command(check, filepath.Join(exp, "export.rdb")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "RDB looks OK") {
			t.Errorf("redis-check-rdb: %v\n%s", err, out)
		}
	} else if os.Getenv(testutil.EnvRequireExternal) == "1" {
		t.Errorf("redis-check-rdb not on PATH and %s=1", testutil.EnvRequireExternal)
	} else {
		t.Log("redis-check-rdb not on PATH (package redis-tools): file check skipped")
	}

	// A second import keeps what exists, and --replace and --db behave as documented.
	out, err = runStrataTool(t, bin, "import", "--dir", data, filepath.Join(redis.Dir, "dump.rdb"))
	if err != nil || !strings.Contains(out, fmt.Sprintf("skipped %d: key already exists", len(want))) {
		t.Errorf("second import: want every key skipped as existing: %v\n%s", err, out)
	}
	out, err = runStrataTool(t, bin, "import", "--dir", data, "--replace", filepath.Join(redis.Dir, "dump.rdb"))
	if err != nil || !strings.Contains(out, fmt.Sprintf("import of %s", filepath.Join(redis.Dir, "dump.rdb"))) ||
		strings.Contains(out, "already exists") {
		t.Errorf("import --replace: %v\n%s", err, out)
	}
	merged := t.TempDir()
	out, err = runStrataTool(t, bin, "import", "--dir", merged, "--db", "5", filepath.Join(redis.Dir, "dump.rdb"))
	// str:int8 is in databases 0 and 3: the second is kept out.
	if err != nil || !strings.Contains(out, "skipped 1: key already exists") || !strings.Contains(out, "db5:") {
		t.Errorf("import --db 5: %v\n%s", err, out)
	}
	if out, err := runStrataTool(t, bin, "check", "--dir", data); err != nil {
		t.Errorf("strata check after re-imports: %v\n%s", err, out)
	}
}

// TestRDBFileImportCorrupt imports truncated and damaged files: each fails with a message
// that says why, and the data directory passes strata check and serves what was committed.
func TestRDBFileImportCorrupt(t *testing.T) {
	redis := testutil.StartRedis(t)
	rc := testutil.Connect(t, redis.Addr)
	fillRDBFixture(t, rc)
	rdbDo(t, rc, "SAVE")
	good, err := os.ReadFile(filepath.Join(redis.Dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildStrata(t)
	var dup bytes.Buffer
	w, err := rdb.NewWriter(&dup)
	if err == nil {
		err = errors.Join(w.SelectDB(0), w.Key([]byte("twice"), -1), w.String([]byte("1")),
			w.Key([]byte("twice"), -1), w.String([]byte("2")), w.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/3] ^= 0x5a
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "no RDB header"},
		{"not an RDB", []byte("hello world, this is not redis"), "wrong signature"},
		{"truncated early", good[:len(good)/5], "at byte"},
		{"truncated in a huge value", good[:len(good)/2], "at byte"},
		{"truncated before the checksum", good[:len(good)-4], "at byte"},
		{"flipped byte", flipped, "rdb: "},
		{"duplicate key", dup.Bytes(), "the file holds this key twice"},
	}
	for _, tc := range cases {
		dir := t.TempDir()
		path := filepath.Join(t.TempDir(), "bad.rdb")
		if err := os.WriteFile(path, tc.file, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := runStrataTool(t, bin, "import", "--dir", dir, path)
		if err == nil {
			t.Errorf("%s: import succeeded:\n%s", tc.name, out)
			continue
		}
		if !strings.Contains(out, tc.want) || !strings.Contains(out, "the directory remains usable") {
			t.Errorf("%s: error lacks %q:\n%s", tc.name, tc.want, out)
		}
		if out, err := runStrataTool(t, bin, "check", "--dir", dir); err != nil {
			t.Errorf("%s: strata check after the failed import: %v\n%s", tc.name, err, out)
		}
		if tc.name == "truncated in a huge value" {
			// The directory takes the whole file afterwards.
			if out, err := runStrataTool(t, bin, "import", "--dir", dir, "--replace", filepath.Join(redis.Dir, "dump.rdb")); err != nil {
				t.Errorf("import after the failed one: %v\n%s", err, out)
			}
			if out, err := runStrataTool(t, bin, "check", "--dir", dir); err != nil {
				t.Errorf("strata check after the second import: %v\n%s", err, out)
			}
		}
	}
}
