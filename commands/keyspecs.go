package commands

import (
	"slices"
	"strings"

	"github.com/strata-db/strata/internal/cmddoc"
	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/internal/resp"
)

// keyRef is a key that a command's arguments name, with the flags of the key specification
// that found it (COMMAND GETKEYSANDFLAGS).
type keyRef struct {
	key   []byte
	flags []string
}

// specFlag reports whether a key specification carries flag.
func specFlag(s *cmddoc.KeySpec, flag string) bool {
	return slices.Contains(strings.Fields(s.Flags), flag)
}

// hasKeySpec reports whether specs name keys (a specification not marked not_key), and
// whether one of them has variable flags.
func hasKeySpec(specs []cmddoc.KeySpec) (keys, variable bool) {
	for i := range specs {
		keys = keys || !specFlag(&specs[i], "not_key")
		variable = variable || specFlag(&specs[i], "variable_flags")
	}
	return keys, variable
}

// specKeys finds the keys of args by their key specifications, as Redis 7.0 does
// (getKeysUsingKeySpecs): specifications marked not_key are skipped, and ok is false when one
// cannot be applied (an unknown search, a count that is not an integer, bounds out of the
// arguments, an incomplete specification), for the command's own procedure to find its keys.
// Positions are computed in 32-bit arithmetic, as in Redis. With a negative arity, positions
// past the arguments are skipped.
func specKeys(specs []cmddoc.KeySpec, args [][]byte, negArity bool) (refs []keyRef, ok bool) {
	argc := int32(len(args))
	for i := range specs {
		s := &specs[i]
		if specFlag(s, "not_key") {
			continue
		}
		var first int32
		switch s.Begin {
		case "index":
			first = int32(s.Index)
		case "keyword":
			start, end := int32(s.From), int32(1)
			if s.From > 0 {
				end = argc - 1
			} else {
				start = argc + int32(s.From)
			}
			for j := start; j != end; {
				if j >= argc || j < 1 {
					break
				}
				if strings.EqualFold(string(args[j]), s.Keyword) {
					first = j + 1
					break
				}
				if start <= end {
					j++
				} else {
					j--
				}
			}
			if first == 0 {
				continue // the keyword is absent: no keys from this specification
			}
		default:
			return nil, false
		}
		var last, step int32
		switch s.Find {
		case "range":
			step = int32(s.KeyStep)
			switch {
			case s.LastKey >= 0:
				last = first + int32(s.LastKey)
			case s.Limit == 0:
				last = argc + int32(s.LastKey)
			default:
				last = first + ((argc-first)/int32(s.Limit) + int32(s.LastKey))
			}
		case "keynum":
			step = int32(s.KeyStep)
			if int32(s.KeyNumIdx) >= argc || first+int32(s.KeyNumIdx) >= argc {
				return nil, false
			}
			n, err := num.ParseInt(args[first+int32(s.KeyNumIdx)])
			if err != nil || n < 0 {
				return nil, false
			}
			first += int32(s.FirstKey)
			last = first + int32(n) - 1
		default:
			return nil, false
		}
		if last >= argc || last < first || first >= argc {
			return nil, false
		}
		flags := strings.Fields(s.Flags)
		for j := first; j <= last; j += max(step, 1) {
			if j >= argc || j < first {
				if negArity {
					continue
				}
				return nil, false
			}
			refs = append(refs, keyRef{args[j], flags})
		}
		if specFlag(s, "incomplete") {
			return nil, false
		}
	}
	return refs, true
}

// commandKeyRefs returns the keys of args for the command or subcommand name, as COMMAND
// GETKEYS and GETKEYSANDFLAGS find them in Redis 7.0 (getKeysFromCommandWithSpecs): by the key
// specifications when they name keys with fixed flags and apply, else by the command's own
// procedure, which Strata's lock keys or the numkeys rules below reproduce, with the flags
// that procedure gives. Strata's own commands (not Redis's) use the table's key positions.
func commandKeyRefs(name string, cmd *Command, args [][]byte, arity int) []keyRef {
	if _, redis := cmddoc.Redis[name]; !redis {
		return refsWith(cmd.KeysOf(args), nil)
	}
	specs := cmddoc.KeySpecs[name]
	if keys, variable := hasKeySpec(specs); keys && !variable {
		if refs, ok := specKeys(specs, args, arity < 0); ok {
			return refs
		}
	}
	if !cmddoc.KeysProc[name] {
		return nil
	}
	if spec, ok := getKeysNumKeys[name]; ok {
		return refsWith(numKeysFallback(spec, args), nil)
	}
	switch name {
	case "set":
		flags := []string{"OW", "update"}
		for _, a := range args[3:] {
			if strings.EqualFold(string(a), "get") {
				flags = []string{"RW", "access", "update"}
			}
		}
		return []keyRef{{args[1], flags}}
	case "bitfield":
		return []keyRef{{args[1], bitfieldKeyFlags(args)}}
	case "sort", "sort_ro":
		refs := refsWith(cmd.KeysOf(args), []string{"OW", "update"}) // the STORE destination
		if len(refs) > 0 {
			refs[0].flags = []string{"RO", "access"}
		}
		return refs
	case "migrate":
		return refsWith(cmd.KeysOf(args), []string{"RW", "access", "delete"})
	}
	return refsWith(cmd.KeysOf(args), nil) // GEORADIUS ... STORE, XREAD: no flags, as in Redis
}

// refsWith pairs keys with the same flags.
func refsWith(keys [][]byte, flags []string) []keyRef {
	refs := make([]keyRef, len(keys))
	for i, k := range keys {
		refs[i] = keyRef{k, flags}
	}
	return refs
}

// bitfieldKeyFlags returns the flags of BITFIELD's key: read-only while its subcommands are
// well-formed GETs and OVERFLOWs, else read-write (Redis's bitfieldGetKeys).
func bitfieldKeyFlags(args [][]byte) []string {
	for i := 2; i < len(args); i++ {
		rem := len(args) - i - 1
		switch a := strings.ToLower(string(args[i])); {
		case a == "get" && rem >= 2:
			i += 2
		case a == "overflow" && rem >= 1:
			i++
		default:
			return []string{"RW", "access", "update"}
		}
	}
	return []string{"RO", "access"}
}

// writeKeySpecs writes COMMAND INFO's key specifications of a command or subcommand.
func writeKeySpecs(w *resp.Writer, name string) {
	specs := cmddoc.KeySpecs[name]
	w.Set(len(specs))
	for i := range specs {
		s := &specs[i]
		n := 3
		if s.Notes != "" {
			n++
		}
		w.Map(n)
		if s.Notes != "" {
			w.BulkString("notes")
			w.BulkString(s.Notes)
		}
		w.BulkString("flags")
		writeStatusSet(w, strings.Fields(s.Flags))
		w.BulkString("begin_search")
		switch s.Begin {
		case "index":
			writeSearch(w, "index", "index", int64(s.Index))
		case "keyword":
			w.Map(2)
			w.BulkString("type")
			w.BulkString("keyword")
			w.BulkString("spec")
			w.Map(2)
			w.BulkString("keyword")
			w.BulkString(s.Keyword)
			w.BulkString("startfrom")
			w.Int(int64(s.From))
		default:
			writeSearch(w, "unknown")
		}
		w.BulkString("find_keys")
		switch s.Find {
		case "range":
			writeSearch(w, "range", "lastkey", int64(s.LastKey), "keystep", int64(s.KeyStep), "limit", int64(s.Limit))
		case "keynum":
			writeSearch(w, "keynum", "keynumidx", int64(s.KeyNumIdx), "firstkey", int64(s.FirstKey), "keystep", int64(s.KeyStep))
		default:
			writeSearch(w, "unknown")
		}
	}
}

// writeSearch writes a begin_search or find_keys map: its type and its integer fields, given
// as name, value pairs.
func writeSearch(w *resp.Writer, typ string, fields ...any) {
	w.Map(2)
	w.BulkString("type")
	w.BulkString(typ)
	w.BulkString("spec")
	w.Map(len(fields) / 2)
	for i := 0; i+1 < len(fields); i += 2 {
		w.BulkString(fields[i].(string))
		w.Int(fields[i+1].(int64))
	}
}

// writeStatusSet writes a set of simple strings (flags).
func writeStatusSet(w *resp.Writer, items []string) {
	w.Set(len(items))
	for _, it := range items {
		w.Status(it)
	}
}
