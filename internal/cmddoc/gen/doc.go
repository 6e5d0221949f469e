// Command gen writes internal/cmddoc's docs_data.go from Redis's command descriptions, the
// src/commands/*.json files of a Redis source tree.
//
// # What it writes
//
// For each command and subcommand (named as COMMAND DOCS names them: lower case,
// "container|sub"), a cmddoc.Doc with the parts of its COMMAND DOCS entry that cmddoc.Meta does
// not hold: doc flags, the version that deprecated it and what replaces it, its history, and
// its argument tree (name, type, key specification index, token, since, flags, nested
// arguments). Fields left empty are left out of the literal, so the file stays compact.
//
// # Faithfulness
//
// It reads the descriptions as Redis's own code generator does: argument names are lowered,
// tokens raised, flags listed in Redis's order. It refuses a description that has a field it
// does not know, so that a newer Redis's additions cannot be dropped without notice.
//
// # Usage
//
// From internal/cmddoc (the go:generate line in docs.go):
//
//	go run ./gen -src /path/to/redis-7.0.15/src/commands -o docs_data.go
package main
