package commands

import (
	"fmt"
	"sort"
	"strings"
)

// Flag is a set of command properties, named as in Redis's COMMAND reply.
type Flag uint32

// Command flags.
const (
	FlagWrite     Flag = 1 << iota // may modify the keyspace
	FlagReadonly                   // reads the keyspace only
	FlagFast                       // O(1) or O(log N)
	FlagAdmin                      // administrative
	FlagNoAuth                     // allowed before AUTH
	FlagLoading                    // allowed while loading
	FlagStale                      // allowed on a stale replica
	FlagNoScript                   // not allowed in scripts
	FlagPubSub                     // pub/sub related
	FlagBlocking                   // may block the client
	FlagDenyOOM                    // may grow memory
	FlagExclusive                  // runs alone: spans databases or the whole keyspace
	FlagNoMulti                    // not allowed inside MULTI
	FlagAsking                     // accepted from a cluster client after ASKING (RESTORE-ASKING)
	// FlagProtected marks a command that runs only where its enable-<name>-command directive
	// allows it (DEBUG): the dispatcher refuses it after the arity check. COMMAND does not show it.
	FlagProtected
)

var flagNames = []struct {
	f    Flag
	name string
}{
	{FlagWrite, "write"}, {FlagReadonly, "readonly"}, {FlagDenyOOM, "denyoom"}, {FlagAdmin, "admin"},
	{FlagPubSub, "pubsub"}, {FlagNoScript, "noscript"}, {FlagBlocking, "blocking"},
	{FlagLoading, "loading"}, {FlagStale, "stale"}, {FlagAsking, "asking"}, {FlagFast, "fast"}, {FlagNoAuth, "no_auth"},
}

// Names returns the Redis names of the flags in f, in COMMAND's order.
func (f Flag) Names() []string {
	var out []string
	for _, fn := range flagNames {
		if f&fn.f != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// Command is one entry of the command table.
type Command struct {
	Name  string // lower case
	Arity int    // number of arguments including the name; negative means at least -Arity
	Flags Flag
	// FirstKey, LastKey and Step locate the keys as in Redis's COMMAND reply; LastKey -1 is the
	// last argument, -2 the one before it. FirstKey 0 means no keys.
	FirstKey, LastKey, Step int
	// Keys, when set, extracts the keys of commands whose key positions move (numkeys forms).
	Keys func(args [][]byte) [][]byte
	// Handler runs the command. It reads c.Args, operates through c.Txn and replies through c.W.
	Handler func(c *Ctx)
	// Sub lists subcommands for container commands (CONFIG, CLIENT, OBJECT, ...), for COMMAND DOCS.
	Sub []string
}

var table = map[string]*Command{}

// register adds commands to the table. Each command family registers its commands from its file.
func register(cmds ...*Command) {
	for _, c := range cmds {
		if _, dup := table[c.Name]; dup {
			panic("commands: duplicate command " + c.Name)
		}
		table[c.Name] = c
	}
}

// Lookup finds a command by name, case-insensitively, without allocating.
func Lookup(name []byte) *Command {
	var buf [32]byte
	if len(name) > len(buf) {
		return table[strings.ToLower(string(name))]
	}
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return table[string(buf[:len(name)])]
}

// All returns every command sorted by name.
func All() []*Command {
	out := make([]*Command, 0, len(table))
	for _, c := range table {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// CheckArity reports whether n arguments (including the name) suit c.
func (c *Command) CheckArity(n int) bool {
	if c.Arity >= 0 {
		return n == c.Arity
	}
	return n >= -c.Arity
}

// KeysOf returns the key arguments of args for c.
func (c *Command) KeysOf(args [][]byte) [][]byte { return c.AppendKeys(nil, args) }

// AppendKeys appends the key arguments of args for c to dst.
func (c *Command) AppendKeys(dst [][]byte, args [][]byte) [][]byte {
	if c.Keys != nil {
		return append(dst, c.Keys(args)...)
	}
	if c.FirstKey <= 0 || c.FirstKey >= len(args) {
		return dst
	}
	last := c.LastKey
	if last < 0 {
		last = len(args) + last
	}
	step := max(c.Step, 1)
	for i := c.FirstKey; i <= last && i < len(args); i += step {
		dst = append(dst, args[i])
	}
	return dst
}

// ArityError returns the wrong-arity error text for a command name as the client sent it.
func ArityError(name string) string {
	return fmt.Sprintf(ErrWrongArity, strings.ToLower(name))
}

// UnknownCommandError returns Redis's text for an unknown command with its arguments.
func UnknownCommandError(args [][]byte) string {
	var b strings.Builder
	for _, a := range args[1:] {
		if b.Len() >= 128 {
			break
		}
		s := string(a)
		if len(s) > 128-b.Len() {
			s = s[:128-b.Len()]
		}
		fmt.Fprintf(&b, "'%s' ", s)
	}
	name := string(args[0])
	if len(name) > 128 {
		name = name[:128]
	}
	return fmt.Sprintf(ErrUnknownCommand, name, b.String())
}
