package commands

import (
	"strings"
	"testing"

	"github.com/strata-db/strata/acl"
	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// aclTestEnv is an Env with ACL users, as the server offers.
type aclTestEnv struct {
	cfg *config.Config
	acl *acl.Registry
}

func (e *aclTestEnv) Config() *config.Config { return e.cfg }
func (e *aclTestEnv) ACL() *acl.Registry     { return e.acl }

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
	log := env.acl.Log(10)
	if len(log) != 5 {
		t.Fatalf("ACL LOG has %d entries, want 5", len(log))
	}
	for i, want := range []struct {
		reason       acl.Reason
		object, user string
		cinfoHasCmd  string
	}{{acl.DeniedAuth, "auth", "bob", "cmd=auth "}, {acl.DeniedCmd, "acl|list", "bob", "cmd=acl|list "},
		{acl.DeniedCmd, "del", "bob", "cmd=del "}, {acl.DeniedKey, "x1", "bob", "cmd=set "},
		{acl.DeniedAuth, "auth", "default", "cmd=auth "}} {
		e := log[i]
		if e.Reason != want.reason || e.Object != want.object || e.Username != want.user || e.Context != "toplevel" ||
			!strings.Contains(e.ClientInfo, want.cinfoHasCmd) {
			t.Errorf("entry %d = %+v, want %+v", i, e, want)
		}
	}
	do("set", "x1", "v") // as default: allowed
	expect("+OK\r\n", "auth", "bob", "pw")
	do("set", "x1", "v")
	do("set", "x1", "v")
	if e := env.acl.Log(1)[0]; e.Count != 3 || e.Object != "x1" { // with the first denial of x1
		t.Errorf("repeated denial: %+v", e)
	}
	// requirepass changes (CONFIG SET) become the default user's password.
	cfg := *env.cfg
	cfg.RequirePass = ""
	env.cfg = &cfg
	expect("-ERR AUTH <password> called without any password configured for the default user. "+
		"Are you sure your configuration is correct?\r\n", "auth", "x")
	expect("+OK\r\n", "auth", "default", "anything")
	if got := env.acl.List()[1]; got != "user default on nopass ~* &* +@all" {
		t.Errorf("default user: %s", got)
	}
}

// BenchmarkCheckACL measures the dispatcher's permission check for the default user (nothing to
// check) and for a user with command rules and key patterns.
func BenchmarkCheckACL(b *testing.B) {
	cmd := Lookup([]byte("set"))
	args := [][]byte{[]byte("set"), []byte("app:1"), []byte("v")}
	a := NewACL()
	restricted, _, err := a.SetUser("r", []string{"on", "-@all", "+@write", "+@read", "~app:*", "%R~shared:*"})
	if err != nil {
		b.Fatal(err)
	}
	for name, u := range map[string]*acl.User{"default": a.Default(), "restricted": restricted} {
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
