// Package commands holds Strata's command table and one file per command family: for each
// command its arguments, its operation through a storage transaction, and its reply.
//
// # The table
//
// Each command is declared once, in the init of its family's file (register): name, arity,
// flags, key positions (or a function for commands whose keys move), subcommands and handler.
// COMMAND, ACL categories, key locks, keyspace events and the MULTI and script rules all read
// the table; internal/cmddoc adds Redis's documentation for COMMAND DOCS.
//
// # Dispatch
//
// Dispatch (dispatch.go) runs the gates in Redis's order (unknown command, arity,
// authentication, ACL, the disk's state), opens a transaction locking the declared keys, runs
// the handler, and commits unless the handler answered an error, so a failed command writes
// nothing. A handler reads c.Args, works through c.Txn and writes its reply to c.W; it never
// checks arity or permissions itself.
//
// # Propagation
//
// A committed write reaches the server's write stream (the replication backlog) in Redis 7.0's
// propagated form (propagate.go): a handler whose arguments would not repeat its writes on a
// replica records what does with Ctx.Effect (EXPIRE as PEXPIREAT, SET EX as SET PXAT, SPOP as
// SREM, a blocking pop as its non-blocking form), and the deletion of every expired key a write
// met goes first. EXEC and scripts gather their commands' effects in an EffectLog and send them
// as one block, wrapped in MULTI/EXEC when there are several, once their batch commits and
// while its keys are still locked, so the stream orders the writes of a key as they committed.
//
// # Around the handlers
//
// Keyspace events are derived outside the handlers (notify.go, notify_specs.go), from the reply
// and the keys before and after. Scripts run in package scripting, which calls back into the
// table (scriptcall.go); the ACL model is package acl. The server is reached through the
// interfaces of context.go (ServerEnv and the smaller ones: Tracker, SlowLogger, Monitorer,
// LatencyMonitor, Replicator), so this package knows nothing of sockets.
package commands
