package commands

import "strings"

// MULTI, EXEC, DISCARD, WATCH and UNWATCH.
//
// The transaction state lives in the server (server/multi.go): after MULTI the server queues
// every command instead of dispatching it, answering +QUEUED, and EXEC runs the queue in one
// storage transaction with RunIn. These handlers only reach the server through TxnEnv.

// TxnEnv is implemented by a server that runs MULTI/EXEC transactions and WATCH.
type TxnEnv interface {
	Multi(c *Ctx)
	Exec(c *Ctx)
	Discard(c *Ctx)
	Watch(c *Ctx)
	Unwatch(c *Ctx)
}

// Transaction errors, as Redis 7.0 words them.
const (
	ErrExecAbort = "EXECABORT Transaction discarded because of previous errors."
	// ErrExecAbortBecause starts the reply of an EXEC that a gate refused: the gate's error follows.
	ErrExecAbortBecause = "EXECABORT Transaction discarded because of: "
	ErrNestedMulti      = "ERR MULTI calls can not be nested"
	ErrExecNoMulti      = "ERR EXEC without MULTI"
	ErrDiscardNoMulti   = "ERR DISCARD without MULTI"
	ErrWatchInMulti     = "ERR WATCH inside MULTI is not allowed"
	ErrNoMulti          = "ERR Command not allowed inside a transaction"
)

func init() {
	const f = FlagNoScript | FlagLoading | FlagStale
	register(
		&Command{Name: "multi", Arity: 1, Flags: f | FlagFast, Handler: txnCmd(TxnEnv.Multi)},
		&Command{Name: "exec", Arity: 1, Flags: f, Handler: txnCmd(TxnEnv.Exec)},
		&Command{Name: "discard", Arity: 1, Flags: f | FlagFast, Handler: txnCmd(TxnEnv.Discard)},
		// WATCH declares no keys to the dispatcher: the server reads them itself (their
		// expiry) while it registers the watch.
		&Command{Name: "watch", Arity: -2, Flags: f | FlagFast, Handler: txnCmd(TxnEnv.Watch)},
		&Command{Name: "unwatch", Arity: 1, Flags: f | FlagFast, Handler: txnCmd(TxnEnv.Unwatch)},
	)
}

func txnCmd(fn func(TxnEnv, *Ctx)) func(*Ctx) {
	return func(c *Ctx) {
		e, ok := c.Env.(TxnEnv)
		if !ok {
			c.W.Error("ERR transactions are not supported here")
			return
		}
		fn(e, c)
	}
}

// QueuedInMulti reports whether a command sent after MULTI is queued (every command but the
// ones that control the transaction or the connection, as in Redis's processCommand).
func QueuedInMulti(cmd *Command) bool {
	switch cmd.Name {
	case "exec", "discard", "multi", "watch", "quit", "reset":
		return false
	}
	return true
}

// ExecExclusive reports whether a queued command needs EXEC to hold the whole store: it is
// exclusive on its own, or it changes or reaches into another database (SELECT, MOVE, SWAPDB,
// COPY ... DB), which the key locks of one database do not cover.
func ExecExclusive(cmd *Command, args [][]byte) bool {
	if cmd.Flags&FlagExclusive != 0 {
		return true
	}
	switch cmd.Name {
	case "select", "move", "swapdb":
		return true
	case "copy":
		for _, a := range args[3:] {
			if strings.EqualFold(string(a), "db") {
				return true
			}
		}
	}
	return false
}

// ExecDeferred reports whether EXEC runs a queued command after its commit, outside its
// transaction: commands without keys that read store-wide state under the store's own lock
// (DBSIZE, INFO), which would wait forever for the lock EXEC holds. They see the
// whole transaction applied.
func ExecDeferred(cmd *Command) bool {
	switch cmd.Name {
	case "dbsize", "info":
		return true
	}
	return false
}
