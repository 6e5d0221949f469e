// Package replication holds Strata's side of Redis's replication protocol: the identity and
// offsets a node replicates under, and the backlog from which a replica that lost its link
// continues without a full resynchronisation.
//
// # Identity and offsets
//
// A master names the history it serves with a replication ID (40 hex characters) and counts
// the bytes of its command stream with the replication offset. A replica that asks
// PSYNC <id> <offset> continues partially when the master still serves that history from that
// byte. A promoted replica keeps the ID it followed as its second ID, valid up to the offset at
// which it was promoted, so its former siblings continue partially too (Redis's PSYNC2). IDs
// holds these and answers whether a PSYNC request can continue; INFO replication reports them.
//
// # The backlog
//
// The backlog is a ring of the last repl-backlog-size bytes of the propagated stream, each byte
// at its replication offset. A partial resynchronisation sends a replica the bytes after the
// offset it asks for; when they have left the ring the replica needs a full one. The ring is
// allocated on the first write that reaches it, as Redis creates its backlog with the first
// replica, so a node that never has a replica spends nothing on it.
//
// # Where the rest goes
//
// The master side (serving PSYNC and SYNC from a consistent LevelDB snapshot encoded by the rdb
// package, then the write stream in Redis's propagated form) and the replica side (the
// handshake, loading a full sync without holding it in memory, applying the stream with its
// applied offset committed in the same batch as the writes it covers) are built on these two
// pieces. The package sits below server/, which owns the connections, and above commands/,
// whose execution produces the stream.
package replication
