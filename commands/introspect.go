package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strata-db/strata/internal/cmddoc"
	"github.com/strata-db/strata/internal/glob"
	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/internal/resp"
)

func init() {
	register(&Command{Name: "command", Arity: -1, Flags: FlagLoading | FlagStale, Handler: cmdCommand,
		Sub: []string{"count", "docs", "getkeys", "getkeysandflags", "help", "info", "list"}})
	register(&Command{Name: "info", Arity: -1, Flags: FlagLoading | FlagStale, Handler: cmdInfo})
}

// cmdInfo implements INFO [section ...]; the server renders the sections.
func cmdInfo(c *Ctx) {
	srv := serverEnv(c)
	if srv == nil {
		return
	}
	sections := make([]string, 0, len(c.Args)-1)
	for _, a := range c.Args[1:] {
		sections = append(sections, strings.ToLower(string(a)))
	}
	c.W.Verbatim(srv.Info(sections))
}

func cmdCommand(c *Ctx) {
	if len(c.Args) == 1 {
		all := All()
		c.W.Array(len(all))
		for _, cmd := range all {
			writeCommandInfo(c.W, cmd)
		}
		return
	}
	sub := strings.ToLower(c.Arg(1))
	arity := map[string]int{"count": 2, "docs": -2, "getkeys": -4, "getkeysandflags": -4, "help": 2, "info": -2, "list": -2}
	a, ok := arity[sub]
	if !ok {
		c.W.Error(fmt.Sprintf(ErrUnknownSub, c.Arg(1), "COMMAND"))
		return
	}
	if !subArityOK(a, len(c.Args)) {
		c.W.Error(fmt.Sprintf(ErrWrongArity, "command|"+sub))
		return
	}
	switch sub {
	case "count":
		c.W.Int(int64(len(All())))
	case "info":
		commandInfo(c)
	case "docs":
		commandDocs(c)
	case "list":
		commandList(c)
	case "getkeys":
		commandGetKeys(c, false)
	case "getkeysandflags":
		commandGetKeys(c, true)
	case "help":
		writeHelp(c.W, commandHelpLines)
	}
}

var commandHelpLines = []string{
	"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"(no subcommand)",
	"    Return details about all Redis commands.",
	"COUNT",
	"    Return the total number of commands in this Redis server.",
	"LIST",
	"    Return a list of all commands in this Redis server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"GETKEYS <full-command>",
	"    Return the keys from a full Redis command.",
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full Redis command.",
	"HELP",
	"    Prints this help.",
}

// commandFlagNames returns COMMAND's flags of cmd in Redis's order: the table's flags, the
// flags of Redis's that the table does not model (cmddoc.Flags: skip_monitor, allow_busy,
// ...), no_multi, and movablekeys (movableKeys).
func commandFlagNames(cmd *Command) []string {
	extra := strings.Fields(cmddoc.Flags[cmd.Name])
	has := func(f string) bool { return slices.Contains(extra, f) }
	var names []string
	for _, fn := range flagNames {
		if fn.f == FlagAsking {
			for _, f := range []string{"skip_monitor", "skip_slowlog"} {
				if has(f) {
					names = append(names, f)
				}
			}
		}
		if cmd.Flags&fn.f != 0 {
			names = append(names, fn.name)
		}
	}
	for _, f := range []string{"no_mandatory_keys", "no_async_loading"} {
		if has(f) {
			names = append(names, f)
		}
	}
	if cmd.Flags&FlagNoMulti != 0 {
		names = append(names, "no_multi")
	}
	if movableKeys(cmd) {
		names = append(names, "movablekeys")
	}
	if has("allow_busy") {
		names = append(names, "allow_busy")
	}
	return names
}

// movableKeys reports whether COMMAND shows cmd with the movablekeys flag: for Redis's commands
// as Redis 7.0 derives it from the key specifications (legacyKeyRange), for Strata's own
// commands when their key positions move.
func movableKeys(cmd *Command) bool {
	if _, redis := cmddoc.Redis[cmd.Name]; !redis {
		return cmd.Keys != nil
	}
	_, _, _, movable := legacyKeyRange(cmddoc.KeySpecs[cmd.Name])
	return movable
}

// legacyKeyRange returns the first key, last key and step COMMAND shows for a command with key
// specifications specs, as Redis 7.0 derives them (populateCommandLegacyRangeSpec): a single
// index-and-range specification as it is; otherwise the index-and-range specifications of step 1
// that follow each other, merged. movable is set when some specification is left out or is
// incomplete.
func legacyKeyRange(specs []cmddoc.KeySpec) (first, last, step int, movable bool) {
	if len(specs) == 1 && specs[0].Begin == "index" && specs[0].Find == "range" {
		s := &specs[0]
		last = s.LastKey
		if last >= 0 {
			last += s.Index
		}
		return s.Index, last, s.KeyStep, specFlag(s, "incomplete")
	}
	firstKey, lastKey, prevLast := -1, uint32(0), uint32(0)
	for i := range specs {
		s := &specs[i]
		if s.Begin != "index" || s.Find != "range" || s.KeyStep != 1 || prevLast != 0 && int(prevLast) != s.Index-1 {
			movable = true
			continue
		}
		movable = movable || specFlag(s, "incomplete")
		if firstKey < 0 || s.Index < firstKey {
			firstKey = s.Index
		}
		abs := int32(s.LastKey)
		if abs >= 0 {
			abs += int32(s.Index)
		}
		lastKey = max(lastKey, uint32(abs))
		prevLast = lastKey
	}
	if firstKey < 0 {
		return 0, 0, 0, movable || len(specs) > 0
	}
	return firstKey, int(int32(lastKey)), 1, movable
}

// commandACL returns the ACL categories of a command or subcommand ("@read", ...): Redis's
// own for Redis commands, derived from the flags for Strata's own commands.
func commandACL(name string, flags Flag) []string {
	if m, ok := cmddoc.Redis[name]; ok {
		var out []string
		for _, a := range strings.Fields(m.ACL) {
			out = append(out, "@"+a)
		}
		return out
	}
	var out []string
	if flags&FlagWrite != 0 {
		out = append(out, "@write")
	}
	if flags&FlagReadonly != 0 {
		out = append(out, "@read")
	}
	if flags&FlagAdmin != 0 {
		out = append(out, "@admin", "@dangerous")
	}
	if flags&FlagPubSub != 0 {
		out = append(out, "@pubsub")
	}
	if flags&FlagBlocking != 0 {
		out = append(out, "@blocking")
	}
	if flags&FlagFast != 0 {
		out = append(out, "@fast")
	} else {
		out = append(out, "@slow")
	}
	return out
}

// writeCommandInfo writes one COMMAND entry as Redis 7.0 does: name, arity, flags, first key,
// last key, step, ACL categories, tips, key specifications and subcommands.
func writeCommandInfo(w *resp.Writer, cmd *Command) {
	w.Array(10)
	w.BulkString(cmd.Name)
	w.Int(int64(cmd.Arity))
	flags := commandFlagNames(cmd)
	first, last, step := cmd.FirstKey, cmd.LastKey, cmd.Step
	if _, redis := cmddoc.Redis[cmd.Name]; redis {
		first, last, step, _ = legacyKeyRange(cmddoc.KeySpecs[cmd.Name])
	}
	if len(cmd.Sub) > 0 {
		// As in Redis 7, a container has no keys itself, nor flags unless it can be called
		// without a subcommand (COMMAND): its subcommands carry them.
		first, last, step = 0, 0, 0
		if cmd.Arity != -1 {
			flags = nil
		}
	}
	w.Set(len(flags))
	for _, f := range flags {
		w.Status(f)
	}
	w.Int(int64(first))
	w.Int(int64(last))
	w.Int(int64(step))
	writeACLAndTips(w, cmd.Name, cmd.Flags)
	writeKeySpecs(w, cmd.Name)
	if len(cmd.Sub) == 0 {
		w.Set(0)
	} else {
		w.Array(len(cmd.Sub))
	}
	for _, s := range cmd.Sub {
		full := cmd.Name + "|" + s
		m := cmddoc.Redis[full]
		arity, fl := m.Arity, strings.Fields(m.Flags)
		if arity == 0 {
			arity, fl = -2, commandFlagNames(cmd)
			m.First, m.Last, m.Step = cmd.FirstKey, cmd.LastKey, cmd.Step
		}
		w.Array(10)
		w.BulkString(full)
		w.Int(int64(arity))
		w.Set(len(fl))
		for _, f := range fl {
			w.Status(f)
		}
		w.Int(int64(m.First))
		w.Int(int64(m.Last))
		w.Int(int64(m.Step))
		writeACLAndTips(w, full, cmd.Flags)
		writeKeySpecs(w, full)
		w.Set(0)
	}
}

func writeACLAndTips(w *resp.Writer, name string, flags Flag) {
	acl := commandACL(name, flags)
	w.Set(len(acl))
	for _, a := range acl {
		w.Status(a)
	}
	tips := strings.Fields(cmddoc.Redis[name].Tips)
	w.Set(len(tips))
	for _, t := range tips {
		w.BulkString(t)
	}
}

func commandInfo(c *Ctx) {
	if len(c.Args) == 2 {
		all := All()
		c.W.Array(len(all))
		for _, cmd := range all {
			writeCommandInfo(c.W, cmd)
		}
		return
	}
	c.W.Array(len(c.Args) - 2)
	for _, name := range c.Args[2:] {
		cmd := Lookup(name)
		if cmd == nil {
			c.W.Null()
			continue
		}
		writeCommandInfo(c.W, cmd)
	}
}

// writeCommandDoc writes the COMMAND DOCS map of one command or subcommand, its fields in
// Redis's order.
func writeCommandDoc(w *resp.Writer, name string, subs []string, parent string) {
	m, known := cmddoc.Redis[name]
	if !known {
		m = cmddoc.Meta{Summary: "Strata command (not part of Redis)", Group: "server"}
		if parent != "" {
			m.Group = cmddoc.Redis[parent].Group
		}
	}
	d := cmddoc.Docs[name]
	n := 3
	for _, set := range []bool{m.Complexity != "", d.DocFlags != "", d.DeprecatedSince != "", d.ReplacedBy != "",
		len(d.History) > 0, len(d.Args) > 0, len(subs) > 0} {
		if set {
			n++
		}
	}
	w.Map(n)
	w.BulkString("summary")
	w.BulkString(m.Summary)
	w.BulkString("since")
	w.BulkString(m.Since)
	w.BulkString("group")
	w.BulkString(m.Group)
	writeDocString(w, "complexity", m.Complexity)
	if d.DocFlags != "" {
		w.BulkString("doc_flags")
		writeStatusSet(w, strings.Fields(d.DocFlags))
	}
	writeDocString(w, "deprecated_since", d.DeprecatedSince)
	writeDocString(w, "replaced_by", d.ReplacedBy)
	if len(d.History) > 0 {
		w.BulkString("history")
		w.Set(len(d.History))
		for _, h := range d.History {
			w.Array(2)
			w.BulkString(h[0])
			w.BulkString(h[1])
		}
	}
	if len(d.Args) > 0 {
		w.BulkString("arguments")
		writeDocArgs(w, d.Args)
	}
	if len(subs) > 0 {
		w.BulkString("subcommands")
		w.Map(len(subs))
		for _, s := range subs {
			full := name + "|" + s
			w.BulkString(full)
			writeCommandDoc(w, full, nil, name)
		}
	}
}

// writeDocString writes one string field of a COMMAND DOCS map, when it is set.
func writeDocString(w *resp.Writer, field, v string) {
	if v != "" {
		w.BulkString(field)
		w.BulkString(v)
	}
}

// writeDocArgs writes an argument tree of COMMAND DOCS: one map per argument, its fields in
// Redis's order.
func writeDocArgs(w *resp.Writer, args []cmddoc.Arg) {
	w.Array(len(args))
	for _, a := range args {
		n := 2
		for _, set := range []bool{a.KeySpec > 0, a.Token != "", a.Summary != "", a.Since != "",
			a.DeprecatedSince != "", a.Flags != "", a.Type == "oneof" || a.Type == "block"} {
			if set {
				n++
			}
		}
		w.Map(n)
		writeDocString(w, "name", a.Name)
		writeDocString(w, "type", a.Type)
		if a.KeySpec > 0 {
			w.BulkString("key_spec_index")
			w.Int(int64(a.KeySpec - 1))
		}
		if a.Token != "" {
			// Redis's command table holds each token inside C quotes, so MIGRATE's token of two
			// quotes (the empty key) is answered as the empty string.
			w.BulkString("token")
			w.BulkString(strings.ReplaceAll(a.Token, `"`, ""))
		}
		writeDocString(w, "summary", a.Summary)
		writeDocString(w, "since", a.Since)
		writeDocString(w, "deprecated_since", a.DeprecatedSince)
		if a.Flags != "" {
			w.BulkString("flags")
			writeStatusSet(w, strings.Fields(a.Flags))
		}
		if a.Type == "oneof" || a.Type == "block" {
			w.BulkString("arguments")
			writeDocArgs(w, a.Args)
		}
	}
}

func commandDocs(c *Ctx) {
	var cmds []*Command
	if len(c.Args) == 2 {
		cmds = All()
	} else {
		for _, name := range c.Args[2:] {
			if cmd := Lookup(name); cmd != nil {
				cmds = append(cmds, cmd)
			}
		}
	}
	c.W.Map(len(cmds))
	for _, cmd := range cmds {
		c.W.BulkString(cmd.Name)
		writeCommandDoc(c.W, cmd.Name, cmd.Sub, "")
	}
}

func commandList(c *Ctx) {
	var filter func(name string, cmd *Command) bool
	switch {
	case len(c.Args) == 2:
	case len(c.Args) == 5 && strings.EqualFold(c.Arg(2), "filterby"):
		arg := c.Args[4]
		switch strings.ToLower(c.Arg(3)) {
		case "module":
			filter = func(string, *Command) bool { return false }
		case "aclcat":
			cat := "@" + strings.ToLower(string(arg))
			filter = func(name string, cmd *Command) bool {
				for _, a := range commandACL(name, cmd.Flags) {
					if a == cat {
						return true
					}
				}
				return false
			}
		case "pattern":
			filter = func(name string, _ *Command) bool { return glob.Match(arg, []byte(name), true) }
		default:
			c.W.Error(ErrSyntax)
			return
		}
	default:
		c.W.Error(ErrSyntax)
		return
	}
	var names []string
	for _, cmd := range All() {
		if filter == nil || filter(cmd.Name, cmd) {
			names = append(names, cmd.Name)
		}
		for _, s := range cmd.Sub {
			full := cmd.Name + "|" + s
			if filter == nil || filter(full, cmd) {
				names = append(names, full)
			}
		}
	}
	c.W.Array(len(names))
	for _, n := range names {
		c.W.BulkString(n)
	}
}

// commandGetKeys is COMMAND GETKEYS and, withFlags, GETKEYSANDFLAGS: the keys of a full
// command, found as Redis 7.0 finds them (commandKeyRefs), with its errors in its order: an
// unknown command or subcommand, a command without keys, a wrong number of arguments, then
// arguments in which no key is found (an empty array for the script commands, whose keys are
// optional).
func commandGetKeys(c *Ctx, withFlags bool) {
	args := c.Args[2:]
	cmd := Lookup(args[0])
	if cmd == nil {
		c.W.Error("ERR Invalid command specified")
		return
	}
	name, arity := cmd.Name, cmd.Arity
	if len(cmd.Sub) > 0 && len(args) > 1 {
		sub := strings.ToLower(string(args[1]))
		if !slices.Contains(cmd.Sub, sub) {
			c.W.Error("ERR Invalid command specified")
			return
		}
		name = cmd.Name + "|" + sub
		if arity = cmddoc.Redis[name].Arity; arity == 0 {
			arity = -2
		}
	}
	hasKeys, _ := hasKeySpec(cmddoc.KeySpecs[name])
	if _, redis := cmddoc.Redis[name]; !redis {
		hasKeys = cmd.FirstKey > 0 || cmd.Keys != nil
	}
	switch {
	case !hasKeys && !cmddoc.KeysProc[name]:
		c.W.Error("ERR The command has no key arguments")
		return
	case arity > 0 && arity != len(args) || len(args) < -arity:
		c.W.Error("ERR Invalid number of arguments specified for command")
		return
	}
	refs := commandKeyRefs(name, cmd, args, arity)
	if len(refs) == 0 {
		if getKeysNumKeys[name].optional {
			c.W.Array(0)
		} else {
			c.W.Error("ERR Invalid arguments specified for command")
		}
		return
	}
	c.W.Array(len(refs))
	for _, r := range refs {
		if withFlags {
			c.W.Array(2)
			c.W.Bulk(r.key)
			writeStatusSet(c.W, r.flags)
		} else {
			c.W.Bulk(r.key)
		}
	}
}

// numKeysSpec locates the keys of a command that counts them: a destination key at dest (0 for
// none) and numkeys at num, followed by that many keys. optional is set for the script commands,
// which may name no key.
type numKeysSpec struct {
	dest, num int
	optional  bool
}

// getKeysNumKeys lists the commands whose key positions follow a numkeys argument, for the
// procedure COMMAND GETKEYS falls back on. (The command table's Keys functions serve locking,
// where a bad numkeys locks what is there; scripts lock the keyspace themselves.)
var getKeysNumKeys = map[string]numKeysSpec{
	"eval": {0, 2, true}, "evalsha": {0, 2, true}, "eval_ro": {0, 2, true}, "evalsha_ro": {0, 2, true},
	"fcall": {0, 2, true}, "fcall_ro": {0, 2, true},
	"zunion": {0, 1, false}, "zinter": {0, 1, false}, "zdiff": {0, 1, false}, "zintercard": {0, 1, false},
	"sintercard": {0, 1, false}, "lmpop": {0, 1, false}, "zmpop": {0, 1, false},
	"blmpop": {0, 2, false}, "bzmpop": {0, 2, false},
	"zunionstore": {1, 2, false}, "zinterstore": {1, 2, false}, "zdiffstore": {1, 2, false},
}

// numKeysFallback returns the keys of args for spec as Redis 7.0's own procedure finds them
// when the key specifications (which read numkeys strictly) fail: numkeys read as C's atoi
// reads it (leading blanks, a sign, digits up to the first other byte), the destination last.
func numKeysFallback(spec numKeysSpec, args [][]byte) [][]byte {
	n := num.CAtoi(args[spec.num])
	first := spec.num + 1
	if n < 1 || int(n) > len(args)-first {
		return nil
	}
	keys := slices.Clone(args[first : first+int(n)])
	if spec.dest > 0 {
		keys = append(keys, args[spec.dest])
	}
	return keys
}
