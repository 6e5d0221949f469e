package server

import (
	"sync/atomic"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// Clients blocked in XREAD and XREADGROUP.
//
// They wait in the same registry as the list and sorted-set pops, and an XADD signals its key
// like a push. A woken client's command runs again on that key alone, with the IDs it blocked
// for ("$" already resolved when it blocked): when it finds entries it answers, otherwise it
// would block again and the client stays blocked, and the next client of the key is tried, as
// every reader of a stream may be served by the same entries.
//
// A client blocked in XREADGROUP is also answered when its key is deleted or overwritten with
// another type (UNBLOCKED) or its group destroyed (NOGROUP), as in Redis 7.0. While any such
// client waits, every write command signals its declared keys (and FLUSHDB and FLUSHALL their
// databases), so that deletions reach the registry; XGROUP DESTROY signals its key itself.

// groupWaiters counts the clients blocked in XREADGROUP across servers.
var groupWaiters atomic.Int64

// streamWaiterGone answers a client blocked in XREADGROUP whose key or group is gone, in t,
// which it then ends. done is false when the client's command should run.
func streamWaiterGone(t *storage.Txn, w *waiter, args [][]byte, key string) (reply []byte, outcome int, done bool) {
	if w.cmd.Name != "xreadgroup" {
		return nil, 0, false
	}
	msg := commands.StreamWaiterGone(t, args, []byte(key))
	if msg == "" {
		return nil, 0, false
	}
	t.Abort()
	wr := resp.Writer{Proto: w.proto}
	wr.Error(msg)
	return wr.Bytes(), serveDone, true
}

// signalChangedKeys adds to ready the keys a write command may have deleted or replaced, for
// the clients blocked in XREADGROUP, and returns it.
func signalChangedKeys(s *Server, ctx *commands.Ctx, ready []commands.ReadyKey) []commands.ReadyKey {
	if groupWaiters.Load() == 0 || ctx.Cmd == nil || ctx.Cmd.Flags&commands.FlagWrite == 0 {
		return ready
	}
	switch ctx.Cmd.Name {
	case "flushall":
		for db := 0; db < s.store.Databases(); db++ {
			ready = append(ready, commands.ReadyKey{DB: db})
		}
		return ready
	case "flushdb":
		return append(ready, commands.ReadyKey{DB: ctx.Client.DB})
	}
	for _, k := range ctx.Cmd.KeysOf(ctx.Args) {
		ready = append(ready, commands.ReadyKey{DB: ctx.Client.DB, Key: k})
	}
	return ready
}

// streamNothing reports whether a re-run XREAD or XREADGROUP found nothing to serve: it
// answered as a non-blocking read that timed out.
func streamNothing(reply []byte) bool {
	return len(reply) == 0 || string(reply) == "*-1\r\n" || string(reply) == "_\r\n"
}

// countServedError counts the error a blocked command was answered with once served (the
// NOGROUP of a destroyed group, a WRONGTYPE destination) in INFO commandstats and errorstats,
// as Redis counts a blocked command's failure when it is unblocked.
func (s *Server) countServedError(cmd *commands.Command, reply []byte) {
	if len(reply) == 0 || reply[0] != '-' {
		return
	}
	s.buildCmdStats()
	if cs := s.x.cmdStats[cmd]; cs != nil {
		cs.failed.Add(1)
	}
	s.countError(reply)
}
