// Package replication holds Strata's side of Redis's replication protocol: the identity and
// offsets a node replicates under, the backlog from which a replica that lost its link
// continues without a full resynchronisation, and the replica side: the link to a master.
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
// # The replica side
//
// Replica follows one master over one connection at a time. It performs Redis 7.0's
// handshake (PING, AUTH with masteruser and masterauth, REPLCONF listening-port, REPLCONF capa
// eof capa psync2) and asks PSYNC with the point it holds, or PSYNC ? -1 without one. On
// +FULLRESYNC it reads the snapshot as it arrives, framed either by its length ($<len>) or,
// sent diskless, by the random mark announced in $EOF:<mark>, which eofReader finds without
// reading past it. Load stores the snapshot key by key through commands.RestoreValueStats
// into a storage.Shadow, fresh physical keyspaces beside the live ones, committing batches of
// a few hundred keys, so nothing but one element is ever held and no temporary file is
// written; then it installs the shadow in place of every database in one batch. Clients read
// the data of before until then (served as stale data, or MASTERDOWN when
// replica-serve-stale-data is no), and a load that fails (a corrupt snapshot, a master that
// goes away) leaves that data, and its point, untouched. On +CONTINUE the replica goes on
// where it was.
//
// The command stream is then parsed command by command and applied in order through Host, the
// server's master client, which keeps the selected database and any MULTI block as a client
// does. Each command's bytes count toward the offset, as Redis counts them; the bytes of a
// MULTI block count when its EXEC runs, so a link cut inside a transaction resumes before its
// MULTI. REPLCONF GETACK and a ticker once a second answer REPLCONF ACK <offset>. A broken
// link is retried a second later with PSYNC <replid> <offset+1>.
//
// # The point a replica holds
//
// The replication ID, offset and selected database that the keyspace reflects are a Point,
// stored in the PointRecord system record. The server stages it in the batch of every write
// the replica applies, and Load in the batch that installs a snapshot, so the record never
// claims more or less than the keyspace holds, and a replica restarted after a clean shutdown
// or a crash continues partially from exactly there.
//
// # The master side
//
// The server (server/master.go) owns the replica connections, the backlog and the feed of
// committed writes; this package gives it the pieces that know the protocol. AppendCommand
// encodes a command of the stream as a RESP array. WriteSnapshot encodes a storage.Snapshot,
// a view taken while no transaction runs so that it matches one replication offset exactly, as
// an RDB with that offset in its aux fields, one value at a time (a value-log string a piece
// at a time, raw above 1 MiB whatever rdbcompression says); NewEOFMark makes the mark
// that ends a diskless payload; RequestReader parses the REPLCONF ACKs a replica sends back.
//
// A replica with replicas of its own relays its master's stream to them unchanged, at the
// master's offsets, through the Relay interface its Host implements: every command read
// (PINGs and GETACKs too, which count in the offsets) is handed over as it arrives, and
// Resynced tells the host where the stream continues after a synchronisation, so that it
// keeps its backlog across a partial one and starts a new history after a full one.
//
// # Where it sits
//
// The package sits below server/, which owns the connections, the clients and the gates, and
// above commands/, whose execution produces the stream.
package replication
