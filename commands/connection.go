package commands

import (
	"crypto/subtle"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-db/strata/internal/cmddoc"
	"github.com/strata-db/strata/internal/num"
)

func init() {
	register(
		&Command{Name: "ping", Arity: -1, Flags: FlagFast, Handler: cmdPing},
		&Command{Name: "echo", Arity: 2, Flags: FlagFast | FlagLoading | FlagStale, Handler: cmdEcho},
		&Command{Name: "select", Arity: 2, Flags: FlagFast | FlagLoading | FlagStale, Handler: cmdSelect},
		&Command{Name: "quit", Arity: -1, Flags: FlagFast | FlagNoAuth | FlagNoScript | FlagLoading | FlagStale, Handler: cmdQuit},
		&Command{Name: "hello", Arity: -1, Flags: FlagFast | FlagNoAuth | FlagNoScript | FlagLoading | FlagStale, Handler: cmdHello},
		&Command{Name: "auth", Arity: -2, Flags: FlagFast | FlagNoAuth | FlagNoScript | FlagLoading | FlagStale, Handler: cmdAuth},
		&Command{Name: "monitor", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Handler: cmdMonitor},
	)
}

// Monitorer is implemented by a server that serves MONITOR.
type Monitorer interface {
	// Monitor turns the calling client into a monitor and answers OK.
	Monitor(c *Ctx)
}

// Monitored reports whether MONITOR shows a call of cmd with args: administrative commands and
// subcommands (CONFIG, CLIENT LIST, ...) are not shown, as in Redis.
func Monitored(cmd *Command, args [][]byte) bool {
	if cmd.Flags&FlagAdmin != 0 {
		return false
	}
	if len(cmd.Sub) > 0 && len(args) > 1 {
		m := cmddoc.Redis[cmd.Name+"|"+strings.ToLower(string(args[1]))]
		return !slices.Contains(strings.Fields(m.Flags), "admin")
	}
	return true
}

// cmdMonitor implements MONITOR: the client receives every command the server runs from then
// on. Inside MULTI (where a command must answer at once) it is refused, as in Redis.
func cmdMonitor(c *Ctx) {
	m, ok := c.Env.(Monitorer)
	switch {
	case !ok:
		c.W.Error("ERR this command needs a running server")
	case c.NonBlocking:
		c.W.Error("ERR MONITOR isn't allowed for DENY BLOCKING client")
	default:
		m.Monitor(c)
	}
}

// RedisVersion is the Redis release whose behaviour Strata follows; HELLO and INFO report it.
const RedisVersion = "7.0.15"

// Error texts of HELLO and AUTH.
const (
	errHelloNoAuth = "NOAUTH HELLO must be called with the client already authenticated, otherwise the " +
		"HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select " +
		"the RESP protocol version at the same time"
	errHelloProto   = "ERR Protocol version is not an integer or out of range"
	errHelloNoProto = "NOPROTO unsupported protocol version"
	errClientName   = "ERR Client names cannot contain spaces, newlines or special characters."
)

// checkPassword reports whether user and pass authenticate against requirepass: the only
// user is "default", and without requirepass it needs no password (Redis's "nopass").
func checkPassword(user, pass []byte, requirepass string) bool {
	if string(user) != "default" {
		return false
	}
	if requirepass == "" {
		return true
	}
	return subtle.ConstantTimeCompare(pass, []byte(requirepass)) == 1
}

// cmdAuth implements AUTH [username] password.
func cmdAuth(c *Ctx) {
	if len(c.Args) > 3 {
		c.W.Error(ErrSyntax)
		return
	}
	if a := aclOf(c); a != nil {
		aclAuth(c, a) // acl.go: against the ACL users; requirepass is the default user's password
		return
	}
	requirepass := c.Env.Config().RequirePass
	user, pass := []byte("default"), c.Args[len(c.Args)-1]
	if len(c.Args) == 2 {
		if requirepass == "" {
			c.W.Error(ErrAuthNotSet)
			return
		}
	} else {
		user = c.Args[1]
	}
	if !checkPassword(user, pass, requirepass) {
		c.W.Error(ErrWrongPass)
		return
	}
	c.Client.Authed, c.Client.User = true, "default"
	c.W.OK()
}

// cmdHello implements HELLO [protover [AUTH username password] [SETNAME clientname]].
func cmdHello(c *Ctx) {
	ver := 0
	next := 1
	if len(c.Args) >= 2 {
		n, err := num.ParseInt(c.Args[1])
		if err != nil {
			c.W.Error(errHelloProto)
			return
		}
		if n < 2 || n > 3 {
			c.W.Error(errHelloNoProto)
			return
		}
		ver, next = int(n), 2
	}
	var user, pass, name []byte
	setName := false
	for j := next; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		opt := c.Arg(j)
		switch {
		case strings.EqualFold(opt, "auth") && more >= 2:
			user, pass = c.Args[j+1], c.Args[j+2]
			j += 2
		case strings.EqualFold(opt, "setname") && more >= 1:
			name, setName = c.Args[j+1], true
			if !validClientName(name) {
				c.W.Error(errClientName) // checked while parsing, before authentication
				return
			}
			j++
		default:
			c.W.Error(fmt.Sprintf("ERR Syntax error in HELLO option '%s'", opt))
			return
		}
	}
	requirepass := c.Env.Config().RequirePass
	a := aclOf(c) // with ACL users (acl.go), AUTH checks them and logs failures in ACL LOG
	if a != nil {
		a.SyncRequirePass(requirepass)
	}
	if user != nil {
		if a != nil {
			if !authenticate(c, a, user, pass) {
				c.W.Error(ErrWrongPass)
				return
			}
		} else if !checkPassword(user, pass, requirepass) {
			c.W.Error(ErrWrongPass)
			return
		} else {
			c.Client.Authed, c.Client.User = true, "default"
		}
	}
	// Without ACL users, only requirepass asks for authentication; with them the client is
	// authenticated from the start when the default user needs no password (Redis 7.0).
	if (a != nil || requirepass != "") && !c.Client.Authed {
		c.W.Error(errHelloNoAuth)
		return
	}
	if setName {
		c.Client.Name = string(name)
	}
	if ver != 0 {
		c.Client.Proto = ver
		c.W.Proto = ver
	}
	c.W.Map(7)
	c.W.BulkString("server")
	c.W.BulkString("redis")
	c.W.BulkString("version")
	c.W.BulkString(RedisVersion)
	c.W.BulkString("proto")
	c.W.Int(int64(c.Client.Proto))
	c.W.BulkString("id")
	c.W.Int(c.Client.ID)
	c.W.BulkString("mode")
	c.W.BulkString("standalone")
	c.W.BulkString("role")
	c.W.BulkString("master")
	c.W.BulkString("modules")
	c.W.Array(0)
}

// validClientName reports whether name suits CLIENT SETNAME: printable ASCII without spaces.
func validClientName(name []byte) bool {
	for _, ch := range name {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}

func cmdPing(c *Ctx) {
	switch len(c.Args) {
	case 1:
		c.W.Status("PONG")
	case 2:
		c.W.Bulk(c.Args[1])
	default:
		c.W.Error(ArityError(c.Cmd.Name))
	}
}

func cmdEcho(c *Ctx) { c.W.Bulk(c.Args[1]) }

func cmdSelect(c *Ctx) {
	db, ok := dbIndex(c, 1, ErrDBIndex)
	if !ok {
		return
	}
	c.Client.DB = db
	c.W.OK()
}

func cmdQuit(c *Ctx) {
	c.Client.Quit = true
	c.W.OK()
}
