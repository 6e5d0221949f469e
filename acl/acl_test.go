package acl_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-db/strata/acl"
	"github.com/strata-db/strata/commands"
)

// The tests here run over Strata's real command universe (commands.ACLTable), since rule
// descriptions depend on every command's categories, as Redis's do.

// setUser gives a new user of r the rules ops, failing the test on an error.
func setUser(t *testing.T, r *acl.Registry, name string, ops ...string) *acl.User {
	t.Helper()
	u, _, err := r.SetUser(name, ops)
	if err != nil {
		t.Fatalf("rules %q: %v", ops, err)
	}
	return u
}

func hashPassword(p string) string {
	h := sha256.Sum256([]byte(p))
	return hex.EncodeToString(h[:])
}

// TestACLDescribe checks ACL LIST's description of rules against what Redis 7.0.15 prints for
// the same rules (single commands in Strata's sorted order; Redis uses its hash order).
func TestACLDescribe(t *testing.T) {
	cases := []struct {
		ops  []string
		want string
	}{
		{nil, "off resetchannels -@all"},
		{[]string{"reset"}, "off sanitize-payload resetchannels -@all"},
		{[]string{"+@all", "~*", "&*", "on", "nopass"}, "on nopass ~* &* +@all"},
		{[]string{"on", ">pw", "~foo*", "%R~bar*", "&ch*", "+get", "-set", "+@hash", "-@dangerous"},
			"on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~foo* %R~bar* resetchannels &ch* -@all +@hash +get"},
		{[]string{"%RW~a", "%R~b", "%W~b", "%R~c", "%R"}, "off ~a ~b %R~c %R~ resetchannels -@all"},
		{[]string{"+@all", "-@dangerous"}, "off resetchannels +@all -@dangerous"},
		{[]string{"-@all", "+@read", "-get"}, "off resetchannels -@all +@read -get"},
		{[]string{"+@all", "-get", "+get"}, "off resetchannels +@all"},
		{[]string{"-@all", "+@sortedset", "-zadd"}, "off resetchannels -@all +@sortedset -zadd"},
		{[]string{"+@all", "-@keyspace", "-@dangerous"}, "off resetchannels +@all -@dangerous -@keyspace"},
		{[]string{"+select|0", "+select|1", "+select|0", "+config|get"}, "off resetchannels -@all +config|get +select|0 +select|1"},
		{[]string{"+client"}, "off resetchannels -@all +client"},
		{[]string{"allchannels", "skip-sanitize-payload"}, "off skip-sanitize-payload &* -@all"},
		{[]string{"~x", "(~y +get)", "(%W~z &c +@list)"},
			"off ~x resetchannels -@all (~y resetchannels -@all +get) (%W~z resetchannels &c -@all +@list)"},
		{[]string{"(~y +get)", "clearselectors"}, "off resetchannels -@all"},
		{[]string{">a", ">b", "<a", "nopass"}, "off nopass resetchannels -@all"},
	}
	r := commands.NewACL()
	for i, c := range cases {
		if got := setUser(t, r, "u"+string(rune('a'+i)), c.ops...).Describe(); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.ops, got, c.want)
		}
	}
}

// TestACLRuleErrors checks which rules fail and with which of Redis's messages.
func TestACLRuleErrors(t *testing.T) {
	cases := []struct {
		ops  []string
		want error
	}{
		{[]string{"bogus"}, acl.ErrSyntax},
		{[]string{"allkeys", "~foo"}, acl.ErrKeysAfterAll},
		{[]string{"~*", "%R~foo"}, acl.ErrKeysAfterAll},
		{[]string{"allchannels", "&foo"}, acl.ErrChansAfterAll},
		{[]string{"+nosuch"}, acl.ErrUnknown},
		{[]string{"-nosuch"}, acl.ErrUnknown},
		{[]string{"+@nosuch"}, acl.ErrUnknown},
		{[]string{"+"}, acl.ErrUnknown},
		{[]string{"+get|"}, acl.ErrSyntax},
		{[]string{"+config|get|x"}, acl.ErrFirstArgSub},
		{[]string{"+config|nosuch"}, acl.ErrUnknown},
		{[]string{"-select|0"}, acl.ErrUnknown},
		{[]string{"~a b"}, acl.ErrSyntax},
		{[]string{"%~foo"}, acl.ErrSyntax},
		{[]string{"%"}, acl.ErrSyntax},
		{[]string{"%RR~foo"}, acl.ErrSyntax},
		{[]string{"%X~foo"}, acl.ErrSyntax},
		{[]string{"#ABC"}, acl.ErrBadHash},
		{[]string{"!" + strings.Repeat("0", 64)}, acl.ErrNoSuchPass},
		{[]string{"<nopassword"}, acl.ErrNoSuchPass},
		{[]string{"(~x bogus)"}, acl.ErrSyntax},
		{[]string{""}, nil},
		{[]string{"ON", "NoPass", "+GET", "+@READ", "ALLKEYS"}, nil},
	}
	r := commands.NewACL()
	for i, c := range cases {
		_, _, err := r.SetUser("u"+string(rune('a'+i)), c.ops)
		if !errors.Is(err, c.want) || (err == nil) != (c.want == nil) {
			t.Errorf("%q: error %v, want %v", c.ops, err, c.want)
		}
	}
}

// TestACLCheck checks command, first-argument, subcommand, key (read/write) and channel
// permissions, and selectors.
func TestACLCheck(t *testing.T) {
	r := commands.NewACL()
	var u *acl.User
	check := func(args ...string) acl.Reason {
		t.Helper()
		cmd := commands.Lookup([]byte(args[0]))
		if cmd == nil {
			t.Fatalf("no command %s", args[0])
		}
		b := make([][]byte, len(args))
		for i, a := range args {
			b[i] = []byte(a)
		}
		if d := u.Check(cmd.Name, b); d != nil {
			return d.Reason
		}
		return acl.OK
	}
	expect := func(want acl.Reason, args ...string) {
		t.Helper()
		if got := check(args...); got != want {
			t.Errorf("%q: reason %d, want %d", args, got, want)
		}
	}
	u = setUser(t, r, "u1", "+@all", "%R~r*", "%W~w*", "~b*")
	expect(acl.OK, "get", "r1")
	expect(acl.DeniedKey, "get", "w1")
	expect(acl.OK, "set", "w1", "v")               // SET without GET only writes
	expect(acl.DeniedKey, "set", "w1", "v", "GET") // with GET it also reads
	expect(acl.OK, "set", "b1", "v", "get")
	expect(acl.DeniedKey, "incr", "w1") // read and write
	expect(acl.OK, "incr", "b1")
	expect(acl.OK, "exists", "w1") // no access flags: any matching pattern
	expect(acl.DeniedKey, "exists", "x1")
	expect(acl.OK, "lpush", "w1", "x")
	expect(acl.OK, "rename", "b1", "w2") // source read+write, destination write
	expect(acl.DeniedKey, "rename", "w1", "b2")
	expect(acl.OK, "bitfield", "r1", "get", "u8", "0")
	expect(acl.DeniedKey, "bitfield", "r1", "set", "u8", "0", "1")
	expect(acl.OK, "zunionstore", "w1", "2", "r1", "r2")
	expect(acl.DeniedKey, "zunionstore", "r1", "2", "r1", "r2")
	expect(acl.OK, "keys", "*") // no key arguments

	u = setUser(t, r, "u2", "-@all", "+get", "+config|get", "+select|1", "+client", "allkeys")
	expect(acl.OK, "get", "x")
	expect(acl.DeniedCmd, "set", "x", "y")
	expect(acl.OK, "config", "get", "maxclients")
	expect(acl.DeniedCmd, "config", "set", "maxclients", "1")
	expect(acl.DeniedCmd, "config", "nosuch") // an unknown subcommand checks the container
	expect(acl.OK, "select", "1")
	expect(acl.DeniedCmd, "select", "2")
	expect(acl.OK, "client", "list")
	expect(acl.OK, "auth", "x")     // allowed before authentication: never denied
	expect(acl.OK, "config", "get") // subcommand arity errors are the handler's

	u = setUser(t, r, "u3", "+@all", "allkeys", "&news.*")
	expect(acl.OK, "publish", "news.1", "m")
	expect(acl.DeniedChannel, "publish", "sport", "m")
	expect(acl.OK, "subscribe", "news.1", "news.2")
	expect(acl.DeniedChannel, "subscribe", "news.1", "sport")
	expect(acl.OK, "psubscribe", "news.*") // patterns compare literally
	expect(acl.DeniedChannel, "psubscribe", "news.a*")
	expect(acl.OK, "unsubscribe", "sport")

	u = setUser(t, r, "u4", "-@all", "+get", "~a*", "(+set ~b*)", "(+get ~c*)")
	expect(acl.OK, "get", "a1")
	expect(acl.OK, "get", "c1")
	expect(acl.DeniedKey, "get", "b1")
	expect(acl.OK, "set", "b1", "v")
	expect(acl.DeniedKey, "set", "a1", "v")
	expect(acl.DeniedCmd, "del", "a1")
}

// TestACLFile checks ACL SAVE's format and ACL LOAD's validation (all or nothing).
func TestACLFile(t *testing.T) {
	a := commands.NewACL()
	a.SyncRequirePass("")
	if _, err := a.LoadFile(filepath.Join(t.TempDir(), "none.acl")); err == nil ||
		!strings.Contains(err.Error(), "Error loading ACLs, opening file '") ||
		!strings.HasSuffix(err.Error(), "': No such file or directory") {
		t.Errorf("missing file: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "users.acl")
	good := "user alice on #" + hashPassword("pw") + " ~a* &x -@all +get\n\nuser default on >secret ~* &* +@all\r\n" +
		"user sel off resetchannels -@all (~b* resetchannels -@all +set)\n"
	os.WriteFile(path, []byte(good), 0o644)
	old := setUser(t, a, "old", "on", "nopass", "+@all")
	replaced, err := a.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(replaced) != 1 || replaced[0] != old || old.Describe() != "off resetchannels -@all" {
		t.Errorf("replaced %v; the old user must be off", replaced)
	}
	if a.User("old") != nil || a.Authenticate([]byte("alice"), []byte("pw")) == nil ||
		a.Authenticate([]byte("default"), []byte("secret")) != a.Default() {
		t.Error("loaded users do not authenticate")
	}
	if err := a.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := "user alice on #" + hashPassword("pw") + " ~a* resetchannels &x -@all +get\n" +
		"user default on #" + hashPassword("secret") + " ~* &* +@all\n" +
		"user sel off resetchannels -@all (~b* resetchannels -@all +set)\n"
	if string(data) != want {
		t.Errorf("ACL SAVE wrote:\n%s\nwant:\n%s", data, want)
	}
	bad := "user ok on nopass\nfoo bar\nuser ok on\nuser x on bogus +nosuch\nuser y (~a +get\n"
	os.WriteFile(path, []byte(bad), 0o644)
	_, err = a.LoadFile(path)
	wantErr := path + ":2 should start with user keyword followed by the username. " +
		"WARNING: Duplicate user 'ok' found on line 3. " +
		path + ":4: Syntax error. " + path + ":4: Unknown command or category name in ACL. " +
		path + ":5: Unmatched parenthesis in selector definition." +
		"WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	if err == nil || err.Error() != wantErr {
		t.Errorf("bad file error:\n%v\nwant:\n%s", err, wantErr)
	}
	if a.User("alice") == nil || a.User("ok") != nil {
		t.Error("a bad file changed the users")
	}
}

// TestACLKeySpecsCoverCommands checks that every Strata command that takes keys, and is a
// Redis command, has its key-spec access in keySpecs, so %R~/%W~ patterns apply to it as in
// Redis (a command missing there would fall back to its read/write flags). A container's keys
// are its subcommands'.
func TestACLKeySpecsCoverCommands(t *testing.T) {
	tab := commands.ACLTable()
	for _, cmd := range commands.All() {
		if cmd.FirstKey == 0 && cmd.Keys == nil || len(cmd.Sub) > 0 || !tab.Redis70(cmd.Name) {
			continue
		}
		if _, ok := acl.KeyAccess(cmd.Name); !ok {
			t.Errorf("%s takes keys but has no entry in keySpecs", cmd.Name)
		}
	}
}
