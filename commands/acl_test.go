package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/cmddoc"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// aclTestEnv is an Env with ACL users, as the server offers.
type aclTestEnv struct {
	cfg *config.Config
	acl *ACL
}

func (e *aclTestEnv) Config() *config.Config { return e.cfg }
func (e *aclTestEnv) ACL() *ACL              { return e.acl }

// rulesOf applies ops to a new user's rules, failing the test on an error.
func rulesOf(t *testing.T, ops ...string) *userRules {
	t.Helper()
	r := newUserRules()
	for _, op := range ops {
		if err := r.set(op); err != nil {
			t.Fatalf("rule %q: %v", op, err)
		}
	}
	return r.seal()
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
	for _, c := range cases {
		if got := rulesOf(t, c.ops...).describe(); got != c.want {
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
		{[]string{"bogus"}, errACLSyntax},
		{[]string{"allkeys", "~foo"}, errACLKeysAfterAll},
		{[]string{"~*", "%R~foo"}, errACLKeysAfterAll},
		{[]string{"allchannels", "&foo"}, errACLChansAfterAll},
		{[]string{"+nosuch"}, errACLUnknown},
		{[]string{"-nosuch"}, errACLUnknown},
		{[]string{"+@nosuch"}, errACLUnknown},
		{[]string{"+"}, errACLUnknown},
		{[]string{"+get|"}, errACLSyntax},
		{[]string{"+config|get|x"}, errACLFirstArgSub},
		{[]string{"+config|nosuch"}, errACLUnknown},
		{[]string{"-select|0"}, errACLUnknown},
		{[]string{"~a b"}, errACLSyntax},
		{[]string{"%~foo"}, errACLSyntax},
		{[]string{"%"}, errACLSyntax},
		{[]string{"%RR~foo"}, errACLSyntax},
		{[]string{"%X~foo"}, errACLSyntax},
		{[]string{"#ABC"}, errACLBadHash},
		{[]string{"!" + strings.Repeat("0", 64)}, errACLNoSuchPass},
		{[]string{"<nopassword"}, errACLNoSuchPass},
		{[]string{"(~x bogus)"}, errACLSyntax},
		{[]string{""}, nil},
		{[]string{"ON", "NoPass", "+GET", "+@READ", "ALLKEYS"}, nil},
	}
	for _, c := range cases {
		r := newUserRules()
		var err error
		for _, op := range c.ops {
			if err = r.set(op); err != nil {
				break
			}
		}
		if err != c.want {
			t.Errorf("%q: error %v, want %v", c.ops, err, c.want)
		}
	}
}

// TestACLCheck checks command, first-argument, subcommand, key (read/write) and channel
// permissions, and selectors.
func TestACLCheck(t *testing.T) {
	u := &ACLUser{Name: "u"}
	check := func(args ...string) aclReason {
		t.Helper()
		cmd := Lookup([]byte(args[0]))
		if cmd == nil {
			t.Fatalf("no command %s", args[0])
		}
		b := make([][]byte, len(args))
		for i, a := range args {
			b[i] = []byte(a)
		}
		r, _, _ := aclCheck(u, cmd, b)
		return r
	}
	expect := func(want aclReason, args ...string) {
		t.Helper()
		if got := check(args...); got != want {
			t.Errorf("%q: reason %d, want %d", args, got, want)
		}
	}
	u.rules.Store(rulesOf(t, "+@all", "%R~r*", "%W~w*", "~b*"))
	expect(aclOK, "get", "r1")
	expect(aclDeniedKey, "get", "w1")
	expect(aclOK, "set", "w1", "v")               // SET without GET only writes
	expect(aclDeniedKey, "set", "w1", "v", "GET") // with GET it also reads
	expect(aclOK, "set", "b1", "v", "get")
	expect(aclDeniedKey, "incr", "w1") // read and write
	expect(aclOK, "incr", "b1")
	expect(aclOK, "exists", "w1") // no access flags: any matching pattern
	expect(aclDeniedKey, "exists", "x1")
	expect(aclOK, "lpush", "w1", "x")
	expect(aclOK, "rename", "b1", "w2") // source read+write, destination write
	expect(aclDeniedKey, "rename", "w1", "b2")
	expect(aclOK, "bitfield", "r1", "get", "u8", "0")
	expect(aclDeniedKey, "bitfield", "r1", "set", "u8", "0", "1")
	expect(aclOK, "zunionstore", "w1", "2", "r1", "r2")
	expect(aclDeniedKey, "zunionstore", "r1", "2", "r1", "r2")
	expect(aclOK, "keys", "*") // no key arguments

	u.rules.Store(rulesOf(t, "-@all", "+get", "+config|get", "+select|1", "+client", "allkeys"))
	expect(aclOK, "get", "x")
	expect(aclDeniedCmd, "set", "x", "y")
	expect(aclOK, "config", "get", "maxclients")
	expect(aclDeniedCmd, "config", "set", "maxclients", "1")
	expect(aclDeniedCmd, "config", "nosuch") // an unknown subcommand checks the container
	expect(aclOK, "select", "1")
	expect(aclDeniedCmd, "select", "2")
	expect(aclOK, "client", "list")
	expect(aclOK, "auth", "x")     // allowed before authentication: never denied
	expect(aclOK, "config", "get") // subcommand arity errors are the handler's

	u.rules.Store(rulesOf(t, "+@all", "allkeys", "&news.*"))
	expect(aclOK, "publish", "news.1", "m")
	expect(aclDeniedChannel, "publish", "sport", "m")
	expect(aclOK, "subscribe", "news.1", "news.2")
	expect(aclDeniedChannel, "subscribe", "news.1", "sport")
	expect(aclOK, "psubscribe", "news.*") // patterns compare literally
	expect(aclDeniedChannel, "psubscribe", "news.a*")
	expect(aclOK, "unsubscribe", "sport")

	u.rules.Store(rulesOf(t, "-@all", "+get", "~a*", "(+set ~b*)", "(+get ~c*)"))
	expect(aclOK, "get", "a1")
	expect(aclOK, "get", "c1")
	expect(aclDeniedKey, "get", "b1")
	expect(aclOK, "set", "b1", "v")
	expect(aclDeniedKey, "set", "a1", "v")
	expect(aclDeniedCmd, "del", "a1")
}

// TestACLDispatch runs commands through the dispatcher as users: AUTH, NOPERM replies, the
// ACL LOG, requirepass as the default user's password.
func TestACLDispatch(t *testing.T) {
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	env := &aclTestEnv{cfg: config.Default(), acl: NewACL()}
	env.cfg.RequirePass = "top"
	env.acl.SyncRequirePass(env.cfg.RequirePass)
	client := &Client{Proto: 2, ACLUser: env.acl.Default(), User: "default", Authed: env.acl.DefaultAuthed()}
	w := &resp.Writer{Proto: 2}
	do := func(args ...string) string {
		t.Helper()
		b := make([][]byte, len(args))
		for i, a := range args {
			b[i] = []byte(a)
		}
		c := &Ctx{Args: b, Client: client, Store: st, W: w, Env: env}
		Dispatch(c, false)
		out := string(w.Bytes())
		w.Reset()
		return out
	}
	expect := func(want string, args ...string) {
		t.Helper()
		if got := do(args...); got != want {
			t.Errorf("%q: got %q, want %q", args, got, want)
		}
	}
	expect("-NOAUTH Authentication required.\r\n", "get", "k")
	expect("-WRONGPASS invalid username-password pair or user is disabled.\r\n", "auth", "nope")
	expect("+OK\r\n", "auth", "top")
	expect("+OK\r\n", "acl", "setuser", "bob", "on", ">pw", "~k*", "+get", "+set", "+acl|whoami")
	expect("+OK\r\n", "auth", "bob", "pw")
	expect("$3\r\nbob\r\n", "acl", "whoami")
	expect("+OK\r\n", "set", "k1", "v")
	expect("-NOPERM this user has no permissions to access one of the keys used as arguments\r\n", "set", "x1", "v")
	expect("-NOPERM this user has no permissions to run the 'del' command\r\n", "del", "k1")
	expect("-NOPERM this user has no permissions to run the 'acl|list' command\r\n", "acl", "list")
	expect("-WRONGPASS invalid username-password pair or user is disabled.\r\n", "auth", "bob", "bad")
	if client.User != "bob" || client.ACLUser.Name != "bob" {
		t.Errorf("a failed AUTH changed the user: %q", client.User)
	}
	expect("+OK\r\n", "auth", "default", "top")
	// Newest first: the failed AUTH, the ACL LIST, the DEL, the key.
	a := env.acl
	if len(a.log) != 5 {
		t.Fatalf("ACL LOG has %d entries, want 5", len(a.log))
	}
	for i, want := range []struct {
		reason       aclReason
		object, user string
		cinfoHasCmd  string
	}{{aclDeniedAuth, "auth", "bob", "cmd=auth "}, {aclDeniedCmd, "acl|list", "bob", "cmd=acl|list "},
		{aclDeniedCmd, "del", "bob", "cmd=del "}, {aclDeniedKey, "x1", "bob", "cmd=set "},
		{aclDeniedAuth, "auth", "default", "cmd=auth "}} {
		e := a.log[i]
		if e.reason != want.reason || e.object != want.object || e.username != want.user || e.context != "toplevel" ||
			!strings.Contains(e.cinfo, want.cinfoHasCmd) {
			t.Errorf("entry %d = %+v, want %+v", i, *e, want)
		}
	}
	do("set", "x1", "v") // as default: allowed
	expect("+OK\r\n", "auth", "bob", "pw")
	do("set", "x1", "v")
	do("set", "x1", "v")
	if a.log[0].count != 3 || a.log[0].object != "x1" { // with the first denial of x1
		t.Errorf("repeated denial: %+v", *a.log[0])
	}
	// requirepass changes (CONFIG SET) become the default user's password.
	cfg := *env.cfg
	cfg.RequirePass = ""
	env.cfg = &cfg
	expect("-ERR AUTH <password> called without any password configured for the default user. "+
		"Are you sure your configuration is correct?\r\n", "auth", "x")
	expect("+OK\r\n", "auth", "default", "anything")
	if got := env.acl.list()[1]; got != "user default on nopass ~* &* +@all" {
		t.Errorf("default user: %s", got)
	}
}

// TestACLFile checks ACL SAVE's format and ACL LOAD's validation (all or nothing).
func TestACLFile(t *testing.T) {
	a := NewACL()
	a.SyncRequirePass("")
	if _, err := a.LoadFile(filepath.Join(t.TempDir(), "none.acl")); err == nil ||
		!strings.Contains(err.Error(), "Error loading ACLs, opening file '") ||
		!strings.HasSuffix(err.Error(), "': No such file or directory") {
		t.Errorf("missing file: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "users.acl")
	good := "user alice on #" + hashPassword([]byte("pw")) + " ~a* &x -@all +get\n\nuser default on >secret ~* &* +@all\r\n" +
		"user sel off resetchannels -@all (~b* resetchannels -@all +set)\n"
	os.WriteFile(path, []byte(good), 0o644)
	old := &ACLUser{Name: "old", acl: a}
	old.rules.Store(rulesOf(t, "on", "nopass", "+@all"))
	a.users["old"] = old
	replaced, err := a.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(replaced) != 1 || replaced[0] != old || old.get().flags&userOff == 0 {
		t.Errorf("replaced %v; the old user must be off", replaced)
	}
	if a.User("old") != nil || a.credentials([]byte("alice"), []byte("pw")) == nil ||
		a.credentials([]byte("default"), []byte("secret")) != a.Default() {
		t.Error("loaded users do not authenticate")
	}
	if err := a.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := "user alice on #" + hashPassword([]byte("pw")) + " ~a* resetchannels &x -@all +get\n" +
		"user default on #" + hashPassword([]byte("secret")) + " ~* &* +@all\n" +
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

func TestACLSplitAndMerge(t *testing.T) {
	args, ok := splitArgs(` ~a  "+get" '&b c' "x\x41\n" `)
	if !ok || strings.Join(args, "|") != "~a|+get|&b c|xA\n" {
		t.Errorf("splitArgs = %q, %v", args, ok)
	}
	if _, ok := splitArgs(`"open`); ok {
		t.Error("unbalanced quotes accepted")
	}
	merged, bad := mergeSelectorArgs([]string{"on", "(~a", "+get)", "(+set)", "off"})
	if bad != -1 || strings.Join(merged, "|") != "on|(~a +get)|(+set)|off" {
		t.Errorf("merge = %q, %d", merged, bad)
	}
	if _, bad := mergeSelectorArgs([]string{"on", "(~a", "+get"}); bad != 1 {
		t.Errorf("unclosed selector at %d, want 1", bad)
	}
}

// TestACLKeySpecsCoverCommands checks that every Strata command that takes keys, and is a
// Redis command, has its key-spec access in aclKeySpecs, so %R~/%W~ patterns apply to it as in
// Redis (a command missing there would fall back to its read/write flags).
func TestACLKeySpecsCoverCommands(t *testing.T) {
	for _, cmd := range All() {
		if cmd.FirstKey == 0 && cmd.Keys == nil {
			continue
		}
		if _, redis := cmddoc.Redis[cmd.Name]; !redis {
			continue
		}
		if _, ok := aclKeySpecs[cmd.Name]; ok {
			continue
		}
		covered := len(cmd.Sub) > 0
		for _, s := range cmd.Sub {
			if _, ok := aclKeySpecs[cmd.Name+"|"+s]; ok {
				covered = true
			}
		}
		if !covered {
			t.Errorf("%s takes keys but has no entry in aclKeySpecs", cmd.Name)
		}
	}
}

// BenchmarkCheckACL measures the dispatcher's permission check for the default user (nothing to
// check) and for a user with command rules and key patterns.
func BenchmarkCheckACL(b *testing.B) {
	cmd := Lookup([]byte("set"))
	args := [][]byte{[]byte("set"), []byte("app:1"), []byte("v")}
	a := NewACL()
	for name, u := range map[string]*ACLUser{"default": a.Default(), "restricted": {Name: "r"}} {
		if name == "restricted" {
			r := newUserRules()
			for _, op := range []string{"on", "-@all", "+@write", "+@read", "~app:*", "%R~shared:*"} {
				r.set(op)
			}
			u.rules.Store(r.seal())
		}
		c := &Ctx{Args: args, Client: &Client{ACLUser: u}, W: &resp.Writer{}}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if !CheckACL(c, cmd, "toplevel") {
					b.Fatal("denied")
				}
			}
		})
	}
}
