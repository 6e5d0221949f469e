package tests

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
	"github.com/strata-db/strata/server"
)

// aclConn opens a raw connection with a timeout.
func aclConn(t testing.TB, addr string) *testutil.Conn {
	t.Helper()
	c := testutil.Connect(t, addr)
	c.Timeout = 5 * time.Second
	return c
}

// aclDo runs one command on a raw connection and fails the test on an I/O error.
func aclDo(t testing.TB, c *testutil.Conn, args ...string) testutil.Reply {
	t.Helper()
	r, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return r
}

// aclExpect runs a command and checks the rendering of its reply.
func aclExpect(t testing.TB, c *testutil.Conn, want string, args ...string) {
	t.Helper()
	if got := aclDo(t, c, args...).String(); got != want {
		t.Errorf("%v:\n got %s\nwant %s", args, got, want)
	}
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// aclField returns a field of a map reply (RESP3 map or RESP2 flat array).
func aclField(t testing.TB, r testutil.Reply, name string) testutil.Reply {
	t.Helper()
	for i := 0; i+1 < len(r.Elems); i += 2 {
		if r.Elems[i].Text() == name {
			return r.Elems[i+1]
		}
	}
	t.Fatalf("no field %q in %s", name, r)
	return testutil.Reply{}
}

const (
	noPermKey     = "NOPERM this user has no permissions to access one of the keys used as arguments"
	noPermChannel = "NOPERM this user has no permissions to access one of the channels used as arguments"
	wrongPass     = "WRONGPASS invalid username-password pair or user is disabled."
)

func noPermCmd(name string) string {
	return fmt.Sprintf("NOPERM this user has no permissions to run the '%s' command", name)
}

// TestACLGoRedis runs go-redis clients (RESP2: AUTH user pass; RESP3: HELLO 3 AUTH) as an ACL
// user: allowed and denied commands, keys and channels, ACL WHOAMI, and the admin's view
// through ACL LIST, ACL GETUSER and CLIENT LIST.
func TestACLGoRedis(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := context.Background()
	admin := testutil.Client(t, inst)
	if err := admin.Do(ctx, "ACL", "SETUSER", "app", "on", ">app-pw", "~app:*", "%R~shared:*", "&app.*",
		"+@read", "+@write", "-@dangerous", "+acl|whoami", "+publish", "+client|setname", "+client|setinfo").Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Set(ctx, "shared:1", "s", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			app := testutil.Client(t, inst, func(o *redis.Options) {
				o.Protocol, o.Username, o.Password, o.ClientName = proto, "app", "app-pw", fmt.Sprintf("app%d", proto)
				o.DisableIdentity = false
			})
			errIs := func(err error, want string) {
				t.Helper()
				if err == nil || err.Error() != want {
					t.Errorf("error %v, want %q", err, want)
				}
			}
			if err := app.Set(ctx, "app:1", "v", 0).Err(); err != nil {
				t.Fatalf("SET app:1: %v", err)
			}
			if v, err := app.Get(ctx, "app:1").Result(); err != nil || v != "v" {
				t.Errorf("GET app:1 = %q, %v", v, err)
			}
			if v, err := app.Get(ctx, "shared:1").Result(); err != nil || v != "s" {
				t.Errorf("GET shared:1 = %q, %v", v, err)
			}
			errIs(app.Set(ctx, "shared:1", "x", 0).Err(), noPermKey)
			errIs(app.Get(ctx, "other").Err(), noPermKey)
			errIs(app.MGet(ctx, "app:1", "other").Err(), noPermKey)
			errIs(app.FlushAll(ctx).Err(), noPermCmd("flushall"))
			errIs(app.ConfigGet(ctx, "maxclients").Err(), noPermCmd("config|get"))
			errIs(app.Publish(ctx, "other", "m").Err(), noPermChannel)
			if n, err := app.Publish(ctx, "app.news", "m").Result(); err != nil || n != 0 {
				t.Errorf("PUBLISH app.news = %d, %v", n, err)
			}
			if who, err := app.Do(ctx, "ACL", "WHOAMI").Text(); err != nil || who != "app" {
				t.Errorf("ACL WHOAMI = %q, %v", who, err)
			}
			if v, err := admin.Get(ctx, "shared:1").Result(); err != nil || v != "s" {
				t.Errorf("shared:1 changed: %q, %v", v, err)
			}
			list, err := admin.ClientList(ctx).Result()
			if err != nil || !regexp.MustCompile(fmt.Sprintf(`name=app%d .* user=app `, proto)).MatchString(list) {
				t.Errorf("CLIENT LIST does not show user=app for app%d: %v\n%s", proto, err, list)
			}
		})
	}
	users, err := admin.Do(ctx, "ACL", "LIST").StringSlice()
	want := "user app on #" + sha256Hex("app-pw") + " ~app:* %R~shared:* resetchannels &app.* -@all "
	if err != nil || len(users) != 2 || !strings.HasPrefix(users[0], want) || users[1] != "user default on nopass ~* &* +@all" {
		t.Errorf("ACL LIST = %q, %v; want %q... and the default user", users, err, want)
	}
	if who, err := admin.Do(ctx, "ACL", "WHOAMI").Text(); err != nil || who != "default" {
		t.Errorf("admin ACL WHOAMI = %q, %v", who, err)
	}
	c := aclConn(t, inst.Addr)
	u := aclDo(t, c, "ACL", "GETUSER", "app")
	if f := aclField(t, u, "flags"); f.String() != `1) "on"` {
		t.Errorf("flags %s", f)
	}
	if p := aclField(t, u, "passwords"); len(p.Elems) != 1 || p.Elems[0].Str != sha256Hex("app-pw") {
		t.Errorf("passwords %s", p)
	}
	if k := aclField(t, u, "keys"); k.Str != "~app:* %R~shared:*" {
		t.Errorf("keys %s", k)
	}
	if ch := aclField(t, u, "channels"); ch.Str != "&app.*" {
		t.Errorf("channels %s", ch)
	}
	if cmds := aclField(t, u, "commands").Str; !strings.HasPrefix(cmds, "-@all +@") || !strings.Contains(cmds, " +acl|whoami") {
		t.Errorf("commands %q", cmds)
	}

	// Wrong passwords and disabled users are refused; a connected client keeps working when its
	// user is turned off (as in Redis), and is disconnected when its user is deleted.
	bad := testutil.Client(t, inst, func(o *redis.Options) { o.Username, o.Password, o.MaxRetries = "app", "nope", -1 })
	if err := bad.Ping(ctx).Err(); err == nil || err.Error() != wrongPass {
		t.Errorf("wrong password: %v", err)
	}
	raw := aclConn(t, inst.Addr)
	aclExpect(t, raw, "OK", "AUTH", "app", "app-pw")
	aclExpect(t, c, "OK", "ACL", "SETUSER", "app", "off")
	aclExpect(t, raw, `"app"`, "ACL", "WHOAMI")
	aclExpect(t, aclConn(t, inst.Addr), "(error) "+wrongPass, "AUTH", "app", "app-pw")
	aclExpect(t, c, "(integer) 1", "ACL", "DELUSER", "app")
	if closed, _ := raw.ExpectClosed(5 * time.Second); !closed {
		t.Error("the deleted user's connection stays open")
	}
}

// TestACLDefaultUser checks requirepass as the default user's password (ACL LIST shows its
// hash; CONFIG SET replaces it) and the default user changed by ACL SETUSER.
func TestACLDefaultUser(t *testing.T) {
	inst := testutil.StartStrata(t, func(c *config.Config) { c.RequirePass = "s3cret" })
	c := aclConn(t, inst.Addr)
	aclExpect(t, c, "(error) NOAUTH Authentication required.", "ACL", "WHOAMI")
	aclExpect(t, c, "OK", "AUTH", "default", "s3cret")
	aclExpect(t, c, `1) "user default on #`+sha256Hex("s3cret")+` ~* &* +@all"`, "ACL", "LIST")
	aclExpect(t, c, "OK", "CONFIG", "SET", "requirepass", "n3w")
	aclExpect(t, c, `1) "user default on #`+sha256Hex("n3w")+` ~* &* +@all"`, "ACL", "LIST")
	c2 := aclConn(t, inst.Addr)
	aclExpect(t, c2, "(error) "+wrongPass, "AUTH", "s3cret")
	aclExpect(t, c2, "OK", "AUTH", "n3w")
	// HELLO AUTH as another user.
	aclExpect(t, c, "OK", "ACL", "SETUSER", "ops", "on", ">ops-pw", "allkeys", "+@all", "-@dangerous")
	c3 := aclConn(t, inst.Addr)
	aclExpect(t, c3, "(error) "+wrongPass, "HELLO", "3", "AUTH", "ops", "bad")
	if r := aclDo(t, c3, "HELLO", "3", "AUTH", "ops", "ops-pw", "SETNAME", "opsconn"); r.Kind != testutil.KindMap {
		t.Errorf("HELLO 3 AUTH: %s", r)
	}
	aclExpect(t, c3, `"ops"`, "ACL", "WHOAMI")
	aclExpect(t, c3, "(error) "+noPermCmd("flushall"), "FLUSHALL")
	if list := aclDo(t, c, "CLIENT", "LIST").Str; !strings.Contains(list, " name=opsconn ") ||
		!regexp.MustCompile(`name=opsconn .* user=ops `).MatchString(list) {
		t.Errorf("CLIENT LIST:\n%s", list)
	}
	aclExpect(t, c, "(integer) 1", "CLIENT", "KILL", "USER", "ops")
	aclExpect(t, c, "(error) ERR No such user 'nobody'", "CLIENT", "KILL", "USER", "nobody")

	// A default user without password (ACL SETUSER, not requirepass) lets new clients in; one
	// that is off makes every client authenticate.
	aclExpect(t, c, "OK", "ACL", "SETUSER", "default", "nopass")
	aclExpect(t, aclConn(t, inst.Addr), "PONG", "PING")
	aclExpect(t, c, "OK", "ACL", "SETUSER", "default", "off")
	c4 := aclConn(t, inst.Addr)
	aclExpect(t, c4, "(error) NOAUTH Authentication required.", "PING")
	aclExpect(t, c4, "(error) "+wrongPass, "AUTH", "default", "x")
	aclExpect(t, c4, "OK", "AUTH", "ops", "ops-pw")
	aclExpect(t, c4, "PONG", "PING")
	aclExpect(t, c, "OK", "ACL", "SETUSER", "default", "on", "resetpass", ">again") // c stays authenticated
	c5 := aclConn(t, inst.Addr)
	aclExpect(t, c5, "(error) NOAUTH Authentication required.", "PING")
	aclExpect(t, c5, "OK", "AUTH", "again")
}

// TestACLLog checks ACL LOG entries for denied commands, keys, channels and logins: Redis 7.0's
// seven fields, newest first, repeated denials counted in one entry, count and RESET.
func TestACLLog(t *testing.T) {
	inst := testutil.StartStrata(t, func(c *config.Config) { c.ACLLogMaxLen = 3 })
	admin := aclConn(t, inst.Addr)
	aclExpect(t, admin, "OK", "ACL", "SETUSER", "lg", "on", ">pw", "~k*", "&c*", "+get", "+publish")
	c := aclConn(t, inst.Addr)
	aclExpect(t, c, "(error) "+wrongPass, "AUTH", "lg", "bad")
	aclExpect(t, c, "OK", "AUTH", "lg", "pw")
	aclExpect(t, c, "(error) "+noPermCmd("set"), "SET", "k1", "v")
	aclExpect(t, c, "(error) "+noPermKey, "GET", "x1")
	aclExpect(t, c, "(error) "+noPermKey, "GET", "x1")
	aclExpect(t, c, "(error) "+noPermChannel, "PUBLISH", "d1", "m")
	r := aclDo(t, admin, "ACL", "LOG")
	if len(r.Elems) != 3 { // acllog-max-len 3: the failed AUTH fell off
		t.Fatalf("ACL LOG has %d entries:\n%s", len(r.Elems), r)
	}
	want := []struct{ count, reason, object string }{{"1", "channel", "d1"}, {"2", "key", "x1"}, {"1", "command", "set"}}
	for i, w := range want {
		e := r.Elems[i]
		if len(e.Elems) != 14 {
			t.Fatalf("entry %d has %d fields: %s", i, len(e.Elems)/2, e)
		}
		names := []string{}
		for j := 0; j < len(e.Elems); j += 2 {
			names = append(names, e.Elems[j].Str)
		}
		if got := strings.Join(names, " "); got != "count reason context object username age-seconds client-info" {
			t.Errorf("entry %d fields: %s", i, got)
		}
		if aclField(t, e, "count").Text() != w.count || aclField(t, e, "reason").Str != w.reason ||
			aclField(t, e, "object").Str != w.object || aclField(t, e, "username").Str != "lg" ||
			aclField(t, e, "context").Str != "toplevel" {
			t.Errorf("entry %d: %s", i, e)
		}
		if age, err := strconv.ParseFloat(aclField(t, e, "age-seconds").Str, 64); err != nil || age < 0 || age > 60 {
			t.Errorf("entry %d age-seconds %q", i, aclField(t, e, "age-seconds").Str)
		}
		if ci := aclField(t, e, "client-info").Str; !strings.Contains(ci, " user=lg ") || !strings.HasPrefix(ci, "id=") {
			t.Errorf("entry %d client-info %q", i, ci)
		}
	}
	if ci := aclField(t, r.Elems[2], "client-info").Str; !strings.Contains(ci, " cmd=set ") {
		t.Errorf("client-info of the SET denial: %q", ci)
	}
	aclExpect(t, admin, "OK", "ACL", "LOG", "RESET")
	aclExpect(t, c, "(error) "+wrongPass, "AUTH", "nobody", "x")
	r = aclDo(t, admin, "ACL", "LOG", "5")
	if len(r.Elems) != 1 || aclField(t, r.Elems[0], "reason").Str != "auth" ||
		aclField(t, r.Elems[0], "username").Str != "nobody" || aclField(t, r.Elems[0], "object").Str != "AUTH" {
		t.Errorf("ACL LOG after a failed AUTH:\n%s", r)
	}
	// RESP3: age-seconds is a double, the entries maps.
	aclDo(t, admin, "HELLO", "3")
	r = aclDo(t, admin, "ACL", "LOG", "1")
	if len(r.Elems) != 1 || r.Elems[0].Kind != testutil.KindMap || aclField(t, r.Elems[0], "age-seconds").Kind != testutil.KindDouble {
		t.Errorf("RESP3 ACL LOG:\n%s", r)
	}
}

// TestACLFile checks the aclfile directive: users loaded at startup, ACL SAVE's file, ACL LOAD
// refusing a bad file as a whole and disconnecting the users a good one replaces, and a server
// that does not start with a bad file.
func TestACLFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "users.acl")
	os.WriteFile(path, []byte("user alice on >alice-pw ~a:* +@all -@dangerous\nuser default on nopass ~* &* +@all\n"), 0o644)
	inst := testutil.StartStrata(t, func(c *config.Config) { c.ACLFile = path })
	c := aclConn(t, inst.Addr)
	alice := aclConn(t, inst.Addr)
	aclExpect(t, alice, "OK", "AUTH", "alice", "alice-pw")
	aclExpect(t, alice, "OK", "SET", "a:1", "v")
	aclExpect(t, c, "OK", "ACL", "SETUSER", "bob", "on", "#"+sha256Hex("bob-pw"), "~b:*", "&news", "+get")
	aclExpect(t, c, "OK", "ACL", "SAVE")
	data, _ := os.ReadFile(path)
	want := "user alice on #" + sha256Hex("alice-pw") + " ~a:* resetchannels +@all -@dangerous\n" +
		"user bob on #" + sha256Hex("bob-pw") + " ~b:* resetchannels &news -@all +get\n" +
		"user default on nopass ~* &* +@all\n"
	if string(data) != want {
		t.Errorf("ACL SAVE wrote:\n%s\nwant:\n%s", data, want)
	}
	os.WriteFile(path, []byte("user carol on >c +nosuch\n"), 0o644)
	aclExpect(t, c, "(error) ERR "+path+":1: Unknown command or category name in ACL. WARNING: ACL errors detected, "+
		"no change to the previously active ACL rules was performed", "ACL", "LOAD")
	aclExpect(t, alice, `"alice"`, "ACL", "WHOAMI")
	os.WriteFile(path, []byte("user carol on >carol-pw allkeys +@all\nuser alice on >new ~a:* +get\n"), 0o644)
	aclExpect(t, c, "OK", "ACL", "LOAD")
	if closed, _ := alice.ExpectClosed(5 * time.Second); !closed {
		t.Error("the connection of a replaced user stays open")
	}
	aclExpect(t, c, `1) "alice"`+"\n"+`2) "carol"`+"\n"+`3) "default"`, "ACL", "USERS")
	aclExpect(t, aclConn(t, inst.Addr), "OK", "AUTH", "carol", "carol-pw")
	aclExpect(t, aclConn(t, inst.Addr), "(error) "+wrongPass, "AUTH", "alice", "alice-pw")

	// The users survive a restart through the file.
	inst.Restart(t)
	aclExpect(t, aclConn(t, inst.Addr), "OK", "AUTH", "alice", "new")

	// A bad or missing file stops the server from starting.
	for _, body := range []string{"user x on bogus\n", ""} {
		cfg := config.Default()
		cfg.Dir, cfg.Port, cfg.MetricsAddr = t.TempDir(), 0, ""
		cfg.ACLFile = filepath.Join(t.TempDir(), "acl")
		if body != "" {
			os.WriteFile(cfg.ACLFile, []byte(body), 0o644)
		}
		srv, err := server.New(cfg, nil)
		if err == nil {
			srv.Close()
			t.Errorf("server started with aclfile %q", body)
		} else if !strings.Contains(err.Error(), "ACL") {
			t.Errorf("startup error %v", err)
		}
	}
}

// TestACLTransactionsAndScripts checks that commands a user may not run do not run inside
// MULTI/EXEC or from a script either.
func TestACLTransactionsAndScripts(t *testing.T) {
	inst := testutil.StartStrata(t)
	admin := aclConn(t, inst.Addr)
	aclExpect(t, admin, "OK", "ACL", "SETUSER", "ro", "on", ">pw", "allkeys", "+@all", "-set")
	c := aclConn(t, inst.Addr)
	aclExpect(t, c, "OK", "AUTH", "ro", "pw")
	aclExpect(t, c, "OK", "MULTI")
	q := aclDo(t, c, "SET", "k", "v")
	ex := aclDo(t, c, "EXEC")
	if !strings.Contains(q.String()+ex.String(), "NOPERM") {
		t.Errorf("SET in MULTI: %s, EXEC: %s", q, ex)
	}
	aclExpect(t, admin, "(nil)", "GET", "k")
	// Permissions revoked after queueing are checked again by EXEC.
	aclExpect(t, admin, "OK", "ACL", "SETUSER", "ro", "+set")
	aclExpect(t, c, "OK", "MULTI")
	aclExpect(t, c, "QUEUED", "SET", "k", "v")
	aclExpect(t, admin, "OK", "ACL", "SETUSER", "ro", "-set")
	aclExpect(t, c, `1) (error) NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. `+
		`This command is no longer allowed for the following reason: no permission to execute the command or subcommand`, "EXEC")
	aclExpect(t, admin, "(nil)", "GET", "k")
	// Commands EXEC runs after the others (INFO, DBSIZE) are checked too.
	aclExpect(t, admin, "OK", "ACL", "SETUSER", "ro", "-info")
	aclExpect(t, c, "OK", "MULTI")
	q = aclDo(t, c, "INFO", "server")
	ex = aclDo(t, c, "EXEC")
	if out := q.String() + ex.String(); !strings.Contains(out, "NOPERM") || strings.Contains(out, "redis_version") {
		t.Errorf("INFO in MULTI: %s, EXEC: %s", q, ex)
	}
	if r := aclDo(t, c, "EVAL", "return redis.call('set', 'k', 'v')", "0"); !r.IsError() ||
		!strings.Contains(r.Str, "can't run this command") && !strings.Contains(r.Str, "NOPERM") {
		if strings.Contains(r.Str, "unknown command") {
			t.Log("no EVAL: script checks skipped")
		} else {
			t.Errorf("EVAL with a denied redis.call: %s", r)
		}
	}
	aclExpect(t, admin, "(nil)", "GET", "k")
}

// nonLoopbackIPv4 returns an IPv4 address of this machine that is not a loopback one, or "".
func nonLoopbackIPv4() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			if ln, err := net.Listen("tcp", net.JoinHostPort(n.IP.String(), "0")); err == nil {
				ln.Close()
				return n.IP.String()
			}
		}
	}
	return ""
}

// TestProtectedMode connects from a non-loopback address of this machine: refused with Redis's
// DENIED error while the default user has no password and protected-mode is yes; accepted with
// a password (requirepass or ACL SETUSER) or protected-mode no; loopback clients always.
func TestProtectedMode(t *testing.T) {
	ip := nonLoopbackIPv4()
	if ip == "" {
		t.Skip("no non-loopback IPv4 address to connect from (server/tls_test.go tests the decision)")
	}
	const denied = "-DENIED Redis is running in protected mode because protected mode is enabled and no password is " +
		"set for the default user. In this mode connections are only accepted from the loopback interface. If you " +
		"want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just " +
		"disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by " +
		"connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly " +
		"accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively " +
		"you can just disable the protected mode by editing the Redis configuration file, and setting the protected " +
		"mode option to 'no', and then restarting the server. 3) If you started the server manually just for " +
		"testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication password for the " +
		"default user. NOTE: You only need to do one of the above things in order for the server to start accepting " +
		"connections from the outside.\r\n"
	expectDenied := func(t *testing.T, addr string) {
		t.Helper()
		c := aclConn(t, addr)
		closed, out := c.ExpectClosed(5 * time.Second)
		if !closed || string(out) != denied {
			t.Errorf("closed %v, got %q", closed, out)
		}
	}
	t.Run("bound-to-address", func(t *testing.T) {
		inst := testutil.StartStrata(t, func(c *config.Config) { c.Bind = []string{ip} })
		expectDenied(t, inst.Addr)
	})
	t.Run("bound-to-all", func(t *testing.T) {
		inst := testutil.StartStrata(t, func(c *config.Config) { c.Bind = []string{"0.0.0.0"} })
		_, port, _ := net.SplitHostPort(inst.Addr)
		external := net.JoinHostPort(ip, port)
		local := aclConn(t, net.JoinHostPort("127.0.0.1", port))
		aclExpect(t, local, "PONG", "PING")
		expectDenied(t, external)
		if info := aclDo(t, local, "INFO", "stats").Str; !strings.Contains(info, "rejected_connections:1") {
			t.Errorf("INFO stats does not count the refused client:\n%s", info)
		}
		// A password for the default user lets clients in; they must authenticate.
		aclExpect(t, local, "OK", "ACL", "SETUSER", "default", ">pw")
		c := aclConn(t, external)
		aclExpect(t, c, "(error) NOAUTH Authentication required.", "PING")
		aclExpect(t, c, "OK", "AUTH", "pw")
		aclExpect(t, c, "PONG", "PING")
		aclExpect(t, local, "OK", "ACL", "SETUSER", "default", "nopass")
		expectDenied(t, external)
		aclExpect(t, c, "PONG", "PING") // connected clients stay
	})
	t.Run("requirepass", func(t *testing.T) {
		inst := testutil.StartStrata(t, func(c *config.Config) { c.Bind, c.RequirePass = []string{ip}, "pw" })
		c := aclConn(t, inst.Addr)
		aclExpect(t, c, "OK", "AUTH", "pw")
		aclExpect(t, c, "PONG", "PING")
	})
	t.Run("protected-mode-no", func(t *testing.T) {
		inst := testutil.StartStrata(t, func(c *config.Config) { c.Bind, c.ProtectedMode = []string{ip}, "no" })
		aclExpect(t, aclConn(t, inst.Addr), "PONG", "PING")
	})
}

// TestACLRevokedSubscribers checks that ACL SETUSER closes the user's subscribers whose
// channels or patterns it no longer allows, and only those, as Redis 7.0 does.
func TestACLRevokedSubscribers(t *testing.T) {
	inst := testutil.StartStrata(t)
	admin := aclConn(t, inst.Addr)
	aclExpect(t, admin, "OK", "ACL", "SETUSER", "sub", "on", ">pw", "allkeys", "+@all", "&news.*")
	subscriber := func(args ...string) *testutil.Conn {
		c := aclConn(t, inst.Addr)
		aclExpect(t, c, "OK", "AUTH", "sub", "pw")
		if r := aclDo(t, c, args...); r.IsError() {
			t.Fatalf("%v: %s", args, r)
		}
		return c
	}
	channel := subscriber("SUBSCRIBE", "news.1")
	pattern := subscriber("PSUBSCRIBE", "news.*")
	plain := aclConn(t, inst.Addr)
	aclExpect(t, plain, "OK", "AUTH", "sub", "pw")
	aclExpect(t, plain, "(error) "+noPermChannel, "SUBSCRIBE", "sport")
	other := aclConn(t, inst.Addr)
	aclDo(t, other, "SUBSCRIBE", "news.2") // the default user may use any channel

	aclExpect(t, admin, "OK", "ACL", "SETUSER", "sub", "resetchannels", "&news.1")
	if closed, _ := pattern.ExpectClosed(5 * time.Second); !closed {
		t.Error("the pattern subscriber stays connected")
	}
	if closed, _ := channel.ExpectClosed(300 * time.Millisecond); closed {
		t.Error("the subscriber of an allowed channel was closed")
	}
	aclExpect(t, admin, "OK", "ACL", "SETUSER", "sub", "resetchannels")
	if closed, _ := channel.ExpectClosed(5 * time.Second); !closed {
		t.Error("the channel subscriber stays connected")
	}
	aclExpect(t, plain, "PONG", "PING") // not subscribed: stays
	if closed, _ := other.ExpectClosed(300 * time.Millisecond); closed {
		t.Error("another user's subscriber was closed")
	}
}
