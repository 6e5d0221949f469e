// Package server accepts RESP connections, keeps per-client state and feeds every command
// through the dispatcher of package commands.
//
// # Connections
//
// Plain TCP clients are served by event loops (evloop.go, io-model loop, the default): each
// loop is an epoll set owning many connections; it reads every ready socket once, runs every
// complete command through handle, flushes the journal once for the pass and writes each
// connection's replies with one write, as Redis does, with no goroutine parked per idle
// client. A command that may wait (WAIT, a script, PSYNC, a command held by CLIENT PAUSE)
// detaches its connection to a goroutine, which runs it and what follows and hands the
// connection back once it is idle. A blocking command runs in the loop, so that it answers
// there when it can and otherwise registers its blocked client in the order the loop runs
// commands; only then is its wait detached. With io-model goroutine, and for TLS, redcon runs
// one goroutine per client instead. Before a request is parsed, the request guard (protocol.go,
// limits.go) checks the framing as Redis does, with its error texts and limits (multibulk and
// bulk lengths, proto-max-bulk-len, client-query-buffer-limit, unauthenticated clients), so no
// request can allocate what its header claims.
//
// # The path of a command
//
// handle (server.go) runs the gates Redis runs, in its order: a script running past
// busy-reply-threshold (BUSY), MULTI queueing and subscriber mode (multi.go), then
// commands.Dispatch, which checks arity, authentication, ACL and the disk state and runs the
// handler in its own transaction. After it: statistics (INFO commandstats, the latency
// histograms and the slow log), MONITOR, keyspace events and WATCH, client tracking, and the
// wake-up of clients blocked on keys the command changed (blocking.go). A reply leaves after
// the command's batch is committed.
//
// # Clients that receive without asking
//
// Subscribers, monitors and tracking clients get messages from other goroutines: such a client
// switches to an outbound queue with a writer goroutine of its own (pubsub.go), cut off at
// client-output-buffer-limit so that a client that does not read cannot hold unbounded memory.
//
// # Replication
//
// The server owns the replication state (replication.go) and, on a replica, the link to the
// master (replica.go), which package replication drives through a small Host interface: the
// master's commands run as a connection-less client through the same gates.
//
// # What the server reports
//
// INFO (info.go), SLOWLOG (slowlog.go), LATENCY (latency.go), CLIENT LIST and the Prometheus
// endpoint (metrics.go) read the same counters.
package server
