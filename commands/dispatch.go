package commands

import (
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"time"
)

// Dispatch runs one client command through the gates in Redis's order (unknown command, arity,
// authentication, ACL permissions) and then runs it. The reply is appended to c.W.
func Dispatch(c *Ctx, requirePass bool) { DispatchCommand(c, Lookup(c.Args[0]), requirePass) }

// DispatchCommand is Dispatch for a caller that has already looked up c.Args[0]: cmd is what
// Lookup returned for it, nil for an unknown command.
func DispatchCommand(c *Ctx, cmd *Command, requirePass bool) {
	if cmd == nil {
		c.W.Error(UnknownCommandError(c.Args))
		return
	}
	if !cmd.CheckArity(len(c.Args)) {
		c.W.Error(ArityError(string(c.Args[0])))
		return
	}
	if !ProtectedAllowed(c, cmd) {
		dir := "enable-" + cmd.Name + "-command"
		c.W.Error(fmt.Sprintf(ErrProtected, strings.ToUpper(cmd.Name), dir))
		return
	}
	if !c.Client.Authed && cmd.Flags&FlagNoAuth == 0 {
		if u := c.Client.ACLUser; u != nil {
			// acl.go: with ACL users, the default user decides (a password, from requirepass
			// or ACL SETUSER, or off), as Redis's authRequired.
			requirePass = u.Registry().AuthRequired(c.Env.Config().RequirePass)
		}
		if requirePass {
			c.W.Error(ErrNoAuth)
			return
		}
	}
	if c.Client.ACLUser != nil && !CheckACL(c, cmd, "toplevel") { // acl.go: NOPERM, ACL LOG
		return
	}
	c.Cmd = cmd
	run(c)
}

// ProtectedAllowed reports whether cmd may run for c: true unless cmd is protected (DEBUG)
// and its enable-<name>-command directive refuses it. Dispatch answers the refusal.
func ProtectedAllowed(c *Ctx, cmd *Command) bool {
	return cmd.Flags&FlagProtected == 0 || protectedAllowed(c, "enable-"+cmd.Name+"-command")
}

// protectedAllowed applies an enable-*-command directive as Redis does: "yes" allows the
// command, "local" allows it from a loopback connection (127.0.0.1 or ::1), "no" refuses it.
func protectedAllowed(c *Ctx, directive string) bool {
	v, _ := c.Env.Config().Get(directive)
	if v == "yes" {
		return true
	}
	host, _, _ := net.SplitHostPort(c.Client.Addr)
	return v == "local" && (host == "127.0.0.1" || host == "::1")
}

// Run executes c.Cmd in one transaction over its declared keys: the handler's writes commit
// together before the reply is released, and a handler that replies with an error writes nothing.
// A panicking handler is recovered and answered with an error. Callers other than Dispatch
// (EXEC) get the client's ACL permissions checked first (acl.go), as Dispatch checks them.
func Run(c *Ctx) {
	if c.Client.ACLUser != nil {
		if msg := ACLExecDenial(c, c.Cmd, c.Args); msg != "" {
			c.W.Error(msg)
			return
		}
	}
	run(c)
}

func run(c *Ctx) {
	cmd := c.Cmd
	start := c.W.Len()
	var keys [][]byte
	if cmd.FirstKey > 0 || cmd.Keys != nil {
		keys = cmd.AppendKeys(c.keyBuf[:0], c.Args)
	}
	switch {
	case cmd.Flags&FlagExclusive != 0:
		c.Txn = c.Store.BeginExclusive(c.Client.DB)
	case keys != nil:
		now := c.Now
		if now == 0 {
			now = time.Now().UnixMilli()
		}
		c.Txn = c.Store.BeginAt(c.Client.DB, keys, cmd.Flags&FlagWrite != 0, now)
	}
	touchKeys(c, keys)
	defer func() {
		if r := recover(); r != nil {
			slog.Error("command panicked", "command", cmd.Name, "panic", r, "stack", string(debug.Stack()))
			if c.Txn != nil {
				c.Txn.Abort()
				c.Txn = nil
			}
			c.W.Truncate(start)
			c.W.Error(fmt.Sprintf("ERR internal error while running '%s'", cmd.Name))
			c.Blocked, c.Ready = false, nil
		}
	}()
	if c.KeepExpired && c.Txn != nil {
		c.Txn.KeepExpired() // the master client of a replica
	}
	cmd.Handler(c)
	if c.OnRead != nil && cmd.Flags&FlagReadonly != 0 {
		c.OnRead(c) // while the keys are locked (see Ctx.OnRead)
	}
	if c.Txn == nil {
		return
	}
	t := c.Txn
	c.Txn = nil
	if c.Blocked && c.OnBlock != nil {
		// Registered while the keys are still locked, so no push can slip in between.
		c.OnBlock(c)
	}
	if c.Blocked || c.W.Len() > start && c.W.Bytes()[start] == '-' && !c.KeepWrites {
		t.Abort()
		return
	}
	changed := t.Writes() > 0
	if c.OnWrite != nil && changed {
		c.OnWrite(c) // before the commit, while the keys are locked (see Ctx.OnWrite)
	}
	if c.BeforeCommit != nil && changed {
		c.BeforeCommit(t)
	}
	if changed {
		c.PropagateOnCommit(t)
	}
	if err := t.Commit(); err != nil {
		c.W.Truncate(start)
		c.Fail(err)
		c.Ready = nil
		return
	}
	if changed {
		// A command that staged no write changed nothing (SETBIT of the bit already there)
		// and is not counted.
		c.Store.AddChanges(1)
	}
}

// RunIn executes c.Cmd inside a transaction the caller owns (c.Txn, already begun and covering
// the command's keys), for EXEC: the handler's writes join the caller's batch and nothing is
// committed here. Blocking commands answer as their non-blocking forms. It reports whether the
// command answered an error. A panicking handler is recovered and answered with an error;
// writes it staged stay in the caller's batch.
func RunIn(c *Ctx) (failed bool) {
	if c.Client.ACLUser != nil {
		// acl.go: the user's permissions, checked again when EXEC runs the command (they may
		// have changed since it was queued).
		if msg := ACLExecDenial(c, c.Cmd, c.Args); msg != "" {
			c.W.Error(msg)
			return true
		}
	}
	return runIn(c)
}

// runIn is RunIn without the permission check, for scripts, whose redis.call checks the
// user's permissions itself and answers a denial in its own words.
func runIn(c *Ctx) (failed bool) {
	cmd := c.Cmd
	start := c.W.Len()
	c.NonBlocking = true
	defer func() {
		if r := recover(); r != nil {
			slog.Error("command panicked", "command", cmd.Name, "panic", r, "stack", string(debug.Stack()))
			c.W.Truncate(start)
			c.W.Error(fmt.Sprintf("ERR internal error while running '%s'", cmd.Name))
			failed = true
		}
	}()
	writes := 0
	if c.Txn != nil {
		writes = c.Txn.Writes()
	}
	if cmd.FirstKey > 0 || cmd.Keys != nil {
		touchKeys(c, cmd.AppendKeys(c.keyBuf[:0], c.Args))
	}
	cmd.Handler(c)
	if c.Blocked {
		// A blocking command that found nothing: its non-blocking form answers a null.
		c.Blocked = false
		c.W.Truncate(start)
		c.W.NullArray()
	}
	failed = c.W.Len() > start && c.W.Bytes()[start] == '-'
	if !failed && c.Txn != nil && c.Txn.Writes() > writes {
		c.Store.AddChanges(1) // counted when staged: the caller commits the batch
	}
	return failed
}

// TxnKeys returns the keys a command with these arguments declares, for callers that open one
// transaction over several commands.
func TxnKeys(cmd *Command, args [][]byte) [][]byte { return cmd.KeysOf(args) }

// noTouch lists the commands that look at keys without counting as their use, as Redis's
// LOOKUP_NOTOUCH lookups: OBJECT IDLETIME is not reset by them.
var noTouch = map[string]bool{"exists": true, "type": true, "ttl": true, "pttl": true, "expiretime": true,
	"pexpiretime": true, "object": true, "memory": true}

// touchKeys records the use of a command's keys before it runs (its handler may set another
// time: RESTORE ... IDLETIME), for OBJECT IDLETIME and FREQ: not for the noTouch commands, nor,
// for a client in CLIENT NO-TOUCH mode, for any command but TOUCH.
func touchKeys(c *Ctx, keys [][]byte) {
	if len(keys) == 0 || noTouch[c.Cmd.Name] || c.Client.NoTouch && c.Cmd.Name != "touch" {
		return
	}
	c.Store.Touch(c.Client.DB, keys, c.Now)
}
