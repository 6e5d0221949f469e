package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// clDo runs one command on a raw connection and fails the test on an I/O error.
func clDo(t testing.TB, c *testutil.Conn, args ...string) testutil.Reply {
	t.Helper()
	r, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return r
}

// clExpect runs a command and checks the rendering of its reply.
func clExpect(t testing.TB, c *testutil.Conn, want string, args ...string) {
	t.Helper()
	if got := clDo(t, c, args...).String(); got != want {
		t.Errorf("%v:\n got %s\nwant %s", args, got, want)
	}
}

func clConn(t testing.TB, inst *testutil.Instance) *testutil.Conn {
	t.Helper()
	c := testutil.Connect(t, inst.Addr)
	c.Timeout = 5 * time.Second
	return c
}

// TestGoRedisProtocols runs string, keyspace and introspection commands through go-redis v9
// with RESP2 and RESP3, with go-redis's own handshake (HELLO, CLIENT SETINFO).
func TestGoRedisProtocols(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			rdb := testutil.Client(t, inst, func(o *redis.Options) {
				o.Protocol = proto
				o.DisableIdentity = false
				o.ClientName = fmt.Sprintf("gr%d", proto)
			})
			p := fmt.Sprintf("p%d:", proto)
			if err := rdb.Ping(ctx).Err(); err != nil {
				t.Fatalf("PING: %v", err)
			}
			if err := rdb.Set(ctx, p+"s", "hello", 0).Err(); err != nil {
				t.Fatal(err)
			}
			if v, err := rdb.Get(ctx, p+"s").Result(); err != nil || v != "hello" {
				t.Errorf("GET = %q, %v", v, err)
			}
			if _, err := rdb.Get(ctx, p+"missing").Result(); err != redis.Nil {
				t.Errorf("GET missing: err %v, want redis.Nil", err)
			}
			if n, err := rdb.Incr(ctx, p+"n").Result(); err != nil || n != 1 {
				t.Errorf("INCR = %d, %v", n, err)
			}
			if f, err := rdb.IncrByFloat(ctx, p+"f", 1.5).Result(); err != nil || f != 1.5 {
				t.Errorf("INCRBYFLOAT = %v, %v", f, err)
			}
			if vs, err := rdb.MGet(ctx, p+"s", p+"missing").Result(); err != nil || len(vs) != 2 || vs[0] != "hello" || vs[1] != nil {
				t.Errorf("MGET = %#v, %v", vs, err)
			}
			if ok, err := rdb.Expire(ctx, p+"s", time.Hour).Result(); err != nil || !ok {
				t.Errorf("EXPIRE = %v, %v", ok, err)
			}
			if d, err := rdb.TTL(ctx, p+"s").Result(); err != nil || d <= 0 || d > time.Hour {
				t.Errorf("TTL = %v, %v", d, err)
			}
			if typ, err := rdb.Type(ctx, p+"s").Result(); err != nil || typ != "string" {
				t.Errorf("TYPE = %q, %v", typ, err)
			}
			if n, err := rdb.Exists(ctx, p+"s", p+"n", p+"missing").Result(); err != nil || n != 2 {
				t.Errorf("EXISTS = %d, %v", n, err)
			}
			if n, err := rdb.Del(ctx, p+"s", p+"missing").Result(); err != nil || n != 1 {
				t.Errorf("DEL = %d, %v", n, err)
			}
			if err := rdb.Set(ctx, p+"s", 1, 0).Err(); err != nil {
				t.Fatal(err)
			}
			if err := rdb.HSet(ctx, p+"h", "a", "1", "b", "2").Err(); err != nil {
				t.Fatal(err)
			}
			if m, err := rdb.HGetAll(ctx, p+"h").Result(); err != nil || len(m) != 2 || m["a"] != "1" || m["b"] != "2" {
				t.Errorf("HGETALL = %v, %v", m, err)
			}
			if err := rdb.Incr(ctx, p+"s").Err(); err != nil {
				t.Fatal(err)
			}
			if _, err := rdb.Incr(ctx, p+"h").Result(); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
				t.Errorf("INCR on a hash: err %v, want WRONGTYPE", err)
			}

			// Connection and introspection commands.
			id, err := rdb.ClientID(ctx).Result()
			if err != nil || id <= 0 {
				t.Fatalf("CLIENT ID = %d, %v", id, err)
			}
			if name, err := rdb.ClientGetName(ctx).Result(); err != nil || name != fmt.Sprintf("gr%d", proto) {
				t.Errorf("CLIENT GETNAME = %q, %v", name, err)
			}
			info, err := rdb.ClientInfo(ctx).Result()
			if err != nil {
				t.Fatalf("CLIENT INFO: %v", err)
			}
			if info.ID != id || info.Name != fmt.Sprintf("gr%d", proto) || info.LibName == "" || info.Resp != proto {
				t.Errorf("CLIENT INFO = %+v", info)
			}
			list, err := rdb.ClientList(ctx).Result()
			if err != nil || !strings.Contains(list, fmt.Sprintf("id=%d ", id)) || !strings.Contains(list, "lib-name=go-redis") {
				t.Errorf("CLIENT LIST = %q, %v", list, err)
			}
			cfg, err := rdb.ConfigGet(ctx, "maxclients").Result()
			if err != nil || cfg["maxclients"] != "10000" {
				t.Errorf("CONFIG GET maxclients = %v, %v", cfg, err)
			}
			text, err := rdb.Info(ctx, "server", "keyspace").Result()
			if err != nil || !strings.Contains(text, "redis_version:7.0.15\r\n") || !strings.Contains(text, "# Keyspace\r\ndb0:keys=") {
				t.Errorf("INFO = %q, %v", text, err)
			}
			cmds, err := rdb.Command(ctx).Result()
			if err != nil {
				t.Fatalf("COMMAND: %v", err)
			}
			if get := cmds["get"]; get == nil || get.Arity != 2 || get.FirstKeyPos != 1 || !get.ReadOnly {
				t.Errorf("COMMAND get = %+v", get)
			}
			if n, err := rdb.Do(ctx, "COMMAND", "COUNT").Int(); err != nil || n != len(cmds) {
				t.Errorf("COMMAND COUNT = %d (COMMAND has %d), %v", n, len(cmds), err)
			}
			keys, err := rdb.CommandGetKeys(ctx, "mset", "a", "1", "b", "2").Result()
			if err != nil || strings.Join(keys, ",") != "a,b" {
				t.Errorf("COMMAND GETKEYS = %v, %v", keys, err)
			}
		})
	}
}

// TestRequirePass checks the authentication flow of a server started with requirepass.
func TestRequirePass(t *testing.T) {
	inst := testutil.StartStrata(t, func(c *config.Config) { c.RequirePass = "s3cret" })
	c := clConn(t, inst)
	clExpect(t, c, "(error) NOAUTH Authentication required.", "GET", "k")
	clExpect(t, c, "(error) NOAUTH Authentication required.", "CLIENT", "LIST")
	clExpect(t, c, "(error) ERR wrong number of arguments for 'get' command", "GET")
	clExpect(t, c, "(error) ERR unknown command 'NOPE', with args beginning with: ", "NOPE")
	clExpect(t, c, "(error) NOAUTH HELLO must be called with the client already authenticated, otherwise the "+
		"HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP "+
		"protocol version at the same time", "HELLO", "3")
	clExpect(t, c, "(error) NOAUTH HELLO must be called with the client already authenticated, otherwise the "+
		"HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP "+
		"protocol version at the same time", "HELLO")
	clExpect(t, c, "(error) WRONGPASS invalid username-password pair or user is disabled.", "HELLO", "3", "AUTH", "default", "wrong")
	clExpect(t, c, "(error) ERR Client names cannot contain spaces, newlines or special characters.", "HELLO", "3", "SETNAME", "a b")
	clExpect(t, c, "(error) NOPROTO unsupported protocol version", "HELLO", "9", "AUTH", "default", "s3cret")
	clExpect(t, c, "(error) WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "wrong")
	clExpect(t, c, "(error) WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "other", "s3cret")
	clExpect(t, c, "(error) NOAUTH Authentication required.", "PING")
	clExpect(t, c, "OK", "AUTH", "s3cret")
	clExpect(t, c, "PONG", "PING")
	clExpect(t, c, "OK", "AUTH", "default", "s3cret")
	// A failed AUTH does not log an authenticated client out, as in Redis.
	clExpect(t, c, "(error) WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "nope")
	clExpect(t, c, "(nil)", "GET", "k")

	// HELLO with AUTH authenticates and switches protocol at once.
	c2 := clConn(t, inst)
	r := clDo(t, c2, "HELLO", "3", "AUTH", "default", "s3cret", "SETNAME", "authed")
	if r.Kind != testutil.KindMap || len(r.Elems) != 14 || r.Elems[5].Int != 3 {
		t.Errorf("HELLO 3 AUTH: %s", r)
	}
	clExpect(t, c2, "(null)", "GET", "k")
	clExpect(t, c2, `"authed"`, "CLIENT", "GETNAME")

	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		rdb := testutil.Client(t, inst, func(o *redis.Options) { o.Protocol = proto; o.Password = "s3cret" })
		if err := rdb.Set(ctx, "k", proto, 0).Err(); err != nil {
			t.Errorf("go-redis RESP%d with password: %v", proto, err)
		}
		bad := testutil.Client(t, inst, func(o *redis.Options) { o.Protocol = proto; o.MaxRetries = -1 })
		if err := bad.Get(ctx, "k").Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
			t.Errorf("go-redis RESP%d without password: err %v, want NOAUTH", proto, err)
		}
		wrong := testutil.Client(t, inst, func(o *redis.Options) { o.Protocol = proto; o.Password = "nope"; o.MaxRetries = -1 })
		if err := wrong.Get(ctx, "k").Err(); err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
			t.Errorf("go-redis RESP%d with a wrong password: err %v, want WRONGPASS", proto, err)
		}
	}

	// CONFIG SET requirepass takes effect for new connections; connected ones stay logged in.
	clExpect(t, c, "OK", "CONFIG", "SET", "requirepass", "")
	c3 := clConn(t, inst)
	clExpect(t, c3, "PONG", "PING")
	clExpect(t, c3, "(error) ERR AUTH <password> called without any password configured for the default user. "+
		"Are you sure your configuration is correct?", "AUTH", "x")
	clExpect(t, c, "OK", "CONFIG", "SET", "requirepass", "again")
	c4 := clConn(t, inst)
	clExpect(t, c4, "(error) NOAUTH Authentication required.", "PING")
	clExpect(t, c3, "PONG", "PING")
	clExpect(t, c4, "OK", "AUTH", "again")
}

// clientIDOf returns the id field of the CLIENT LIST line of the client named name.
func clientIDOf(t testing.TB, list, name string) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^id=(\d+) .* name=` + regexp.QuoteMeta(name) + ` `)
	m := re.FindStringSubmatch(list)
	if m == nil {
		t.Fatalf("no client named %s in:\n%s", name, list)
	}
	return m[1]
}

// TestClientListAndKill checks CLIENT LIST's content and every CLIENT KILL form.
func TestClientListAndKill(t *testing.T) {
	inst := testutil.StartStrata(t)
	admin := clConn(t, inst)
	clExpect(t, admin, "OK", "CLIENT", "SETNAME", "admin")
	victims := map[string]*testutil.Conn{}
	for _, n := range []string{"v1", "v2", "v3", "v4"} {
		v := clConn(t, inst)
		clExpect(t, v, "OK", "CLIENT", "SETNAME", n)
		victims[n] = v
	}
	clExpect(t, victims["v2"], "OK", "SELECT", "5")
	clExpect(t, victims["v2"], "(nil)", "GET", "x")

	list := clDo(t, admin, "CLIENT", "LIST").Str
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("CLIENT LIST has %d lines, want 5:\n%s", len(lines), list)
	}
	for _, l := range lines {
		if !regexp.MustCompile(`^id=\d+ addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:\d+ fd=\d+ name=\S* age=\d+ idle=\d+ flags=N db=\d+ sub=0 psub=0 ssub=0 multi=-1 .* cmd=\S+ user=default redir=-1 resp=2`).MatchString(l) {
			t.Errorf("unexpected CLIENT LIST line: %s", l)
		}
	}
	if !regexp.MustCompile(`name=v2 .* db=5 .* cmd=get `).MatchString(list) {
		t.Errorf("v2 should show db=5 cmd=get:\n%s", list)
	}
	if !regexp.MustCompile(`name=admin .* cmd=client\|list `).MatchString(list) {
		t.Errorf("admin should show cmd=client|list:\n%s", list)
	}
	v1 := clientIDOf(t, list, "v1")
	if got := clDo(t, admin, "CLIENT", "LIST", "ID", v1).Str; !strings.Contains(got, "name=v1 ") || strings.Count(got, "\n") != 1 {
		t.Errorf("CLIENT LIST ID %s = %q", v1, got)
	}

	// KILL ID
	clExpect(t, admin, "(integer) 1", "CLIENT", "KILL", "ID", v1)
	if closed, _ := victims["v1"].ExpectClosed(2 * time.Second); !closed {
		t.Error("v1 still connected after CLIENT KILL ID")
	}
	// Old form: KILL addr
	v2addr := victims["v2"].NetConn().LocalAddr().String()
	clExpect(t, admin, "OK", "CLIENT", "KILL", v2addr)
	if closed, _ := victims["v2"].ExpectClosed(2 * time.Second); !closed {
		t.Error("v2 still connected after CLIENT KILL addr")
	}
	clExpect(t, admin, "(error) ERR No such client", "CLIENT", "KILL", v2addr)
	// ADDR filter
	clExpect(t, admin, "(integer) 1", "CLIENT", "KILL", "ADDR", victims["v3"].NetConn().LocalAddr().String())
	if closed, _ := victims["v3"].ExpectClosed(2 * time.Second); !closed {
		t.Error("v3 still connected after CLIENT KILL ADDR")
	}
	list = clDo(t, admin, "CLIENT", "LIST").Str
	if strings.Contains(list, "name=v1 ") || strings.Contains(list, "name=v2 ") || strings.Contains(list, "name=v3 ") {
		t.Errorf("killed clients still listed:\n%s", list)
	}
	// LADDR / USER filters kill everyone else; SKIPME yes (the default) spares the caller.
	clExpect(t, admin, "(integer) 1", "CLIENT", "KILL", "LADDR", inst.Addr)
	if closed, _ := victims["v4"].ExpectClosed(2 * time.Second); !closed {
		t.Error("v4 still connected after CLIENT KILL LADDR")
	}
	clExpect(t, admin, "(integer) 0", "CLIENT", "KILL", "USER", "default")
	clExpect(t, admin, "PONG", "PING")
	// SKIPME no kills the caller after its reply.
	clExpect(t, admin, "(integer) 1", "CLIENT", "KILL", "USER", "default", "SKIPME", "no")
	if closed, _ := admin.ExpectClosed(2 * time.Second); !closed {
		t.Error("caller still connected after CLIENT KILL ... SKIPME no")
	}
	c := clConn(t, inst)
	if list := clDo(t, c, "CLIENT", "LIST").Str; strings.Count(list, "\n") != 1 {
		t.Errorf("one client left, CLIENT LIST:\n%s", list)
	}
}

// TestClientPause checks that PAUSE WRITE holds writes only, PAUSE ALL holds everything, and
// UNPAUSE releases held clients at once.
func TestClientPause(t *testing.T) {
	inst := testutil.StartStrata(t)
	admin, c := clConn(t, inst), clConn(t, inst)

	clExpect(t, admin, "OK", "CLIENT", "PAUSE", "400", "WRITE")
	start := time.Now()
	clExpect(t, c, "(nil)", "GET", "k")
	clExpect(t, c, "(error) ERR unknown command 'NOPE', with args beginning with: ", "NOPE")
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("reads took %v during PAUSE WRITE", d)
	}
	clExpect(t, c, "OK", "SET", "k", "v")
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("SET answered after %v during a 400ms PAUSE WRITE", d)
	}

	clExpect(t, admin, "OK", "CLIENT", "PAUSE", "10000", "WRITE")
	done := make(chan time.Time, 1)
	go func() {
		r, err := c.Do("SET", "k", "w")
		if err != nil || r.Str != "OK" {
			t.Errorf("held SET: %v %v", r, err)
		}
		done <- time.Now()
	}()
	time.Sleep(150 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("SET answered during PAUSE")
	default:
	}
	if info := clDo(t, admin, "CLIENT", "LIST").Str; !strings.Contains(info, "flags=b ") {
		t.Errorf("held client not flagged b:\n%s", info)
	}
	unpaused := time.Now()
	clExpect(t, admin, "OK", "CLIENT", "UNPAUSE")
	select {
	case at := <-done:
		if at.Sub(unpaused) > time.Second {
			t.Errorf("SET released %v after UNPAUSE", at.Sub(unpaused))
		}
	case <-time.After(3 * time.Second):
		t.Fatal("SET still held after UNPAUSE")
	}
	clExpect(t, c, `"w"`, "GET", "k")

	clExpect(t, admin, "OK", "CLIENT", "PAUSE", "300", "ALL")
	start = time.Now()
	clExpect(t, c, `"w"`, "GET", "k")
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("GET answered after %v during PAUSE ALL", d)
	}
}

// TestClientReply checks CLIENT REPLY OFF, SKIP and ON.
func TestClientReply(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := clConn(t, inst)
	for _, cmd := range [][]string{{"CLIENT", "REPLY", "SKIP"}, {"SET", "a", "1"}, {"PING", "b"},
		{"CLIENT", "REPLY", "OFF"}, {"SET", "c", "2"}, {"GET", "nokey"}, {"CLIENT", "REPLY", "ON"}, {"GET", "a"}} {
		if err := c.Send(cmd...); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{`"b"`, "OK", `"1"`} {
		r, err := c.ReadReply()
		if err != nil {
			t.Fatal(err)
		}
		if r.String() != want {
			t.Errorf("reply %s, want %s", r, want)
		}
	}
	clExpect(t, c, `"2"`, "GET", "c")
}

// TestInfoSections checks INFO's sections, counters, commandstats, errorstats and keyspace,
// and CONFIG RESETSTAT.
func TestInfoSections(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := clConn(t, inst)
	clExpect(t, c, "OK", "SET", "a", "1")
	clExpect(t, c, "OK", "SET", "b", "2", "EX", "100")
	clDo(t, c, "INCR", "nonint-free")
	clExpect(t, c, "OK", "SET", "s", "x")
	clDo(t, c, "INCR", "s")
	clDo(t, c, "GET")
	clDo(t, c, "HSET", "a", "f", "v")

	sections := func(text string) []string {
		var out []string
		for _, l := range strings.Split(text, "\r\n") {
			if strings.HasPrefix(l, "# ") {
				out = append(out, strings.TrimPrefix(l, "# "))
			}
		}
		return out
	}
	def := clDo(t, c, "INFO").Str
	want := "Server Clients Memory Persistence Stats Replication CPU Modules Errorstats Cluster Keyspace Storage"
	if got := strings.Join(sections(def), " "); got != want {
		t.Errorf("INFO sections: %s\nwant %s", got, want)
	}
	all := clDo(t, c, "INFO", "all").Str
	if got := strings.Join(sections(all), " "); !strings.Contains(got, "Commandstats") || strings.Contains(got, "Modules") {
		t.Errorf("INFO all sections: %s", got)
	}
	every := clDo(t, c, "INFO", "everything").Str
	if got := strings.Join(sections(every), " "); !strings.Contains(got, "Commandstats") || !strings.Contains(got, "Modules") {
		t.Errorf("INFO everything sections: %s", got)
	}
	if got := sections(clDo(t, c, "INFO", "CPU", "memory").Str); strings.Join(got, " ") != "Memory CPU" {
		t.Errorf("INFO cpu memory sections: %v", got)
	}
	fields := map[string]string{}
	for _, l := range strings.Split(every, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, "#") {
			fields[k] = v
		}
	}
	for k, want := range map[string]string{
		"redis_version": "7.0.15", "redis_mode": "standalone", "role": "master", "connected_slaves": "0",
		"connected_clients": "1", "maxclients": "10000", "cluster_enabled": "0", "arch_bits": "64",
		"db0": "keys=4,expires=1,avg_ttl=0", "cmdstat_set": "calls=3,usec=", "cmdstat_get": "calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0",
		"cmdstat_incr": "calls=2,", "errorstat_ERR": "count=2", "errorstat_WRONGTYPE": "count=1",
		"total_error_replies": "3", "storage_engine": "leveldb", "tcp_port": strings.Split(inst.Addr, ":")[1],
		"process_id": strconv.Itoa(os.Getpid()), "total_connections_received": "1",
	} {
		if got, ok := fields[k]; !ok || !strings.HasPrefix(got, want) {
			t.Errorf("INFO %s = %q, want prefix %q", k, got, want)
		}
	}
	for _, k := range []string{"strata_version", "uptime_in_seconds", "used_memory", "used_memory_rss", "used_cpu_sys",
		"used_cpu_user", "total_commands_processed", "total_net_input_bytes", "total_net_output_bytes",
		"rejected_connections", "expired_keys", "leveldb_tables", "leveldb_io_write", "leveldb_block_cache_used", "run_id"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("INFO lacks %s", k)
		}
	}
	if n, _ := strconv.Atoi(fields["used_memory_rss"]); n <= 0 {
		t.Errorf("used_memory_rss = %q", fields["used_memory_rss"])
	}
	if r := clDo(t, c, "INFO", "nosuchsection"); r.Kind != testutil.KindBulk || r.Str != "" {
		t.Errorf("INFO nosuchsection = %s", r)
	}

	clExpect(t, c, "OK", "CONFIG", "RESETSTAT")
	// As in Redis, the RESETSTAT call itself is counted after the reset.
	stats := clDo(t, c, "INFO", "commandstats", "errorstats").Str
	if !regexp.MustCompile(`^# Commandstats\r\ncmdstat_config\|resetstat:calls=1,[^\r]*\r\n\r\n# Errorstats\r\n$`).MatchString(stats) {
		t.Errorf("after RESETSTAT: %q", stats)
	}
	stats = clDo(t, c, "INFO", "commandstats").Str
	if !strings.Contains(stats, "cmdstat_info:calls=1,") {
		t.Errorf("INFO counts itself once after RESETSTAT: %q", stats)
	}
}

// TestConfigSetAtRunTime checks that maxclients and timeout take effect when set.
func TestConfigSetAtRunTime(t *testing.T) {
	inst := testutil.StartStrata(t)
	admin := clConn(t, inst)
	clExpect(t, admin, "OK", "CONFIG", "SET", "maxclients", "2")
	second := clConn(t, inst)
	clExpect(t, second, "PONG", "PING")
	third := clConn(t, inst)
	r, err := third.ReadReply()
	if err != nil || r.String() != "(error) ERR max number of clients reached" {
		t.Errorf("third client: %v %v", r, err)
	}
	if fields := clDo(t, admin, "INFO", "stats").Str; !strings.Contains(fields, "rejected_connections:1\r\n") {
		t.Errorf("rejected_connections not counted:\n%s", fields)
	}
	clExpect(t, admin, "OK", "CONFIG", "SET", "maxclients", "10000")

	clExpect(t, admin, "OK", "CONFIG", "SET", "timeout", "1")
	idle := clConn(t, inst)
	clExpect(t, idle, "PONG", "PING")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // keeps admin active
		defer wg.Done()
		for i := 0; i < 12; i++ {
			time.Sleep(250 * time.Millisecond)
			if r, err := admin.Do("PING"); err != nil || r.Str != "PONG" {
				t.Errorf("active client: %v %v", r, err)
				return
			}
		}
	}()
	if closed, _ := idle.ExpectClosed(4 * time.Second); !closed {
		t.Error("idle client not closed with timeout 1")
	}
	wg.Wait()
	clExpect(t, admin, "OK", "CONFIG", "SET", "timeout", "0")
	clExpect(t, admin, `1) "timeout"`+"\n"+`2) "0"`, "CONFIG", "GET", "timeout")
}

// TestConfigRewrite checks CONFIG REWRITE against the file the server started with.
func TestConfigRewrite(t *testing.T) {
	inst := testutil.StartStrata(t)
	c := clConn(t, inst)
	clExpect(t, c, "(error) ERR The server is running without a config file", "CONFIG", "REWRITE")
	path := filepath.Join(t.TempDir(), "strata.conf")
	if err := os.WriteFile(path, []byte("# test\ntimeout 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inst.Server.SetConfigFile(path)
	clExpect(t, c, "OK", "CONFIG", "SET", "timeout", "77", "maxclients", "500")
	clExpect(t, c, "OK", "CONFIG", "REWRITE")
	data, _ := os.ReadFile(path)
	// The test server's own non-default directives (port 0, dir, metrics-addr) are written too.
	if got := string(data); !strings.HasPrefix(got, "# test\ntimeout 77\n\n# Generated by CONFIG REWRITE\n") ||
		!strings.Contains(got, "\nmaxclients 500\n") || !strings.Contains(got, "\nport 0\n") {
		t.Errorf("rewritten file:\n%s", got)
	}
	back := config.Default()
	if err := back.LoadFile(path); err != nil {
		t.Fatalf("reload: %v", err)
	}
	if back.Timeout != 77 || back.MaxClients != 500 || back.Dir != inst.Dir {
		t.Errorf("reloaded config: timeout %d maxclients %d dir %q", back.Timeout, back.MaxClients, back.Dir)
	}
	if info := clDo(t, c, "INFO", "server").Str; !strings.Contains(info, "config_file:"+path+"\r\n") {
		t.Errorf("INFO config_file missing:\n%s", info)
	}
}

// TestNodeClients runs tests/node/test.mjs, a transcript of commands through the Node.js
// clients node-redis (RESP2 and RESP3) and ioredis, against a Strata server. It installs the
// npm packages from package-lock.json when tests/node/node_modules is missing. Without node and
// npm it is skipped, or fails when STRATA_REQUIRE_EXTERNAL=1.
func TestNodeClients(t *testing.T) {
	external := os.Getenv(testutil.EnvRequireExternal) == "1"
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if external {
			t.Fatalf("%s (and %s=1)", msg, testutil.EnvRequireExternal)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH; install Node.js >= 20 and npm to run the Node client test")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		unavailable("npm is not on PATH; install npm to run the Node client test")
	}
	dir, err := filepath.Abs("node")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		args := []string{"ci", "--no-audit", "--no-fund"}
		if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err != nil {
			args[0] = "install"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			os.RemoveAll(filepath.Join(dir, "node_modules")) // don't leave a half install behind
			unavailable("npm %s in %s failed: %v\n%s", args[0], dir, err, out)
		}
	}
	inst := testutil.StartStrata(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STRATA_ADDR="+inst.Addr)
	out, err := cmd.CombinedOutput()
	t.Logf("node test.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("node test.mjs failed: %v", err)
	}
}
