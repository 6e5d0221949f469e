// Package hll implements HyperLogLog cardinality estimation in Redis's exact byte representation,
// so that a value written by Strata reads back in Redis (and the other way round) and both
// answer the same counts for the same inserts.
//
// # Representation
//
// A value is a 16-byte header followed by registers. The header holds the magic "HYLL", an
// encoding byte (Dense or Sparse), three zero bytes and a cached cardinality: eight bytes little
// endian whose top bit, when set, marks the cache as stale. The dense encoding packs 16384 6-bit
// registers into 12288 bytes, least significant bits first. The sparse encoding is a run-length
// code of three opcodes: ZERO (00xxxxxx, 1 to 64 zero registers), XZERO (01xxxxxx xxxxxxxx, 1 to
// 16384 zero registers) and VAL (1vvvvvxx, 1 to 4 registers of value 1 to 32). A new value is
// sparse; it is promoted to dense when a register needs a value above 32 or when the sparse form
// would outgrow the configured maximum (hll-sparse-max-bytes).
//
// # Hashing and estimation
//
// An element is hashed with MurmurHash64A (seed 0xadc83b19). The low 14 bits pick the register;
// the register's candidate value is the position of the first set bit in the remaining 50 bits,
// counting from 1 (51 when none is set). The cardinality is Ertl's improved estimator over the
// histogram of register values, with the tau and sigma corrections, rounded to the nearest
// integer.
//
// # Errors
//
// Functions that read registers from a sparse value report ErrCorrupt when the opcodes do not
// cover exactly 16384 registers, so a malformed value can never index out of range. Valid
// reports whether a string has the header and size of an HLL at all.
package hll
