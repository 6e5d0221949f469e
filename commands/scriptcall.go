package commands

import (
	"slices"
	"strings"
	"time"

	"github.com/strata-db/strata/internal/cmddoc"
	"github.com/strata-db/strata/scripting"
)

// Call runs one redis.call or redis.pcall of the script: the checks Redis 7.0 makes of a
// command called from a script, in its order, then the command in the script's transaction
// and database, counted in INFO commandstats as a command of its own.
func (sc *scriptCaller) Call(call *scripting.Call) (reply []byte, failed bool, refused string) {
	args := call.Args
	cmd := Lookup(args[0])
	switch {
	case cmd == nil:
		return nil, false, "Unknown Redis command called from script"
	case !cmd.CheckArity(len(args)):
		return nil, false, "Wrong number of args calling Redis command from script"
	case scriptForbidden(cmd, args) && !sc.noscriptAllowed(cmd):
		return nil, false, "This Redis command is not allowed from script"
	}
	c := sc.c
	if c.Client.ACLUser != nil {
		if msg := ACLScriptDenial(c, cmd, args); msg != "" { // acl.go, logged as "lua"
			return nil, false, msg
		}
	}
	if call.ReadOnly && (cmd.Flags&FlagWrite != 0 || mayReplicateCmd[cmd.Name]) {
		return nil, false, "Write commands are not allowed from read-only scripts."
	}
	if cmd.Flags&FlagWrite != 0 {
		// A script's first write command gets READONLY on a read-only replica, MISCONF while
		// the disk refuses writes, NOREPLICAS on a master short of good replicas; once the
		// script has written, its later writes are not refused half-way.
		if !call.Wrote() {
			gate, _ := c.Env.(WriteGate)
			if gate != nil && gate.ReplicaReadOnly() {
				return nil, false, "-" + ErrReadOnlyReplica
			}
			if err := c.Store.WriteError(); err != nil {
				return nil, false, "-" + MisconfError(err)
			}
			if gate != nil && gate.ReplicasShort() {
				return nil, false, "-" + ErrNoReplicas
			}
		}
		call.MarkWrite()
	}
	sc.w.Reset()
	sc.w.Proto = call.RESP
	sc.sub = Ctx{Args: args, Cmd: cmd, Client: c.Client, Store: c.Store, Txn: c.Txn, W: &sc.w, Env: c.Env, KE: c.KE,
		Script: c, Propagate: c.Propagate}
	c.Client.DB = sc.db
	before := c.Txn.Writes()
	mark := c.Txn.Mark()
	began := time.Now()
	if cmd.Name == "dbsize" {
		// DBSIZE reads the store's counters under the store lock the script holds: count the
		// database's keys in the script's transaction instead (expired ones included, as
		// DBSIZE does).
		failed = scriptDBSize(&sc.sub)
	} else {
		failed = runIn(&sc.sub)
	}
	if cc, ok := c.Env.(CallCounter); ok {
		cc.CountCall(&sc.sub, began, sc.w.Bytes()) // INFO commandstats, errorstats
	}
	if c.OnRead != nil && cmd.Flags&FlagReadonly != 0 {
		c.OnRead(&sc.sub) // CLIENT TRACKING: the script's caller tracks what it reads
	}
	if sc.sub.Txn != c.Txn {
		c.Txn = sc.sub.Txn // not expected: the script's transaction is exclusive
	}
	if !failed {
		if c.OnWrite != nil && c.Txn.Writes() > before {
			c.OnWrite(&sc.sub) // mark the clients that WATCH what the command changed
		}
		c.Events = append(c.Events, sc.sub.Events...)
		if c.Propagate != nil {
			sc.effects.AddCopy(sc.db, &sc.sub, c.Txn, mark) // the script's arguments are reused by its next call
		}
	} else if c.Propagate != nil {
		sc.effects.AddExpired(&sc.sub, c.Txn, mark) // the keys stay deleted: the script's batch commits
	}
	if c.Client.DB != sc.db {
		sc.db = c.Client.DB
		c.Txn.UseDB(sc.db)
	}
	c.Ready = append(c.Ready, sc.sub.Ready...) // each in the database the command ran in
	return sc.w.Bytes(), failed, ""
}

// ACLCheck answers redis.acl_check_cmd for the user running the script (nothing is logged).
func (sc *scriptCaller) ACLCheck(args [][]byte) (allowed, known bool) {
	cmd := Lookup(args[0])
	if cmd == nil {
		return false, false
	}
	if !ACLValidCall(cmd, args) {
		return false, false // a container named with a subcommand it does not have
	}
	return ACLAllows(sc.c, cmd, args), true
}

// scriptDenied lists the commands Redis 7.0 refuses in scripts (noscript) that Strata's table
// may not flag as such, and INFO, which takes the store lock a script holds.
var scriptDenied = map[string]bool{
	"quit": true, "reset": true, "multi": true, "exec": true, "discard": true, "watch": true, "unwatch": true,
	"subscribe": true, "psubscribe": true, "ssubscribe": true, "unsubscribe": true, "punsubscribe": true,
	"sunsubscribe": true, "monitor": true, "blpop": true, "brpop": true, "brpoplpush": true, "blmove": true,
	"bzpopmin": true, "bzpopmax": true, "wait": true, "debug": true, "latency": true, "module": true,
	"role": true, "replicaof": true, "slaveof": true, "sync": true, "psync": true, "failover": true,
	"bgrewriteaof": true, "bgsave": true, "save": true, "shutdown": true, "eval": true, "evalsha": true,
	"eval_ro": true, "evalsha_ro": true, "fcall": true, "fcall_ro": true, "acl": true, "script": true,
	"function": true, "client": true, "config": true, "hello": true, "auth": true, "info": true,
}

func scriptForbidden(cmd *Command, args [][]byte) bool {
	if cmd.Flags&FlagNoScript != 0 || scriptDenied[cmd.Name] {
		return true
	}
	if len(cmd.Sub) > 0 && len(args) > 1 { // a subcommand Redis flags noscript (CLUSTER RESET, ...)
		m := cmddoc.Redis[cmd.Name+"|"+strings.ToLower(string(args[1]))]
		return slices.Contains(strings.Fields(m.Flags), "noscript")
	}
	return false
}

// noscriptAllowed reports that cmd, refused in scripts, may run from this script all the same:
// DEBUG, while DEBUG SET-DISABLE-DENY-SCRIPTS 1 is in force. (Redis lifts the refusal of
// every noscript command so; in Strata most of them would wait for the store lock the script
// holds, or act on the connection, so the switch covers DEBUG, what test suites call.)
func (sc *scriptCaller) noscriptAllowed(cmd *Command) bool {
	_, off := denyScriptsOff.Load(sc.c.Store)
	return off && cmd.Name == "debug"
}

// mayReplicateCmd lists commands without the write flag that read-only scripts still may not
// call (Redis's may-replicate).
var mayReplicateCmd = map[string]bool{"publish": true, "spublish": true, "pfcount": true}

func scriptDBSize(c *Ctx) bool {
	it := c.Txn.ScanKeys(nil, nil)
	n := int64(0)
	for it.Next() {
		n++
	}
	if err := it.Close(); err != nil {
		c.Fail(err)
		return true
	}
	c.W.Int(n)
	return false
}
