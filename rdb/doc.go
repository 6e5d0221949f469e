// Package rdb reads and writes Redis's RDB format: whole files (SAVE,
// replication snapshots, strata import and export) and DUMP payloads
// (DUMP, RESTORE, MIGRATE). It is a leaf: it knows nothing of Strata's
// storage or commands, and imports only the standard library. Callers move
// values between it and the keyspace element by element.
//
// # Format
//
// An RDB file is "REDIS" and a four-digit version (1 to 12 are read), then
// records: auxiliary fields, database selectors and size hints, function
// libraries, module data, and keys. A key is an optional expiry, idle time
// or frequency, then an object type byte, the key and the value; the file
// ends with the EOF opcode and, from version 5, a CRC-64 (Jones
// polynomial, reflected, no final inversion) of everything before it. The
// object type names both the data type and its encoding: tables of
// strings (list 1, set 2, sorted set 3 and 5, hash 4 and, with field TTLs,
// 22 and 24), single packed blobs (zipmap 9, ziplists 10, 12, 13, intset 11,
// listpacks 16, 17, 20, 23, 25) and quicklists, sequences of packed nodes
// (14, 18). The constants in format.go carry the numbers, which never
// change. Strings are raw, integers of 8, 16 or 32 bits, or LZF-compressed.
//
// # Reading
//
// Reader reads a file as a stream of Records; a key's Record carries a
// Value, whose Next returns one Element at a time (a list element, a set
// member, a sorted set member and score, a hash field and value with its
// TTL if it has one). Memory is bounded by the largest element, or by the
// largest packed blob, never by the key or the file: the Reader holds a
// 64 KiB buffer, one blob's bytes, and the element being returned. A Value
// must be consumed before the Reader's next call, which otherwise skips the
// rest of it. Every encoding Redis 2.6 to 8.x writes decodes to the same
// Elements, so callers never see encodings. Streams (types 15, 19, 21) are
// read with NextStreamEntry, one live entry at a time and one listpack node
// held, then StreamTail, the metadata and consumer groups held whole
// (stream.go); their Next reports ErrUnsupported. Module values are
// recognised and skipped (their Next reports ErrUnsupported), so an import
// can report them and go on; module aux data is skipped and reported as a
// record, and function libraries are returned with their source for the
// caller to load.
//
// # Writing
//
// Writer streams a file: header, aux fields, SELECTDB, RESIZEDB, function
// libraries, then per key its expiry, its type, and its elements as the
// caller supplies them; Close adds the EOF opcode and the checksum. Values
// use the encodings that every Redis from 6.2 on loads (string 0, linked
// list 1, set 2, hash 4, sorted set with binary scores 5) under version 9,
// the newest Redis 6.2 reads; streams are written as stream listpacks 2
// (type 19), which Redis 7.0 and later load (stream_write.go). Those
// encodings declare their element count
// first and then take elements one at a time, so no value is ever held
// whole: the caller passes the count its metadata knows. redis-server 7.0
// loads the files, and redis-check-rdb accepts them.
//
// # DUMP payloads
//
// A DUMP payload is one object type and value, the RDB version as two
// little-endian bytes, and the CRC-64 of all that, little-endian.
// ParseDump checks the footer (a version above Options.MaxVersion gives
// ErrVersion, a wrong checksum ErrChecksum: the "payload version or
// checksum are wrong" case of RESTORE) and returns the Value; bytes after
// the value are ignored, as Redis ignores them. DumpWriter writes payloads
// with the same ValueWriter as files, stamped with DumpVersion, so Redis
// 6.2, 7.0 and 7.2+ RESTORE them. Strings longer than 20 bytes are
// LZF-compressed when that saves space, as Redis does. StringFrom writes a
// string from a reader: one above StreamedStringMin is copied raw in pieces,
// since LZF would need it whole in memory.
//
// # Hostile input
//
// Input is untrusted. Every length is checked against Options.MaxElementLen
// and, in a payload, against the bytes that remain; a stream grows a string
// as its bytes arrive, so a false claim fails at the end of data without a
// large allocation, and claimed element counts are never used to size
// anything (a 2^40-element list fails when the data ends). LZF output is
// bounded by its declared length and by the compression ratio LZF can
// reach. Packed blobs are validated whole before any element is delivered,
// as Redis's sanitize-dump-payload deep check does: header sizes and counts,
// each ziplist entry's previous-length, each listpack entry's back-length,
// encodings, bounds, terminators, intset order, and duplicate members or
// fields. A differential test checks that redis-server with
// sanitize-dump-payload on refuses the same malformed payloads. Duplicates
// across the elements of a table encoding are not detected here (that
// would hold the key in memory); the caller's store sees them. Corrupt input wraps ErrCorrupt and an empty value ends with
// ErrEmptyKey; nothing panics, which FuzzParseDump and FuzzReader check.
package rdb
