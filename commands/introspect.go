package commands

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/strata-db/strata/internal/glob"
)

func init() {
	register(&Command{Name: "command", Arity: -1, Flags: FlagLoading | FlagStale, Handler: cmdCommand,
		Sub: []string{"count", "docs", "getkeys", "help", "info", "list"}})
}

// cmdMeta is what Strata's command table lacks and COMMAND / COMMAND DOCS report: the
// documentation and ACL categories of every Redis 7.0 command, and the arity and flags of
// subcommands (top-level arity and flags come from the command table itself).
type cmdMeta struct {
	group, since, complexity, summary string
	acl                               string // space-separated categories without '@'
	tips                              string // space-separated
	arity                             int    // subcommands only
	flags                             string // subcommands only, space-separated
	first, last, step                 int    // subcommands only: key positions
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
	arity := map[string]int{"count": 2, "docs": -2, "getkeys": -4, "help": 2, "info": -2, "list": -2}
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
		commandGetKeys(c)
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
	"HELP",
	"    Prints this help.",
}

// commandFlagNames returns COMMAND's flags of cmd: the table's flags plus the ones Redis
// derives (movablekeys for commands whose key positions move, no_multi).
func commandFlagNames(cmd *Command) []string {
	names := cmd.Flags.Names()
	if cmd.Flags&FlagNoMulti != 0 {
		names = append(names, "no_multi")
	}
	if cmd.Keys != nil {
		names = append(names, "movablekeys")
	}
	return names
}

// commandACL returns the ACL categories of a command or subcommand ("@read", ...): Redis's
// own for Redis commands, derived from the flags for Strata's own commands.
func commandACL(name string, flags Flag) []string {
	if m, ok := redisCmdMeta[name]; ok {
		var out []string
		for _, a := range strings.Fields(m.acl) {
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
// last key, step, ACL categories, tips, key specs (not described: empty) and subcommands.
func writeCommandInfo(w *Writer, cmd *Command) {
	w.Array(10)
	w.BulkString(cmd.Name)
	w.Int(int64(cmd.Arity))
	flags := commandFlagNames(cmd)
	first, last, step := cmd.FirstKey, cmd.LastKey, cmd.Step
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
	w.Set(0) // key specs
	w.Set(len(cmd.Sub))
	for _, s := range cmd.Sub {
		full := cmd.Name + "|" + s
		m := redisCmdMeta[full]
		arity, fl := m.arity, strings.Fields(m.flags)
		if arity == 0 {
			arity, fl = -2, commandFlagNames(cmd)
			m.first, m.last, m.step = cmd.FirstKey, cmd.LastKey, cmd.Step
		}
		w.Array(10)
		w.BulkString(full)
		w.Int(int64(arity))
		w.Set(len(fl))
		for _, f := range fl {
			w.Status(f)
		}
		w.Int(int64(m.first))
		w.Int(int64(m.last))
		w.Int(int64(m.step))
		writeACLAndTips(w, full, cmd.Flags)
		w.Set(0)
		w.Set(0)
	}
}

func writeACLAndTips(w *Writer, name string, flags Flag) {
	acl := commandACL(name, flags)
	w.Set(len(acl))
	for _, a := range acl {
		w.Status(a)
	}
	tips := strings.Fields(redisCmdMeta[name].tips)
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

// writeCommandDoc writes the COMMAND DOCS map of one command or subcommand.
func writeCommandDoc(w *Writer, name string, subs []string, parent string) {
	m, known := redisCmdMeta[name]
	if !known {
		m = cmdMeta{summary: "Strata command (not part of Redis)", group: "server"}
		if parent != "" {
			m.group = redisCmdMeta[parent].group
		}
	}
	n := 3
	if m.complexity != "" {
		n++
	}
	if len(subs) > 0 {
		n++
	}
	w.Map(n)
	w.BulkString("summary")
	w.BulkString(m.summary)
	w.BulkString("since")
	w.BulkString(m.since)
	w.BulkString("group")
	w.BulkString(m.group)
	if m.complexity != "" {
		w.BulkString("complexity")
		w.BulkString(m.complexity)
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

// commandGetKeys is COMMAND GETKEYS: the keys of a full command, found as Redis 7.0 finds them
// (getKeysSubcommandImpl), with its errors in its order: an unknown command or subcommand, a
// command without keys, a wrong number of arguments, then arguments in which no key is found
// (an empty array for the script commands, whose keys are optional).
func commandGetKeys(c *Ctx) {
	args := c.Args[2:]
	cmd := Lookup(args[0])
	if cmd == nil {
		c.W.Error("ERR Invalid command specified")
		return
	}
	name, arity, hasKeys := cmd.Name, cmd.Arity, cmd.FirstKey > 0 || cmd.Keys != nil
	if len(cmd.Sub) > 0 && len(args) > 1 {
		sub := strings.ToLower(string(args[1]))
		if !slices.Contains(cmd.Sub, sub) {
			c.W.Error("ERR Invalid command specified")
			return
		}
		name = cmd.Name + "|" + sub
		m := redisCmdMeta[name]
		arity, hasKeys = m.arity, m.first > 0
		if arity == 0 {
			arity = -2
		}
	}
	spec, numKeysForm := getKeysNumKeys[name]
	if numKeysForm || name == "watch" {
		hasKeys = true
	}
	switch {
	case !hasKeys:
		c.W.Error("ERR The command has no key arguments")
		return
	case arity > 0 && arity != len(args) || len(args) < -arity:
		c.W.Error("ERR Invalid number of arguments specified for command")
		return
	}
	var keys [][]byte
	switch {
	case numKeysForm:
		keys = numKeysOf(spec, args)
	case name == "watch":
		keys = args[1:]
	case name != cmd.Name:
		m := redisCmdMeta[name]
		keys = (&Command{FirstKey: m.first, LastKey: m.last, Step: m.step}).KeysOf(args)
	default:
		keys = cmd.KeysOf(args)
	}
	if len(keys) == 0 {
		if spec.optional {
			c.W.Array(0)
		} else {
			c.W.Error("ERR Invalid arguments specified for command")
		}
		return
	}
	c.W.Array(len(keys))
	for _, k := range keys {
		c.W.Bulk(k)
	}
}

// numKeysSpec locates the keys of a command that counts them: a destination key at dest (0 for
// none) and numkeys at num, followed by that many keys. optional is set for the script commands,
// which may name no key.
type numKeysSpec struct {
	dest, num int
	optional  bool
}

// getKeysNumKeys lists the commands whose key positions follow a numkeys argument, as COMMAND
// GETKEYS finds their keys. (The command table's Keys functions serve locking, where a bad
// numkeys locks what is there; scripts lock the keyspace themselves.)
var getKeysNumKeys = map[string]numKeysSpec{
	"eval": {0, 2, true}, "evalsha": {0, 2, true}, "eval_ro": {0, 2, true}, "evalsha_ro": {0, 2, true},
	"fcall": {0, 2, true}, "fcall_ro": {0, 2, true},
	"zunion": {0, 1, false}, "zinter": {0, 1, false}, "zdiff": {0, 1, false}, "zintercard": {0, 1, false},
	"sintercard": {0, 1, false}, "lmpop": {0, 1, false}, "zmpop": {0, 1, false},
	"blmpop": {0, 2, false}, "bzmpop": {0, 2, false},
	"zunionstore": {1, 2, false}, "zinterstore": {1, 2, false}, "zdiffstore": {1, 2, false},
}

// numKeysOf returns the keys of args for spec as Redis 7.0 does. Its key specs read numkeys as a
// strict integer and take the low 32 bits of it, in 32-bit arithmetic, and put the destination
// first; when they find no keys in range, its fallback reads numkeys as C's atoi does (leading
// blanks, a sign, digits up to the first other byte) and puts the destination last.
func numKeysOf(spec numKeysSpec, args [][]byte) [][]byte {
	if n, err := ParseInt(args[spec.num]); err == nil && n >= 0 {
		first := int32(spec.num + 1)
		last := first + int32(n) - 1 // wraps as in Redis
		if int(last) < len(args) && last >= first && int(first) < len(args) {
			var keys [][]byte
			if spec.dest > 0 {
				keys = append(keys, args[spec.dest])
			}
			return append(keys, args[first:last+1]...)
		}
	}
	n := cAtoi(args[spec.num])
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

// cAtoi is C's atoi on glibc: strtol's reading (blanks, a sign, decimal digits; saturated at the
// 64-bit limits) narrowed to a 32-bit int.
func cAtoi(b []byte) int32 {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var u uint64
	over := false
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if u > (1<<63)/10 {
			over = true
			continue
		}
		u = u*10 + uint64(b[i]-'0')
	}
	var v int64
	switch {
	case neg && (over || u >= 1<<63):
		v = math.MinInt64
	case neg:
		v = -int64(u)
	case over || u >= 1<<63:
		v = math.MaxInt64
	default:
		v = int64(u)
	}
	return int32(v)
}

// redisCmdMeta is generated from Redis 7.0.15's COMMAND DOCS and COMMAND INFO (plus the
// Redis 7.2 CLIENT subcommands Strata also implements): group, since, complexity, summary,
// ACL categories, tips, and for subcommands arity and flags.
var redisCmdMeta = map[string]cmdMeta{
	"acl":                           {"server", "6.0.0", "Depends on subcommand.", "A container for Access List Control commands ", "slow", "", 0, "", 0, 0, 0},
	"acl|cat":                       {"server", "6.0.0", "O(1) since the categories and commands are a fixed set.", "List the ACL categories or the commands inside a category", "slow", "", -2, "noscript loading stale", 0, 0, 0},
	"acl|deluser":                   {"server", "6.0.0", "O(1) amortized time considering the typical user.", "Remove the specified ACL users and the associated rules", "admin slow dangerous", "", -3, "admin noscript loading stale", 0, 0, 0},
	"acl|dryrun":                    {"server", "7.0.0", "O(1).", "Returns whether the user can execute the given command without executing the command.", "admin slow dangerous", "", -4, "admin noscript loading stale", 0, 0, 0},
	"acl|genpass":                   {"server", "6.0.0", "O(1)", "Generate a pseudorandom secure password to use for ACL users", "slow", "", -2, "noscript loading stale", 0, 0, 0},
	"acl|getuser":                   {"server", "6.0.0", "O(N). Where N is the number of password, command and pattern rules that the user has.", "Get the rules for a specific ACL user", "admin slow dangerous", "", 3, "admin noscript loading stale", 0, 0, 0},
	"acl|help":                      {"server", "6.0.0", "O(1)", "Show helpful text about the different subcommands", "slow", "", 2, "loading stale", 0, 0, 0},
	"acl|list":                      {"server", "6.0.0", "O(N). Where N is the number of configured users.", "List the current ACL rules in ACL config file format", "admin slow dangerous", "", 2, "admin noscript loading stale", 0, 0, 0},
	"acl|load":                      {"server", "6.0.0", "O(N). Where N is the number of configured users.", "Reload the ACLs from the configured ACL file", "admin slow dangerous", "", 2, "admin noscript loading stale", 0, 0, 0},
	"acl|log":                       {"server", "6.0.0", "O(N) with N being the number of entries shown.", "List latest events denied because of ACLs in place", "admin slow dangerous", "", -2, "admin noscript loading stale", 0, 0, 0},
	"acl|save":                      {"server", "6.0.0", "O(N). Where N is the number of configured users.", "Save the current ACL rules in the configured ACL file", "admin slow dangerous", "", 2, "admin noscript loading stale", 0, 0, 0},
	"acl|setuser":                   {"server", "6.0.0", "O(N). Where N is the number of rules provided.", "Modify or create the rules for a specific ACL user", "admin slow dangerous", "", -3, "admin noscript loading stale", 0, 0, 0},
	"acl|users":                     {"server", "6.0.0", "O(N). Where N is the number of configured users.", "List the username of all the configured ACL rules", "admin slow dangerous", "", 2, "admin noscript loading stale", 0, 0, 0},
	"acl|whoami":                    {"server", "6.0.0", "O(1)", "Return the name of the user associated to the current connection", "slow", "", 2, "noscript loading stale", 0, 0, 0},
	"append":                        {"string", "2.0.0", "O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation.", "Append a value to a key", "write string fast", "", 0, "", 0, 0, 0},
	"asking":                        {"cluster", "3.0.0", "O(1)", "Sent by cluster clients after an -ASK redirect", "fast connection", "", 0, "", 0, 0, 0},
	"auth":                          {"connection", "1.0.0", "O(N) where N is the number of passwords defined for the user", "Authenticate to the server", "fast connection", "", 0, "", 0, 0, 0},
	"bgrewriteaof":                  {"server", "1.0.0", "O(1)", "Asynchronously rewrite the append-only file", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"bgsave":                        {"server", "1.0.0", "O(1)", "Asynchronously save the dataset to disk", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"bitcount":                      {"bitmap", "2.6.0", "O(N)", "Count set bits in a string", "read bitmap slow", "", 0, "", 0, 0, 0},
	"bitfield":                      {"bitmap", "3.2.0", "O(1) for each subcommand specified", "Perform arbitrary bitfield integer operations on strings", "write bitmap slow", "", 0, "", 0, 0, 0},
	"bitfield_ro":                   {"bitmap", "6.0.0", "O(1) for each subcommand specified", "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD", "read bitmap fast", "", 0, "", 0, 0, 0},
	"bitop":                         {"bitmap", "2.6.0", "O(N)", "Perform bitwise operations between strings", "write bitmap slow", "", 0, "", 0, 0, 0},
	"bitpos":                        {"bitmap", "2.8.7", "O(N)", "Find first bit set or clear in a string", "read bitmap slow", "", 0, "", 0, 0, 0},
	"blmove":                        {"list", "6.2.0", "O(1)", "Pop an element from a list, push it to another list and return it; or block until one is available", "write list slow blocking", "", 0, "", 0, 0, 0},
	"blmpop":                        {"list", "7.0.0", "O(N+M) where N is the number of provided keys and M is the number of elements returned.", "Pop elements from a list, or block until one is available", "write list slow blocking", "", 0, "", 0, 0, 0},
	"blpop":                         {"list", "2.0.0", "O(N) where N is the number of provided keys.", "Remove and get the first element in a list, or block until one is available", "write list slow blocking", "", 0, "", 0, 0, 0},
	"brpop":                         {"list", "2.0.0", "O(N) where N is the number of provided keys.", "Remove and get the last element in a list, or block until one is available", "write list slow blocking", "", 0, "", 0, 0, 0},
	"brpoplpush":                    {"list", "2.2.0", "O(1)", "Pop an element from a list, push it to another list and return it; or block until one is available", "write list slow blocking", "", 0, "", 0, 0, 0},
	"bzmpop":                        {"sorted-set", "7.0.0", "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.", "Remove and return members with scores in a sorted set or block until one is available", "write sortedset slow blocking", "", 0, "", 0, 0, 0},
	"bzpopmax":                      {"sorted-set", "5.0.0", "O(log(N)) with N being the number of elements in the sorted set.", "Remove and return the member with the highest score from one or more sorted sets, or block until one is available", "write sortedset fast blocking", "", 0, "", 0, 0, 0},
	"bzpopmin":                      {"sorted-set", "5.0.0", "O(log(N)) with N being the number of elements in the sorted set.", "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available", "write sortedset fast blocking", "", 0, "", 0, 0, 0},
	"client":                        {"connection", "2.4.0", "Depends on subcommand.", "A container for client connection commands", "slow", "", 0, "", 0, 0, 0},
	"client|caching":                {"connection", "6.0.0", "O(1)", "Instruct the server about tracking or not keys in the next request", "slow connection", "", 3, "noscript loading stale", 0, 0, 0},
	"client|getname":                {"connection", "2.6.9", "O(1)", "Get the current connection name", "slow connection", "", 2, "noscript loading stale", 0, 0, 0},
	"client|getredir":               {"connection", "6.0.0", "O(1)", "Get tracking notifications redirection client ID if any", "slow connection", "", 2, "noscript loading stale", 0, 0, 0},
	"client|help":                   {"connection", "5.0.0", "O(1)", "Show helpful text about the different subcommands", "slow connection", "", 2, "loading stale", 0, 0, 0},
	"client|id":                     {"connection", "5.0.0", "O(1)", "Returns the client ID for the current connection", "slow connection", "", 2, "noscript loading stale", 0, 0, 0},
	"client|info":                   {"connection", "6.2.0", "O(1)", "Returns information about the current client connection.", "slow connection", "nondeterministic_output", 2, "noscript loading stale", 0, 0, 0},
	"client|kill":                   {"connection", "2.4.0", "O(N) where N is the number of client connections", "Kill the connection of a client", "admin slow dangerous connection", "", -3, "admin noscript loading stale", 0, 0, 0},
	"client|list":                   {"connection", "2.4.0", "O(N) where N is the number of client connections", "Get the list of client connections", "admin slow dangerous connection", "nondeterministic_output", -2, "admin noscript loading stale", 0, 0, 0},
	"client|no-evict":               {"connection", "7.0.0", "O(1)", "Set client eviction mode for the current connection", "admin slow dangerous connection", "", 3, "admin noscript loading stale", 0, 0, 0},
	"client|pause":                  {"connection", "2.9.50", "O(1)", "Stop processing commands from clients for some time", "admin slow dangerous connection", "", -3, "admin noscript loading stale", 0, 0, 0},
	"client|reply":                  {"connection", "3.2.0", "O(1)", "Instruct the server whether to reply to commands", "slow connection", "", 3, "noscript loading stale", 0, 0, 0},
	"client|setname":                {"connection", "2.6.9", "O(1)", "Set the current connection name", "slow connection", "", 3, "noscript loading stale", 0, 0, 0},
	"client|tracking":               {"connection", "6.0.0", "O(1). Some options may introduce additional complexity.", "Enable or disable server assisted client side caching support", "slow connection", "", -3, "noscript loading stale", 0, 0, 0},
	"client|trackinginfo":           {"connection", "6.2.0", "O(1)", "Return information about server assisted client side caching for the current connection", "slow connection", "", 2, "noscript loading stale", 0, 0, 0},
	"client|unblock":                {"connection", "5.0.0", "O(log N) where N is the number of client connections", "Unblock a client blocked in a blocking command from a different connection", "admin slow dangerous connection", "", -3, "admin noscript loading stale", 0, 0, 0},
	"client|unpause":                {"connection", "6.2.0", "O(N) Where N is the number of paused clients", "Resume processing of clients that were paused", "admin slow dangerous connection", "", 2, "admin noscript loading stale", 0, 0, 0},
	"cluster":                       {"cluster", "3.0.0", "Depends on subcommand.", "A container for cluster commands", "slow", "", 0, "", 0, 0, 0},
	"cluster|addslots":              {"cluster", "3.0.0", "O(N) where N is the total number of hash slot arguments", "Assign new hash slots to receiving node", "admin slow dangerous", "", -3, "admin stale no_async_loading", 0, 0, 0},
	"cluster|addslotsrange":         {"cluster", "7.0.0", "O(N) where N is the total number of the slots between the start slot and end slot arguments.", "Assign new hash slots to receiving node", "admin slow dangerous", "", -4, "admin stale no_async_loading", 0, 0, 0},
	"cluster|bumpepoch":             {"cluster", "3.0.0", "O(1)", "Advance the cluster config epoch", "admin slow dangerous", "nondeterministic_output", 2, "admin stale no_async_loading", 0, 0, 0},
	"cluster|count-failure-reports": {"cluster", "3.0.0", "O(N) where N is the number of failure reports", "Return the number of failure reports active for a given node", "admin slow dangerous", "nondeterministic_output", 3, "admin stale", 0, 0, 0},
	"cluster|countkeysinslot":       {"cluster", "3.0.0", "O(1)", "Return the number of local keys in the specified hash slot", "slow", "", 3, "stale", 0, 0, 0},
	"cluster|delslots":              {"cluster", "3.0.0", "O(N) where N is the total number of hash slot arguments", "Set hash slots as unbound in receiving node", "admin slow dangerous", "", -3, "admin stale no_async_loading", 0, 0, 0},
	"cluster|delslotsrange":         {"cluster", "7.0.0", "O(N) where N is the total number of the slots between the start slot and end slot arguments.", "Set hash slots as unbound in receiving node", "admin slow dangerous", "", -4, "admin stale no_async_loading", 0, 0, 0},
	"cluster|failover":              {"cluster", "3.0.0", "O(1)", "Forces a replica to perform a manual failover of its master.", "admin slow dangerous", "", -2, "admin stale no_async_loading", 0, 0, 0},
	"cluster|flushslots":            {"cluster", "3.0.0", "O(1)", "Delete a node's own slots information", "admin slow dangerous", "", 2, "admin stale no_async_loading", 0, 0, 0},
	"cluster|forget":                {"cluster", "3.0.0", "O(1)", "Remove a node from the nodes table", "admin slow dangerous", "", 3, "admin stale no_async_loading", 0, 0, 0},
	"cluster|getkeysinslot":         {"cluster", "3.0.0", "O(log(N)) where N is the number of requested keys", "Return local key names in the specified hash slot", "slow", "nondeterministic_output", 4, "stale", 0, 0, 0},
	"cluster|help":                  {"cluster", "5.0.0", "O(1)", "Show helpful text about the different subcommands", "slow", "", 2, "loading stale", 0, 0, 0},
	"cluster|info":                  {"cluster", "3.0.0", "O(1)", "Provides info about Redis Cluster node state", "slow", "nondeterministic_output", 2, "stale", 0, 0, 0},
	"cluster|keyslot":               {"cluster", "3.0.0", "O(N) where N is the number of bytes in the key", "Returns the hash slot of the specified key", "slow", "", 3, "stale", 0, 0, 0},
	"cluster|links":                 {"cluster", "7.0.0", "O(N) where N is the total number of Cluster nodes", "Returns a list of all TCP links to and from peer nodes in cluster", "slow", "nondeterministic_output", 2, "stale", 0, 0, 0},
	"cluster|meet":                  {"cluster", "3.0.0", "O(1)", "Force a node cluster to handshake with another node", "admin slow dangerous", "", -4, "admin stale no_async_loading", 0, 0, 0},
	"cluster|myid":                  {"cluster", "3.0.0", "O(1)", "Return the node id", "slow", "", 2, "stale", 0, 0, 0},
	"cluster|nodes":                 {"cluster", "3.0.0", "O(N) where N is the total number of Cluster nodes", "Get Cluster config for the node", "slow", "nondeterministic_output", 2, "stale", 0, 0, 0},
	"cluster|replicas":              {"cluster", "5.0.0", "O(1)", "List replica nodes of the specified master node", "admin slow dangerous", "nondeterministic_output", 3, "admin stale", 0, 0, 0},
	"cluster|replicate":             {"cluster", "3.0.0", "O(1)", "Reconfigure a node as a replica of the specified master node", "admin slow dangerous", "", 3, "admin stale no_async_loading", 0, 0, 0},
	"cluster|reset":                 {"cluster", "3.0.0", "O(N) where N is the number of known nodes. The command may execute a FLUSHALL as a side effect.", "Reset a Redis Cluster node", "admin slow dangerous", "", -2, "admin noscript stale", 0, 0, 0},
	"cluster|saveconfig":            {"cluster", "3.0.0", "O(1)", "Forces the node to save cluster state on disk", "admin slow dangerous", "", 2, "admin stale no_async_loading", 0, 0, 0},
	"cluster|set-config-epoch":      {"cluster", "3.0.0", "O(1)", "Set the configuration epoch in a new node", "admin slow dangerous", "", 3, "admin stale no_async_loading", 0, 0, 0},
	"cluster|setslot":               {"cluster", "3.0.0", "O(1)", "Bind a hash slot to a specific node", "admin slow dangerous", "", -4, "admin stale no_async_loading", 0, 0, 0},
	"cluster|shards":                {"cluster", "7.0.0", "O(N) where N is the total number of cluster nodes", "Get array of cluster slots to node mappings", "slow", "nondeterministic_output", 2, "stale", 0, 0, 0},
	"cluster|slaves":                {"cluster", "3.0.0", "O(1)", "List replica nodes of the specified master node", "admin slow dangerous", "nondeterministic_output", 3, "admin stale", 0, 0, 0},
	"cluster|slots":                 {"cluster", "3.0.0", "O(N) where N is the total number of Cluster nodes", "Get array of Cluster slot to node mappings", "slow", "nondeterministic_output", 2, "stale", 0, 0, 0},
	"command":                       {"server", "2.8.13", "O(N) where N is the total number of Redis commands", "Get array of Redis command details", "slow connection", "nondeterministic_output_order", 0, "", 0, 0, 0},
	"command|count":                 {"server", "2.8.13", "O(1)", "Get total number of Redis commands", "slow connection", "", 2, "loading stale", 0, 0, 0},
	"command|docs":                  {"server", "7.0.0", "O(N) where N is the number of commands to look up", "Get array of specific Redis command documentation", "slow connection", "nondeterministic_output_order", -2, "loading stale", 0, 0, 0},
	"command|getkeys":               {"server", "2.8.13", "O(N) where N is the number of arguments to the command", "Extract keys given a full Redis command", "slow connection", "", -4, "loading stale", 0, 0, 0},
	"command|getkeysandflags":       {"server", "7.0.0", "O(N) where N is the number of arguments to the command", "Extract keys and access flags given a full Redis command", "slow connection", "", -4, "loading stale", 0, 0, 0},
	"command|help":                  {"server", "5.0.0", "O(1)", "Show helpful text about the different subcommands", "slow connection", "", 2, "loading stale", 0, 0, 0},
	"command|info":                  {"server", "2.8.13", "O(N) where N is the number of commands to look up", "Get array of specific Redis command details, or all when no argument is given.", "slow connection", "nondeterministic_output_order", -2, "loading stale", 0, 0, 0},
	"command|list":                  {"server", "7.0.0", "O(N) where N is the total number of Redis commands", "Get an array of Redis command names", "slow connection", "nondeterministic_output_order", -2, "loading stale", 0, 0, 0},
	"config":                        {"server", "2.0.0", "Depends on subcommand.", "A container for server configuration commands", "slow", "", 0, "", 0, 0, 0},
	"config|get":                    {"server", "2.0.0", "O(N) when N is the number of configuration parameters provided", "Get the values of configuration parameters", "admin slow dangerous", "", -3, "admin noscript loading stale", 0, 0, 0},
	"config|help":                   {"server", "5.0.0", "O(1)", "Show helpful text about the different subcommands", "slow", "", 2, "loading stale", 0, 0, 0},
	"config|resetstat":              {"server", "2.0.0", "O(1)", "Reset the stats returned by INFO", "admin slow dangerous", "", 2, "admin noscript loading stale", 0, 0, 0},
	"config|rewrite":                {"server", "2.8.0", "O(1)", "Rewrite the configuration file with the in memory configuration", "admin slow dangerous", "", 2, "admin noscript loading stale", 0, 0, 0},
	"config|set":                    {"server", "2.0.0", "O(N) when N is the number of configuration parameters provided", "Set configuration parameters to the given values", "admin slow dangerous", "request_policy:all_nodes response_policy:all_succeeded", -4, "admin noscript loading stale", 0, 0, 0},
	"copy":                          {"generic", "6.2.0", "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.", "Copy a key", "keyspace write slow", "", 0, "", 0, 0, 0},
	"dbsize":                        {"server", "1.0.0", "O(1)", "Return the number of keys in the selected database", "keyspace read fast", "request_policy:all_shards response_policy:agg_sum", 0, "", 0, 0, 0},
	"debug":                         {"server", "1.0.0", "Depends on subcommand.", "A container for debugging commands", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"decr":                          {"string", "1.0.0", "O(1)", "Decrement the integer value of a key by one", "write string fast", "", 0, "", 0, 0, 0},
	"decrby":                        {"string", "1.0.0", "O(1)", "Decrement the integer value of a key by the given number", "write string fast", "", 0, "", 0, 0, 0},
	"del":                           {"generic", "1.0.0", "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).", "Delete a key", "keyspace write slow", "request_policy:multi_shard response_policy:agg_sum", 0, "", 0, 0, 0},
	"discard":                       {"transactions", "2.0.0", "O(N), when N is the number of queued commands", "Discard all commands issued after MULTI", "fast transaction", "", 0, "", 0, 0, 0},
	"dump":                          {"generic", "2.6.0", "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).", "Return a serialized version of the value stored at the specified key.", "keyspace read slow", "nondeterministic_output", 0, "", 0, 0, 0},
	"echo":                          {"connection", "1.0.0", "O(1)", "Echo the given string", "fast connection", "", 0, "", 0, 0, 0},
	"eval":                          {"scripting", "2.6.0", "Depends on the script that is executed.", "Execute a Lua script server side", "slow scripting", "", 0, "", 0, 0, 0},
	"eval_ro":                       {"scripting", "7.0.0", "Depends on the script that is executed.", "Execute a read-only Lua script server side", "slow scripting", "", 0, "", 0, 0, 0},
	"evalsha":                       {"scripting", "2.6.0", "Depends on the script that is executed.", "Execute a Lua script server side", "slow scripting", "", 0, "", 0, 0, 0},
	"evalsha_ro":                    {"scripting", "7.0.0", "Depends on the script that is executed.", "Execute a read-only Lua script server side", "slow scripting", "", 0, "", 0, 0, 0},
	"exec":                          {"transactions", "1.2.0", "Depends on commands in the transaction", "Execute all commands issued after MULTI", "slow transaction", "", 0, "", 0, 0, 0},
	"exists":                        {"generic", "1.0.0", "O(N) where N is the number of keys to check.", "Determine if a key exists", "keyspace read fast", "request_policy:multi_shard response_policy:agg_sum", 0, "", 0, 0, 0},
	"expire":                        {"generic", "1.0.0", "O(1)", "Set a key's time to live in seconds", "keyspace write fast", "", 0, "", 0, 0, 0},
	"expireat":                      {"generic", "1.2.0", "O(1)", "Set the expiration for a key as a UNIX timestamp", "keyspace write fast", "", 0, "", 0, 0, 0},
	"expiretime":                    {"generic", "7.0.0", "O(1)", "Get the expiration Unix timestamp for a key", "keyspace read fast", "", 0, "", 0, 0, 0},
	"failover":                      {"server", "6.2.0", "O(1)", "Start a coordinated failover between this server and one of its replicas.", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"fcall":                         {"scripting", "7.0.0", "Depends on the function that is executed.", "Invoke a function", "slow scripting", "", 0, "", 0, 0, 0},
	"fcall_ro":                      {"scripting", "7.0.0", "Depends on the function that is executed.", "Invoke a read-only function", "slow scripting", "", 0, "", 0, 0, 0},
	"flushall":                      {"server", "1.0.0", "O(N) where N is the total number of keys in all databases", "Remove all keys from all databases", "keyspace write slow dangerous", "request_policy:all_shards response_policy:all_succeeded", 0, "", 0, 0, 0},
	"flushdb":                       {"server", "1.0.0", "O(N) where N is the number of keys in the selected database", "Remove all keys from the current database", "keyspace write slow dangerous", "request_policy:all_shards response_policy:all_succeeded", 0, "", 0, 0, 0},
	"function":                      {"scripting", "7.0.0", "Depends on subcommand.", "A container for function commands", "slow", "", 0, "", 0, 0, 0},
	"function|delete":               {"scripting", "7.0.0", "O(1)", "Delete a function by name", "write slow scripting", "request_policy:all_shards response_policy:all_succeeded", 3, "write noscript", 0, 0, 0},
	"function|dump":                 {"scripting", "7.0.0", "O(N) where N is the number of functions", "Dump all functions into a serialized binary payload", "slow scripting", "", 2, "noscript", 0, 0, 0},
	"function|flush":                {"scripting", "7.0.0", "O(N) where N is the number of functions deleted", "Deleting all functions", "write slow scripting", "request_policy:all_shards response_policy:all_succeeded", -2, "write noscript", 0, 0, 0},
	"function|help":                 {"scripting", "7.0.0", "O(1)", "Show helpful text about the different subcommands", "slow scripting", "", 2, "loading stale", 0, 0, 0},
	"function|kill":                 {"scripting", "7.0.0", "O(1)", "Kill the function currently in execution.", "slow scripting", "request_policy:all_shards response_policy:one_succeeded", 2, "noscript allow_busy", 0, 0, 0},
	"function|list":                 {"scripting", "7.0.0", "O(N) where N is the number of functions", "List information about all the functions", "slow scripting", "nondeterministic_output_order", -2, "noscript", 0, 0, 0},
	"function|load":                 {"scripting", "7.0.0", "O(1) (considering compilation time is redundant)", "Create a function with the given arguments (name, code, description)", "write slow scripting", "request_policy:all_shards response_policy:all_succeeded", -3, "write denyoom noscript", 0, 0, 0},
	"function|restore":              {"scripting", "7.0.0", "O(N) where N is the number of functions on the payload", "Restore all the functions on the given payload", "write slow scripting", "request_policy:all_shards response_policy:all_succeeded", -3, "write denyoom noscript", 0, 0, 0},
	"function|stats":                {"scripting", "7.0.0", "O(1)", "Return information about the function currently running (name, description, duration)", "slow scripting", "nondeterministic_output request_policy:all_shards response_policy:special", 2, "noscript allow_busy", 0, 0, 0},
	"geoadd":                        {"geo", "3.2.0", "O(log(N)) for each item added, where N is the number of elements in the sorted set.", "Add one or more geospatial items in the geospatial index represented using a sorted set", "write geo slow", "", 0, "", 0, 0, 0},
	"geodist":                       {"geo", "3.2.0", "O(log(N))", "Returns the distance between two members of a geospatial index", "read geo slow", "", 0, "", 0, 0, 0},
	"geohash":                       {"geo", "3.2.0", "O(log(N)) for each member requested, where N is the number of elements in the sorted set.", "Returns members of a geospatial index as standard geohash strings", "read geo slow", "", 0, "", 0, 0, 0},
	"geopos":                        {"geo", "3.2.0", "O(N) where N is the number of members requested.", "Returns longitude and latitude of members of a geospatial index", "read geo slow", "", 0, "", 0, 0, 0},
	"georadius":                     {"geo", "3.2.0", "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.", "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point", "write geo slow", "", 0, "", 0, 0, 0},
	"georadius_ro":                  {"geo", "3.2.10", "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.", "A read-only variant for GEORADIUS", "read geo slow", "", 0, "", 0, 0, 0},
	"georadiusbymember":             {"geo", "3.2.0", "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.", "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member", "write geo slow", "", 0, "", 0, 0, 0},
	"georadiusbymember_ro":          {"geo", "3.2.10", "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.", "A read-only variant for GEORADIUSBYMEMBER", "read geo slow", "", 0, "", 0, 0, 0},
	"geosearch":                     {"geo", "6.2.0", "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape", "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.", "read geo slow", "", 0, "", 0, 0, 0},
	"geosearchstore":                {"geo", "6.2.0", "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape", "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.", "write geo slow", "", 0, "", 0, 0, 0},
	"get":                           {"string", "1.0.0", "O(1)", "Get the value of a key", "read string fast", "", 0, "", 0, 0, 0},
	"getbit":                        {"bitmap", "2.2.0", "O(1)", "Returns the bit value at offset in the string value stored at key", "read bitmap fast", "", 0, "", 0, 0, 0},
	"getdel":                        {"string", "6.2.0", "O(1)", "Get the value of a key and delete the key", "write string fast", "", 0, "", 0, 0, 0},
	"getex":                         {"string", "6.2.0", "O(1)", "Get the value of a key and optionally set its expiration", "write string fast", "", 0, "", 0, 0, 0},
	"getrange":                      {"string", "2.4.0", "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.", "Get a substring of the string stored at a key", "read string slow", "", 0, "", 0, 0, 0},
	"getset":                        {"string", "1.0.0", "O(1)", "Set the string value of a key and return its old value", "write string fast", "", 0, "", 0, 0, 0},
	"hdel":                          {"hash", "2.0.0", "O(N) where N is the number of fields to be removed.", "Delete one or more hash fields", "write hash fast", "", 0, "", 0, 0, 0},
	"hello":                         {"connection", "6.0.0", "O(1)", "Handshake with Redis", "fast connection", "", 0, "", 0, 0, 0},
	"hexists":                       {"hash", "2.0.0", "O(1)", "Determine if a hash field exists", "read hash fast", "", 0, "", 0, 0, 0},
	"hget":                          {"hash", "2.0.0", "O(1)", "Get the value of a hash field", "read hash fast", "", 0, "", 0, 0, 0},
	"hgetall":                       {"hash", "2.0.0", "O(N) where N is the size of the hash.", "Get all the fields and values in a hash", "read hash slow", "nondeterministic_output_order", 0, "", 0, 0, 0},
	"hincrby":                       {"hash", "2.0.0", "O(1)", "Increment the integer value of a hash field by the given number", "write hash fast", "", 0, "", 0, 0, 0},
	"hincrbyfloat":                  {"hash", "2.6.0", "O(1)", "Increment the float value of a hash field by the given amount", "write hash fast", "", 0, "", 0, 0, 0},
	"hkeys":                         {"hash", "2.0.0", "O(N) where N is the size of the hash.", "Get all the fields in a hash", "read hash slow", "nondeterministic_output_order", 0, "", 0, 0, 0},
	"hlen":                          {"hash", "2.0.0", "O(1)", "Get the number of fields in a hash", "read hash fast", "", 0, "", 0, 0, 0},
	"hmget":                         {"hash", "2.0.0", "O(N) where N is the number of fields being requested.", "Get the values of all the given hash fields", "read hash fast", "", 0, "", 0, 0, 0},
	"hmset":                         {"hash", "2.0.0", "O(N) where N is the number of fields being set.", "Set multiple hash fields to multiple values", "write hash fast", "", 0, "", 0, 0, 0},
	"hrandfield":                    {"hash", "6.2.0", "O(N) where N is the number of fields returned", "Get one or multiple random fields from a hash", "read hash slow", "nondeterministic_output", 0, "", 0, 0, 0},
	"hscan":                         {"hash", "2.8.0", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..", "Incrementally iterate hash fields and associated values", "read hash slow", "nondeterministic_output", 0, "", 0, 0, 0},
	"hset":                          {"hash", "2.0.0", "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.", "Set the string value of a hash field", "write hash fast", "", 0, "", 0, 0, 0},
	"hsetnx":                        {"hash", "2.0.0", "O(1)", "Set the value of a hash field, only if the field does not exist", "write hash fast", "", 0, "", 0, 0, 0},
	"hstrlen":                       {"hash", "3.2.0", "O(1)", "Get the length of the value of a hash field", "read hash fast", "", 0, "", 0, 0, 0},
	"hvals":                         {"hash", "2.0.0", "O(N) where N is the size of the hash.", "Get all the values in a hash", "read hash slow", "nondeterministic_output_order", 0, "", 0, 0, 0},
	"incr":                          {"string", "1.0.0", "O(1)", "Increment the integer value of a key by one", "write string fast", "", 0, "", 0, 0, 0},
	"incrby":                        {"string", "1.0.0", "O(1)", "Increment the integer value of a key by the given amount", "write string fast", "", 0, "", 0, 0, 0},
	"incrbyfloat":                   {"string", "2.6.0", "O(1)", "Increment the float value of a key by the given amount", "write string fast", "", 0, "", 0, 0, 0},
	"info":                          {"server", "1.0.0", "O(1)", "Get information and statistics about the server", "slow dangerous", "nondeterministic_output request_policy:all_shards response_policy:special", 0, "", 0, 0, 0},
	"keys":                          {"generic", "1.0.0", "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.", "Find all keys matching the given pattern", "keyspace read slow dangerous", "request_policy:all_shards nondeterministic_output_order", 0, "", 0, 0, 0},
	"lastsave":                      {"server", "1.0.0", "O(1)", "Get the UNIX time stamp of the last successful save to disk", "admin fast dangerous", "nondeterministic_output", 0, "", 0, 0, 0},
	"latency":                       {"server", "2.8.13", "Depends on subcommand.", "A container for latency diagnostics commands", "slow", "", 0, "", 0, 0, 0},
	"latency|doctor":                {"server", "2.8.13", "O(1)", "Return a human readable latency analysis report.", "admin slow dangerous", "nondeterministic_output request_policy:all_nodes response_policy:special", 2, "admin noscript loading stale", 0, 0, 0},
	"latency|graph":                 {"server", "2.8.13", "O(1)", "Return a latency graph for the event.", "admin slow dangerous", "nondeterministic_output request_policy:all_nodes response_policy:special", 3, "admin noscript loading stale", 0, 0, 0},
	"latency|help":                  {"server", "2.8.13", "O(1)", "Show helpful text about the different subcommands.", "slow", "", 2, "loading stale", 0, 0, 0},
	"latency|histogram":             {"server", "7.0.0", "O(N) where N is the number of commands with latency information being retrieved.", "Return the cumulative distribution of latencies of a subset of commands or all.", "admin slow dangerous", "nondeterministic_output request_policy:all_nodes response_policy:special", -2, "admin noscript loading stale", 0, 0, 0},
	"latency|history":               {"server", "2.8.13", "O(1)", "Return timestamp-latency samples for the event.", "admin slow dangerous", "nondeterministic_output request_policy:all_nodes response_policy:special", 3, "admin noscript loading stale", 0, 0, 0},
	"latency|latest":                {"server", "2.8.13", "O(1)", "Return the latest latency samples for all events.", "admin slow dangerous", "nondeterministic_output request_policy:all_nodes response_policy:special", 2, "admin noscript loading stale", 0, 0, 0},
	"latency|reset":                 {"server", "2.8.13", "O(1)", "Reset latency data for one or more events.", "admin slow dangerous", "request_policy:all_nodes response_policy:all_succeeded", -2, "admin noscript loading stale", 0, 0, 0},
	"lcs":                           {"string", "7.0.0", "O(N*M) where N and M are the lengths of s1 and s2, respectively", "Find longest common substring", "read string slow", "", 0, "", 0, 0, 0},
	"lindex":                        {"list", "1.0.0", "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).", "Get an element from a list by its index", "read list slow", "", 0, "", 0, 0, 0},
	"linsert":                       {"list", "2.2.0", "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).", "Insert an element before or after another element in a list", "write list slow", "", 0, "", 0, 0, 0},
	"llen":                          {"list", "1.0.0", "O(1)", "Get the length of a list", "read list fast", "", 0, "", 0, 0, 0},
	"lmove":                         {"list", "6.2.0", "O(1)", "Pop an element from a list, push it to another list and return it", "write list slow", "", 0, "", 0, 0, 0},
	"lmpop":                         {"list", "7.0.0", "O(N+M) where N is the number of provided keys and M is the number of elements returned.", "Pop elements from a list", "write list slow", "", 0, "", 0, 0, 0},
	"lolwut":                        {"server", "5.0.0", "", "Display some computer art and the Redis version", "read fast", "", 0, "", 0, 0, 0},
	"lpop":                          {"list", "1.0.0", "O(N) where N is the number of elements returned", "Remove and get the first elements in a list", "write list fast", "", 0, "", 0, 0, 0},
	"lpos":                          {"list", "6.0.6", "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.", "Return the index of matching elements on a list", "read list slow", "", 0, "", 0, 0, 0},
	"lpush":                         {"list", "1.0.0", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", "Prepend one or multiple elements to a list", "write list fast", "", 0, "", 0, 0, 0},
	"lpushx":                        {"list", "2.2.0", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", "Prepend an element to a list, only if the list exists", "write list fast", "", 0, "", 0, 0, 0},
	"lrange":                        {"list", "1.0.0", "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.", "Get a range of elements from a list", "read list slow", "", 0, "", 0, 0, 0},
	"lrem":                          {"list", "1.0.0", "O(N+M) where N is the length of the list and M is the number of elements removed.", "Remove elements from a list", "write list slow", "", 0, "", 0, 0, 0},
	"lset":                          {"list", "1.0.0", "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).", "Set the value of an element in a list by its index", "write list slow", "", 0, "", 0, 0, 0},
	"ltrim":                         {"list", "1.0.0", "O(N) where N is the number of elements to be removed by the operation.", "Trim a list to the specified range", "write list slow", "", 0, "", 0, 0, 0},
	"memory":                        {"server", "4.0.0", "Depends on subcommand.", "A container for memory diagnostics commands", "slow", "", 0, "", 0, 0, 0},
	"memory|doctor":                 {"server", "4.0.0", "O(1)", "Outputs memory problems report", "slow", "nondeterministic_output request_policy:all_shards response_policy:special", 2, "", 0, 0, 0},
	"memory|help":                   {"server", "4.0.0", "O(1)", "Show helpful text about the different subcommands", "slow", "", 2, "loading stale", 0, 0, 0},
	"memory|malloc-stats":           {"server", "4.0.0", "Depends on how much memory is allocated, could be slow", "Show allocator internal stats", "slow", "nondeterministic_output request_policy:all_shards response_policy:special", 2, "", 0, 0, 0},
	"memory|purge":                  {"server", "4.0.0", "Depends on how much memory is allocated, could be slow", "Ask the allocator to release memory", "slow", "request_policy:all_shards response_policy:all_succeeded", 2, "", 0, 0, 0},
	"memory|stats":                  {"server", "4.0.0", "O(1)", "Show memory usage details", "slow", "nondeterministic_output request_policy:all_shards response_policy:special", 2, "", 0, 0, 0},
	"memory|usage":                  {"server", "4.0.0", "O(N) where N is the number of samples.", "Estimate the memory usage of a key", "read slow", "", -3, "readonly", 2, 2, 1},
	"mget":                          {"string", "1.0.0", "O(N) where N is the number of keys to retrieve.", "Get the values of all the given keys", "read string fast", "request_policy:multi_shard", 0, "", 0, 0, 0},
	"migrate":                       {"generic", "2.6.0", "This command actually executes a DUMP+DEL in the source instance, and a RESTORE in the target instance. See the pages of these commands for time complexity. Also an O(N) data transfer between the two instances is performed.", "Atomically transfer a key from a Redis instance to another one.", "keyspace write slow dangerous", "nondeterministic_output", 0, "", 0, 0, 0},
	"module":                        {"server", "4.0.0", "Depends on subcommand.", "A container for module commands", "slow", "", 0, "", 0, 0, 0},
	"module|help":                   {"server", "5.0.0", "O(1)", "Show helpful text about the different subcommands", "slow", "", 2, "loading stale", 0, 0, 0},
	"module|list":                   {"server", "4.0.0", "O(N) where N is the number of loaded modules.", "List all modules loaded by the server", "admin slow dangerous", "nondeterministic_output_order", 2, "admin noscript", 0, 0, 0},
	"module|load":                   {"server", "4.0.0", "O(1)", "Load a module", "admin slow dangerous", "", -3, "admin noscript no_async_loading", 0, 0, 0},
	"module|loadex":                 {"server", "7.0.0", "O(1)", "Load a module with extended parameters", "admin slow dangerous", "", -3, "admin noscript no_async_loading", 0, 0, 0},
	"module|unload":                 {"server", "4.0.0", "O(1)", "Unload a module", "admin slow dangerous", "", 3, "admin noscript no_async_loading", 0, 0, 0},
	"monitor":                       {"server", "1.0.0", "", "Listen for all requests received by the server in real time", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"move":                          {"generic", "1.0.0", "O(1)", "Move a key to another database", "keyspace write fast", "", 0, "", 0, 0, 0},
	"mset":                          {"string", "1.0.1", "O(N) where N is the number of keys to set.", "Set multiple keys to multiple values", "write string slow", "request_policy:multi_shard response_policy:all_succeeded", 0, "", 0, 0, 0},
	"msetnx":                        {"string", "1.0.1", "O(N) where N is the number of keys to set.", "Set multiple keys to multiple values, only if none of the keys exist", "write string slow", "request_policy:multi_shard response_policy:agg_min", 0, "", 0, 0, 0},
	"multi":                         {"transactions", "1.2.0", "O(1)", "Mark the start of a transaction block", "fast transaction", "", 0, "", 0, 0, 0},
	"object":                        {"generic", "2.2.3", "Depends on subcommand.", "A container for object introspection commands", "slow", "", 0, "", 0, 0, 0},
	"object|encoding":               {"generic", "2.2.3", "O(1)", "Inspect the internal encoding of a Redis object", "keyspace read slow", "nondeterministic_output", 3, "readonly", 2, 2, 1},
	"object|freq":                   {"generic", "4.0.0", "O(1)", "Get the logarithmic access frequency counter of a Redis object", "keyspace read slow", "nondeterministic_output", 3, "readonly", 2, 2, 1},
	"object|help":                   {"generic", "6.2.0", "O(1)", "Show helpful text about the different subcommands", "keyspace slow", "", 2, "loading stale", 0, 0, 0},
	"object|idletime":               {"generic", "2.2.3", "O(1)", "Get the time since a Redis object was last accessed", "keyspace read slow", "nondeterministic_output", 3, "readonly", 2, 2, 1},
	"object|refcount":               {"generic", "2.2.3", "O(1)", "Get the number of references to the value of the key", "keyspace read slow", "nondeterministic_output", 3, "readonly", 2, 2, 1},
	"persist":                       {"generic", "2.2.0", "O(1)", "Remove the expiration from a key", "keyspace write fast", "", 0, "", 0, 0, 0},
	"pexpire":                       {"generic", "2.6.0", "O(1)", "Set a key's time to live in milliseconds", "keyspace write fast", "", 0, "", 0, 0, 0},
	"pexpireat":                     {"generic", "2.6.0", "O(1)", "Set the expiration for a key as a UNIX timestamp specified in milliseconds", "keyspace write fast", "", 0, "", 0, 0, 0},
	"pexpiretime":                   {"generic", "7.0.0", "O(1)", "Get the expiration Unix timestamp for a key in milliseconds", "keyspace read fast", "", 0, "", 0, 0, 0},
	"pfadd":                         {"hyperloglog", "2.8.9", "O(1) to add every element.", "Adds the specified elements to the specified HyperLogLog.", "write hyperloglog fast", "", 0, "", 0, 0, 0},
	"pfcount":                       {"hyperloglog", "2.8.9", "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.", "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).", "read hyperloglog slow", "", 0, "", 0, 0, 0},
	"pfdebug":                       {"hyperloglog", "2.8.9", "N/A", "Internal commands for debugging HyperLogLog values", "write hyperloglog admin slow dangerous", "", 0, "", 0, 0, 0},
	"pfmerge":                       {"hyperloglog", "2.8.9", "O(N) to merge N HyperLogLogs, but with high constant times.", "Merge N different HyperLogLogs into a single one.", "write hyperloglog slow", "", 0, "", 0, 0, 0},
	"pfselftest":                    {"hyperloglog", "2.8.9", "N/A", "An internal command for testing HyperLogLog values", "hyperloglog admin slow dangerous", "", 0, "", 0, 0, 0},
	"ping":                          {"connection", "1.0.0", "O(1)", "Ping the server", "fast connection", "request_policy:all_shards response_policy:all_succeeded", 0, "", 0, 0, 0},
	"psetex":                        {"string", "2.6.0", "O(1)", "Set the value and expiration in milliseconds of a key", "write string slow", "", 0, "", 0, 0, 0},
	"psubscribe":                    {"pubsub", "2.0.0", "O(N) where N is the number of patterns the client is already subscribed to.", "Listen for messages published to channels matching the given patterns", "pubsub slow", "", 0, "", 0, 0, 0},
	"psync":                         {"server", "2.8.0", "", "Internal command used for replication", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"pttl":                          {"generic", "2.6.0", "O(1)", "Get the time to live for a key in milliseconds", "keyspace read fast", "nondeterministic_output", 0, "", 0, 0, 0},
	"publish":                       {"pubsub", "2.0.0", "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).", "Post a message to a channel", "pubsub fast", "", 0, "", 0, 0, 0},
	"pubsub":                        {"pubsub", "2.8.0", "Depends on subcommand.", "A container for Pub/Sub commands", "slow", "", 0, "", 0, 0, 0},
	"pubsub|channels":               {"pubsub", "2.8.0", "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)", "List active channels", "pubsub slow", "", -2, "pubsub loading stale", 0, 0, 0},
	"pubsub|help":                   {"pubsub", "6.2.0", "O(1)", "Show helpful text about the different subcommands", "slow", "", 2, "loading stale", 0, 0, 0},
	"pubsub|numpat":                 {"pubsub", "2.8.0", "O(1)", "Get the count of unique patterns pattern subscriptions", "pubsub slow", "", 2, "pubsub loading stale", 0, 0, 0},
	"pubsub|numsub":                 {"pubsub", "2.8.0", "O(N) for the NUMSUB subcommand, where N is the number of requested channels", "Get the count of subscribers for channels", "pubsub slow", "", -2, "pubsub loading stale", 0, 0, 0},
	"pubsub|shardchannels":          {"pubsub", "7.0.0", "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels).", "List active shard channels", "pubsub slow", "", -2, "pubsub loading stale", 0, 0, 0},
	"pubsub|shardnumsub":            {"pubsub", "7.0.0", "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels", "Get the count of subscribers for shard channels", "pubsub slow", "", -2, "pubsub loading stale", 0, 0, 0},
	"punsubscribe":                  {"pubsub", "2.0.0", "O(N+M) where N is the number of patterns the client is already subscribed and M is the number of total patterns subscribed in the system (by any client).", "Stop listening for messages posted to channels matching the given patterns", "pubsub slow", "", 0, "", 0, 0, 0},
	"quit":                          {"connection", "1.0.0", "O(1)", "Close the connection", "fast connection", "", 0, "", 0, 0, 0},
	"randomkey":                     {"generic", "1.0.0", "O(1)", "Return a random key from the keyspace", "keyspace read slow", "request_policy:all_shards nondeterministic_output", 0, "", 0, 0, 0},
	"readonly":                      {"cluster", "3.0.0", "O(1)", "Enables read queries for a connection to a cluster replica node", "fast connection", "", 0, "", 0, 0, 0},
	"readwrite":                     {"cluster", "3.0.0", "O(1)", "Disables read queries for a connection to a cluster replica node", "fast connection", "", 0, "", 0, 0, 0},
	"rename":                        {"generic", "1.0.0", "O(1)", "Rename a key", "keyspace write slow", "", 0, "", 0, 0, 0},
	"renamenx":                      {"generic", "1.0.0", "O(1)", "Rename a key, only if the new key does not exist", "keyspace write fast", "", 0, "", 0, 0, 0},
	"replconf":                      {"server", "3.0.0", "O(1)", "An internal command for configuring the replication stream", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"replicaof":                     {"server", "5.0.0", "O(1)", "Make the server a replica of another instance, or promote it as master.", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"reset":                         {"connection", "6.2.0", "O(1)", "Reset the connection", "fast connection", "", 0, "", 0, 0, 0},
	"restore":                       {"generic", "2.6.0", "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).", "Create a key using the provided serialized value, previously obtained using DUMP.", "keyspace write slow dangerous", "", 0, "", 0, 0, 0},
	"restore-asking":                {"server", "3.0.0", "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).", "An internal command for migrating keys in a cluster", "keyspace write slow dangerous", "", 0, "", 0, 0, 0},
	"role":                          {"server", "2.8.12", "O(1)", "Return the role of the instance in the context of replication", "admin fast dangerous", "", 0, "", 0, 0, 0},
	"rpop":                          {"list", "1.0.0", "O(N) where N is the number of elements returned", "Remove and get the last elements in a list", "write list fast", "", 0, "", 0, 0, 0},
	"rpoplpush":                     {"list", "1.2.0", "O(1)", "Remove the last element in a list, prepend it to another list and return it", "write list slow", "", 0, "", 0, 0, 0},
	"rpush":                         {"list", "1.0.0", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", "Append one or multiple elements to a list", "write list fast", "", 0, "", 0, 0, 0},
	"rpushx":                        {"list", "2.2.0", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", "Append an element to a list, only if the list exists", "write list fast", "", 0, "", 0, 0, 0},
	"sadd":                          {"set", "1.0.0", "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.", "Add one or more members to a set", "write set fast", "", 0, "", 0, 0, 0},
	"save":                          {"server", "1.0.0", "O(N) where N is the total number of keys in all databases", "Synchronously save the dataset to disk", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"scan":                          {"generic", "2.8.0", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.", "Incrementally iterate the keys space", "keyspace read slow", "nondeterministic_output request_policy:special", 0, "", 0, 0, 0},
	"scard":                         {"set", "1.0.0", "O(1)", "Get the number of members in a set", "read set fast", "", 0, "", 0, 0, 0},
	"script":                        {"scripting", "2.6.0", "Depends on subcommand.", "A container for Lua scripts management commands", "slow", "", 0, "", 0, 0, 0},
	"script|debug":                  {"scripting", "3.2.0", "O(1)", "Set the debug mode for executed scripts.", "slow scripting", "", 3, "noscript", 0, 0, 0},
	"script|exists":                 {"scripting", "2.6.0", "O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation).", "Check existence of scripts in the script cache.", "slow scripting", "request_policy:all_shards response_policy:agg_logical_and", -3, "noscript", 0, 0, 0},
	"script|flush":                  {"scripting", "2.6.0", "O(N) with N being the number of scripts in cache", "Remove all the scripts from the script cache.", "slow scripting", "request_policy:all_nodes response_policy:all_succeeded", -2, "noscript", 0, 0, 0},
	"script|help":                   {"scripting", "5.0.0", "O(1)", "Show helpful text about the different subcommands", "slow scripting", "", 2, "loading stale", 0, 0, 0},
	"script|kill":                   {"scripting", "2.6.0", "O(1)", "Kill the script currently in execution.", "slow scripting", "request_policy:all_shards response_policy:one_succeeded", 2, "noscript allow_busy", 0, 0, 0},
	"script|load":                   {"scripting", "2.6.0", "O(N) with N being the length in bytes of the script body.", "Load the specified Lua script into the script cache.", "slow scripting", "request_policy:all_nodes response_policy:all_succeeded", 3, "noscript stale", 0, 0, 0},
	"sdiff":                         {"set", "1.0.0", "O(N) where N is the total number of elements in all given sets.", "Subtract multiple sets", "read set slow", "nondeterministic_output_order", 0, "", 0, 0, 0},
	"sdiffstore":                    {"set", "1.0.0", "O(N) where N is the total number of elements in all given sets.", "Subtract multiple sets and store the resulting set in a key", "write set slow", "", 0, "", 0, 0, 0},
	"select":                        {"connection", "1.0.0", "O(1)", "Change the selected database for the current connection", "fast connection", "", 0, "", 0, 0, 0},
	"set":                           {"string", "1.0.0", "O(1)", "Set the string value of a key", "write string slow", "", 0, "", 0, 0, 0},
	"setbit":                        {"bitmap", "2.2.0", "O(1)", "Sets or clears the bit at offset in the string value stored at key", "write bitmap slow", "", 0, "", 0, 0, 0},
	"setex":                         {"string", "2.0.0", "O(1)", "Set the value and expiration of a key", "write string slow", "", 0, "", 0, 0, 0},
	"setnx":                         {"string", "1.0.0", "O(1)", "Set the value of a key, only if the key does not exist", "write string fast", "", 0, "", 0, 0, 0},
	"setrange":                      {"string", "2.2.0", "O(1), not counting the time taken to copy the new string in place. Usually, this string is very small so the amortized complexity is O(1). Otherwise, complexity is O(M) with M being the length of the value argument.", "Overwrite part of a string at key starting at the specified offset", "write string slow", "", 0, "", 0, 0, 0},
	"shutdown":                      {"server", "1.0.0", "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)", "Synchronously save the dataset to disk and then shut down the server", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"sinter":                        {"set", "1.0.0", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", "Intersect multiple sets", "read set slow", "nondeterministic_output_order", 0, "", 0, 0, 0},
	"sintercard":                    {"set", "7.0.0", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", "Intersect multiple sets and return the cardinality of the result", "read set slow", "", 0, "", 0, 0, 0},
	"sinterstore":                   {"set", "1.0.0", "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.", "Intersect multiple sets and store the resulting set in a key", "write set slow", "", 0, "", 0, 0, 0},
	"sismember":                     {"set", "1.0.0", "O(1)", "Determine if a given value is a member of a set", "read set fast", "", 0, "", 0, 0, 0},
	"slaveof":                       {"server", "1.0.0", "O(1)", "Make the server a replica of another instance, or promote it as master.", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"slowlog":                       {"server", "2.2.12", "Depends on subcommand.", "A container for slow log commands", "slow", "", 0, "", 0, 0, 0},
	"slowlog|get":                   {"server", "2.2.12", "O(N) where N is the number of entries returned", "Get the slow log's entries", "admin slow dangerous", "request_policy:all_nodes nondeterministic_output", -2, "admin loading stale", 0, 0, 0},
	"slowlog|help":                  {"server", "6.2.0", "O(1)", "Show helpful text about the different subcommands", "slow", "", 2, "loading stale", 0, 0, 0},
	"slowlog|len":                   {"server", "2.2.12", "O(1)", "Get the slow log's length", "admin slow dangerous", "request_policy:all_nodes response_policy:agg_sum nondeterministic_output", 2, "admin loading stale", 0, 0, 0},
	"slowlog|reset":                 {"server", "2.2.12", "O(N) where N is the number of entries in the slowlog", "Clear all entries from the slow log", "admin slow dangerous", "request_policy:all_nodes response_policy:all_succeeded", 2, "admin loading stale", 0, 0, 0},
	"smembers":                      {"set", "1.0.0", "O(N) where N is the set cardinality.", "Get all the members in a set", "read set slow", "nondeterministic_output_order", 0, "", 0, 0, 0},
	"smismember":                    {"set", "6.2.0", "O(N) where N is the number of elements being checked for membership", "Returns the membership associated with the given elements for a set", "read set fast", "", 0, "", 0, 0, 0},
	"smove":                         {"set", "1.0.0", "O(1)", "Move a member from one set to another", "write set fast", "", 0, "", 0, 0, 0},
	"sort":                          {"generic", "1.0.0", "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).", "Sort the elements in a list, set or sorted set", "write set sortedset list slow dangerous", "", 0, "", 0, 0, 0},
	"sort_ro":                       {"generic", "7.0.0", "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).", "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", "read set sortedset list slow dangerous", "", 0, "", 0, 0, 0},
	"spop":                          {"set", "1.0.0", "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.", "Remove and return one or multiple random members from a set", "write set fast", "nondeterministic_output", 0, "", 0, 0, 0},
	"spublish":                      {"pubsub", "7.0.0", "O(N) where N is the number of clients subscribed to the receiving shard channel.", "Post a message to a shard channel", "pubsub fast", "", 0, "", 0, 0, 0},
	"srandmember":                   {"set", "1.0.0", "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.", "Get one or multiple random members from a set", "read set slow", "nondeterministic_output", 0, "", 0, 0, 0},
	"srem":                          {"set", "1.0.0", "O(N) where N is the number of members to be removed.", "Remove one or more members from a set", "write set fast", "", 0, "", 0, 0, 0},
	"sscan":                         {"set", "2.8.0", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..", "Incrementally iterate Set elements", "read set slow", "nondeterministic_output", 0, "", 0, 0, 0},
	"ssubscribe":                    {"pubsub", "7.0.0", "O(N) where N is the number of shard channels to subscribe to.", "Listen for messages published to the given shard channels", "pubsub slow", "", 0, "", 0, 0, 0},
	"strlen":                        {"string", "2.2.0", "O(1)", "Get the length of the value stored in a key", "read string fast", "", 0, "", 0, 0, 0},
	"subscribe":                     {"pubsub", "2.0.0", "O(N) where N is the number of channels to subscribe to.", "Listen for messages published to the given channels", "pubsub slow", "", 0, "", 0, 0, 0},
	"substr":                        {"string", "1.0.0", "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.", "Get a substring of the string stored at a key", "read string slow", "", 0, "", 0, 0, 0},
	"sunion":                        {"set", "1.0.0", "O(N) where N is the total number of elements in all given sets.", "Add multiple sets", "read set slow", "nondeterministic_output_order", 0, "", 0, 0, 0},
	"sunionstore":                   {"set", "1.0.0", "O(N) where N is the total number of elements in all given sets.", "Add multiple sets and store the resulting set in a key", "write set slow", "", 0, "", 0, 0, 0},
	"sunsubscribe":                  {"pubsub", "7.0.0", "O(N) where N is the number of clients already subscribed to a shard channel.", "Stop listening for messages posted to the given shard channels", "pubsub slow", "", 0, "", 0, 0, 0},
	"swapdb":                        {"server", "4.0.0", "O(N) where N is the count of clients watching or blocking on keys from both databases.", "Swaps two Redis databases", "keyspace write fast dangerous", "", 0, "", 0, 0, 0},
	"sync":                          {"server", "1.0.0", "", "Internal command used for replication", "admin slow dangerous", "", 0, "", 0, 0, 0},
	"time":                          {"server", "2.6.0", "O(1)", "Return the current server time", "fast", "nondeterministic_output", 0, "", 0, 0, 0},
	"touch":                         {"generic", "3.2.1", "O(N) where N is the number of keys that will be touched.", "Alters the last access time of a key(s). Returns the number of existing keys specified.", "keyspace read fast", "request_policy:multi_shard response_policy:agg_sum", 0, "", 0, 0, 0},
	"ttl":                           {"generic", "1.0.0", "O(1)", "Get the time to live for a key in seconds", "keyspace read fast", "nondeterministic_output", 0, "", 0, 0, 0},
	"type":                          {"generic", "1.0.0", "O(1)", "Determine the type stored at key", "keyspace read fast", "", 0, "", 0, 0, 0},
	"unlink":                        {"generic", "4.0.0", "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.", "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.", "keyspace write fast", "request_policy:multi_shard response_policy:agg_sum", 0, "", 0, 0, 0},
	"unsubscribe":                   {"pubsub", "2.0.0", "O(N) where N is the number of clients already subscribed to a channel.", "Stop listening for messages posted to the given channels", "pubsub slow", "", 0, "", 0, 0, 0},
	"unwatch":                       {"transactions", "2.2.0", "O(1)", "Forget about all watched keys", "fast transaction", "", 0, "", 0, 0, 0},
	"wait":                          {"generic", "3.0.0", "O(1)", "Wait for the synchronous replication of all the write commands sent in the context of the current connection", "slow connection", "request_policy:all_shards response_policy:agg_min", 0, "", 0, 0, 0},
	"watch":                         {"transactions", "2.2.0", "O(1) for every key.", "Watch the given keys to determine execution of the MULTI/EXEC block", "fast transaction", "", 0, "", 0, 0, 0},
	"xack":                          {"stream", "5.0.0", "O(1) for each message ID processed.", "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.", "write stream fast", "", 0, "", 0, 0, 0},
	"xadd":                          {"stream", "5.0.0", "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.", "Appends a new entry to a stream", "write stream fast", "nondeterministic_output", 0, "", 0, 0, 0},
	"xautoclaim":                    {"stream", "6.2.0", "O(1) if COUNT is small.", "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.", "write stream fast", "nondeterministic_output", 0, "", 0, 0, 0},
	"xclaim":                        {"stream", "5.0.0", "O(log N) with N being the number of messages in the PEL of the consumer group.", "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.", "write stream fast", "nondeterministic_output", 0, "", 0, 0, 0},
	"xdel":                          {"stream", "5.0.0", "O(1) for each single item to delete in the stream, regardless of the stream size.", "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.", "write stream fast", "", 0, "", 0, 0, 0},
	"xgroup":                        {"stream", "5.0.0", "Depends on subcommand.", "A container for consumer groups commands", "slow", "", 0, "", 0, 0, 0},
	"xgroup|create":                 {"stream", "5.0.0", "O(1)", "Create a consumer group.", "write stream slow", "", -5, "write denyoom", 2, 2, 1},
	"xgroup|createconsumer":         {"stream", "6.2.0", "O(1)", "Create a consumer in a consumer group.", "write stream slow", "", 5, "write denyoom", 2, 2, 1},
	"xgroup|delconsumer":            {"stream", "5.0.0", "O(1)", "Delete a consumer from a consumer group.", "write stream slow", "", 5, "write", 2, 2, 1},
	"xgroup|destroy":                {"stream", "5.0.0", "O(N) where N is the number of entries in the group's pending entries list (PEL).", "Destroy a consumer group.", "write stream slow", "", 4, "write", 2, 2, 1},
	"xgroup|help":                   {"stream", "5.0.0", "O(1)", "Show helpful text about the different subcommands", "stream slow", "", 2, "loading stale", 0, 0, 0},
	"xgroup|setid":                  {"stream", "5.0.0", "O(1)", "Set a consumer group to an arbitrary last delivered ID value.", "write stream slow", "", -5, "write", 2, 2, 1},
	"xinfo":                         {"stream", "5.0.0", "Depends on subcommand.", "A container for stream introspection commands", "slow", "", 0, "", 0, 0, 0},
	"xinfo|consumers":               {"stream", "5.0.0", "O(1)", "List the consumers in a consumer group", "read stream slow", "nondeterministic_output", 4, "readonly", 2, 2, 1},
	"xinfo|groups":                  {"stream", "5.0.0", "O(1)", "List the consumer groups of a stream", "read stream slow", "", 3, "readonly", 2, 2, 1},
	"xinfo|help":                    {"stream", "5.0.0", "O(1)", "Show helpful text about the different subcommands", "stream slow", "", 2, "loading stale", 0, 0, 0},
	"xinfo|stream":                  {"stream", "5.0.0", "O(1)", "Get information about a stream", "read stream slow", "", -3, "readonly", 2, 2, 1},
	"xlen":                          {"stream", "5.0.0", "O(1)", "Return the number of entries in a stream", "read stream fast", "", 0, "", 0, 0, 0},
	"xpending":                      {"stream", "5.0.0", "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.", "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.", "read stream slow", "nondeterministic_output", 0, "", 0, 0, 0},
	"xrange":                        {"stream", "5.0.0", "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).", "Return a range of elements in a stream, with IDs matching the specified IDs interval", "read stream slow", "", 0, "", 0, 0, 0},
	"xread":                         {"stream", "5.0.0", "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.", "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.", "read stream slow blocking", "", 0, "", 0, 0, 0},
	"xreadgroup":                    {"stream", "5.0.0", "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.", "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.", "write stream slow blocking", "", 0, "", 0, 0, 0},
	"xrevrange":                     {"stream", "5.0.0", "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).", "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE", "read stream slow", "", 0, "", 0, 0, 0},
	"xsetid":                        {"stream", "5.0.0", "O(1)", "An internal command for replicating stream values", "write stream fast", "", 0, "", 0, 0, 0},
	"xtrim":                         {"stream", "5.0.0", "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.", "Trims the stream to (approximately if '~' is passed) a certain size", "write stream slow", "nondeterministic_output", 0, "", 0, 0, 0},
	"zadd":                          {"sorted-set", "1.2.0", "O(log(N)) for each item added, where N is the number of elements in the sorted set.", "Add one or more members to a sorted set, or update its score if it already exists", "write sortedset fast", "", 0, "", 0, 0, 0},
	"zcard":                         {"sorted-set", "1.2.0", "O(1)", "Get the number of members in a sorted set", "read sortedset fast", "", 0, "", 0, 0, 0},
	"zcount":                        {"sorted-set", "2.0.0", "O(log(N)) with N being the number of elements in the sorted set.", "Count the members in a sorted set with scores within the given values", "read sortedset fast", "", 0, "", 0, 0, 0},
	"zdiff":                         {"sorted-set", "6.2.0", "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.", "Subtract multiple sorted sets", "read sortedset slow", "", 0, "", 0, 0, 0},
	"zdiffstore":                    {"sorted-set", "6.2.0", "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.", "Subtract multiple sorted sets and store the resulting sorted set in a new key", "write sortedset slow", "", 0, "", 0, 0, 0},
	"zincrby":                       {"sorted-set", "1.2.0", "O(log(N)) where N is the number of elements in the sorted set.", "Increment the score of a member in a sorted set", "write sortedset fast", "", 0, "", 0, 0, 0},
	"zinter":                        {"sorted-set", "6.2.0", "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.", "Intersect multiple sorted sets", "read sortedset slow", "", 0, "", 0, 0, 0},
	"zintercard":                    {"sorted-set", "7.0.0", "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.", "Intersect multiple sorted sets and return the cardinality of the result", "read sortedset slow", "", 0, "", 0, 0, 0},
	"zinterstore":                   {"sorted-set", "2.0.0", "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.", "Intersect multiple sorted sets and store the resulting sorted set in a new key", "write sortedset slow", "", 0, "", 0, 0, 0},
	"zlexcount":                     {"sorted-set", "2.8.9", "O(log(N)) with N being the number of elements in the sorted set.", "Count the number of members in a sorted set between a given lexicographical range", "read sortedset fast", "", 0, "", 0, 0, 0},
	"zmpop":                         {"sorted-set", "7.0.0", "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.", "Remove and return members with scores in a sorted set", "write sortedset slow", "", 0, "", 0, 0, 0},
	"zmscore":                       {"sorted-set", "6.2.0", "O(N) where N is the number of members being requested.", "Get the score associated with the given members in a sorted set", "read sortedset fast", "", 0, "", 0, 0, 0},
	"zpopmax":                       {"sorted-set", "5.0.0", "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.", "Remove and return members with the highest scores in a sorted set", "write sortedset fast", "", 0, "", 0, 0, 0},
	"zpopmin":                       {"sorted-set", "5.0.0", "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.", "Remove and return members with the lowest scores in a sorted set", "write sortedset fast", "", 0, "", 0, 0, 0},
	"zrandmember":                   {"sorted-set", "6.2.0", "O(N) where N is the number of elements returned", "Get one or multiple random elements from a sorted set", "read sortedset slow", "nondeterministic_output", 0, "", 0, 0, 0},
	"zrange":                        {"sorted-set", "1.2.0", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.", "Return a range of members in a sorted set", "read sortedset slow", "", 0, "", 0, 0, 0},
	"zrangebylex":                   {"sorted-set", "2.8.9", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", "Return a range of members in a sorted set, by lexicographical range", "read sortedset slow", "", 0, "", 0, 0, 0},
	"zrangebyscore":                 {"sorted-set", "1.0.5", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", "Return a range of members in a sorted set, by score", "read sortedset slow", "", 0, "", 0, 0, 0},
	"zrangestore":                   {"sorted-set", "6.2.0", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.", "Store a range of members from sorted set into another key", "write sortedset slow", "", 0, "", 0, 0, 0},
	"zrank":                         {"sorted-set", "2.0.0", "O(log(N))", "Determine the index of a member in a sorted set", "read sortedset fast", "", 0, "", 0, 0, 0},
	"zrem":                          {"sorted-set", "1.2.0", "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.", "Remove one or more members from a sorted set", "write sortedset fast", "", 0, "", 0, 0, 0},
	"zremrangebylex":                {"sorted-set", "2.8.9", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", "Remove all members in a sorted set between the given lexicographical range", "write sortedset slow", "", 0, "", 0, 0, 0},
	"zremrangebyrank":               {"sorted-set", "2.0.0", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", "Remove all members in a sorted set within the given indexes", "write sortedset slow", "", 0, "", 0, 0, 0},
	"zremrangebyscore":              {"sorted-set", "1.2.0", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.", "Remove all members in a sorted set within the given scores", "write sortedset slow", "", 0, "", 0, 0, 0},
	"zrevrange":                     {"sorted-set", "1.2.0", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.", "Return a range of members in a sorted set, by index, with scores ordered from high to low", "read sortedset slow", "", 0, "", 0, 0, 0},
	"zrevrangebylex":                {"sorted-set", "2.8.9", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.", "read sortedset slow", "", 0, "", 0, 0, 0},
	"zrevrangebyscore":              {"sorted-set", "2.2.0", "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).", "Return a range of members in a sorted set, by score, with scores ordered from high to low", "read sortedset slow", "", 0, "", 0, 0, 0},
	"zrevrank":                      {"sorted-set", "2.0.0", "O(log(N))", "Determine the index of a member in a sorted set, with scores ordered from high to low", "read sortedset fast", "", 0, "", 0, 0, 0},
	"zscan":                         {"sorted-set", "2.8.0", "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..", "Incrementally iterate sorted sets elements and associated scores", "read sortedset slow", "nondeterministic_output", 0, "", 0, 0, 0},
	"zscore":                        {"sorted-set", "1.2.0", "O(1)", "Get the score associated with the given member in a sorted set", "read sortedset fast", "", 0, "", 0, 0, 0},
	"zunion":                        {"sorted-set", "6.2.0", "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.", "Add multiple sorted sets", "read sortedset slow", "", 0, "", 0, 0, 0},
	"zunionstore":                   {"sorted-set", "2.0.0", "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.", "Add multiple sorted sets and store the resulting sorted set in a new key", "write sortedset slow", "", 0, "", 0, 0, 0},
	"client|no-touch":               {"connection", "7.2.0", "O(1)", "Controls whether commands sent by the client affect the LRU/LFU of accessed keys", "slow connection", "", 3, "noscript loading stale", 0, 0, 0},
	"client|setinfo":                {"connection", "7.2.0", "O(1)", "Sets information specific to the client or connection", "slow connection", "", 4, "noscript loading stale", 0, 0, 0},
}
