// Package storage is Strata's keyspace on top of goleveldb.
//
// # Layout
//
// Every record key starts with one tag byte:
//
//	'!' name                     system records: format version, object-ID high-water mark,
//	                             database map, per-database key and expiry counters
//	'm' phys(4) userkey          metadata of one user key (type, expiry, size, object ID; a string's value)
//	'd' objectID(8) subkey       elements of a collection, under the collection's object ID
//	                             (a small hash, set or sorted set packed in one record with an
//	                             empty subkey: packed.go; a list's nodes by the index of their
//	                             first element, the head node by the metadata's First: listnode.go;
//	                             a stream's nodes by master ID, their entries in chunk records
//	                             (compact in the tail, packed when the node closes; records by
//	                             16-byte ID in older nodes), consumer groups, pending entries and
//	                             consumers: stream.go, stream_node.go, stream_compact.go,
//	                             stream_group.go)
//	'e' expireAt(8) phys(4) key  expiry index ordered by time, walked by the active-expiry cycle
//	'g' seq(8)                   garbage queue: object IDs and whole databases to reclaim
//
// A logical database (SELECT n) maps to a physical keyspace number ("phys"). FLUSHDB gives the
// database a fresh physical number and queues the old one for the collector, so it returns at once;
// SWAPDB swaps two entries of the map.
//
// # Writes
//
// A command runs in one Txn: it takes the striped locks of the keys the command table declares,
// reads through an overlay of its own pending writes, and commits one batch. A failed command
// drops its batch, so nothing is half-written. Key and expiry counters are updated in the same
// batch, so DBSIZE stays exact and survives a crash. Commits are grouped (group.go): a commit
// joins the store's pending group, which every later read sees, and Store.Flush writes the
// group to LevelDB with one write (and one fsync under appendfsync always) before the server
// sends the replies that depend on it.
//
// # Reclaim
//
// Deleting or overwriting a collection only rewrites its metadata; the old object ID goes to the
// garbage queue in the same batch. A background collector deletes the stale sub-keys in bounded
// batches and compacts the range afterwards. The queue lives in the database, so a restart loses
// nothing and leaks nothing.
package storage
