// Package server accepts RESP connections, keeps per-client state and feeds every command
// through the dispatcher of package commands.
//
// # Connections
//
// Listeners (plain TCP on every bind address, and TLS) hand each connection to redcon, which
// runs one goroutine per client and parses its requests. Before redcon sees a byte, the request
// guard (protocol.go, limits.go) checks the framing as Redis does, with its error texts and
// limits (multibulk and bulk lengths, proto-max-bulk-len, client-query-buffer-limit,
// unauthenticated clients), so no request can allocate what its header claims.
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
