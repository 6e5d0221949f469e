package acl

import (
	"sort"
	"strings"
)

// categories are Redis 7.0's ACL categories, in its order (ACL CAT, the ACL LIST description).
var categories = []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous",
	"connection", "transaction", "scripting"}

// Categories returns the ACL categories in Redis's order, as ACL CAT lists them.
func Categories() []string { return append([]string(nil), categories...) }

func categoryBit(name string) uint32 {
	for i, c := range categories {
		if strings.EqualFold(c, name) {
			return 1 << i
		}
	}
	return 0
}

// KeySpec tells where a command's keys are: every Step-th argument from First to Last (negative:
// counted from the end), or, when Find is set, the keys Find returns.
type KeySpec struct {
	First, Last, Step int
	Find              func(args [][]byte) [][]byte
}

// appendKeys appends to dst the keys args name.
func (k *KeySpec) appendKeys(dst, args [][]byte) [][]byte {
	if k.Find != nil {
		return append(dst, k.Find(args)...)
	}
	if k.First <= 0 || k.First >= len(args) {
		return dst
	}
	last := k.Last
	if last < 0 {
		last = len(args) + last
	}
	step := max(k.Step, 1)
	for i := k.First; i <= last && i < len(args); i += step {
		dst = append(dst, args[i])
	}
	return dst
}

// CommandSpec describes one command or subcommand to the ACL: what the command layer knows and
// the rules range over. NewTable builds the command universe from a list of them.
type CommandSpec struct {
	Name       string   // lower-case full name: "get", "config|get"
	Categories []string // ACL categories, without '@'
	NoAuth     bool     // allowed before AUTH: never denied by command rules
	Arity      int      // a subcommand's arity (counting the container), 0 if unknown
	Redis70    bool     // a Redis 7.0 command: counted when describing rules by categories
	Write      bool     // a write command: its keys need read and write access when no key spec says
	Keys       KeySpec  // where a top-level command's keys are; subcommands use their container's
}

// Command is one command or subcommand of the command universe.
type Command struct {
	id       int
	name     string
	cats     uint32 // category bits
	parent   *Command
	subs     []*Command
	noAuth   bool
	arity    int
	write    bool
	keys     KeySpec
	keyFlags string // key access of its key specs (keySpecs)
	redis70  bool
}

// Name returns the command's full lower-case name ("config|get").
func (e *Command) Name() string { return e.name }

// Arity returns a subcommand's arity, 0 if unknown or a top-level command.
func (e *Command) Arity() int { return e.arity }

// Container reports whether the command has subcommands.
func (e *Command) Container() bool { return len(e.subs) > 0 }

// top returns the top-level command: e, or its container.
func (e *Command) top() *Command {
	if e.parent != nil {
		return e.parent
	}
	return e
}

// Table is the command universe ACL rules range over: every command and subcommand, each with
// an id that indexes the command bits of selectors. It does not change once built.
type Table struct {
	top    []*Command          // top-level commands by name
	byName map[string]*Command // every command and subcommand by full name
	n      int                 // number of commands; bit n is the "future commands" bit of +@all
	words  int
}

// NewTable builds the command universe from specs. The first spec of a name wins; a
// subcommand ("container|sub") whose container has no spec before it is left out.
func NewTable(specs []CommandSpec) *Table {
	t := &Table{byName: map[string]*Command{}}
	for _, sp := range specs {
		if t.byName[sp.Name] != nil {
			continue
		}
		e := &Command{name: sp.Name, noAuth: sp.NoAuth, arity: sp.Arity, write: sp.Write, keys: sp.Keys,
			keyFlags: keySpecs[sp.Name], redis70: sp.Redis70}
		for _, c := range sp.Categories {
			e.cats |= categoryBit(c)
		}
		if base, _, ok := strings.Cut(sp.Name, "|"); ok {
			if e.parent = t.byName[base]; e.parent == nil {
				continue
			}
			e.parent.subs = append(e.parent.subs, e)
		} else {
			t.top = append(t.top, e)
		}
		t.byName[sp.Name] = e
	}
	sort.Slice(t.top, func(i, j int) bool { return t.top[i].name < t.top[j].name })
	for _, e := range t.top {
		e.id = t.n
		t.n++
		sort.Slice(e.subs, func(i, j int) bool { return e.subs[i].name < e.subs[j].name })
		for _, s := range e.subs {
			s.id = t.n
			t.n++
		}
	}
	t.words = (t.n + 1 + 63) / 64
	return t
}

// lookup finds a command as ACL rules name it: "name" or "container|sub", case-insensitively;
// nil if unknown.
func (t *Table) lookup(name string) *Command {
	parts := strings.Split(strings.ToLower(name), "|")
	switch {
	case len(parts) > 2:
		return nil
	case len(parts) == 1:
		return t.byName[parts[0]]
	}
	base := t.byName[parts[0]]
	if base == nil || len(base.subs) == 0 {
		return nil
	}
	return t.byName[parts[0]+"|"+parts[1]]
}

// walk calls f for every command, each container followed by its subcommands.
func (t *Table) walk(f func(e *Command)) {
	for _, e := range t.top {
		f(e)
		for _, s := range e.subs {
			f(s)
		}
	}
}

// CategoryCommands returns the commands and subcommands of a category in table order (ACL CAT
// <category>); ok is false for an unknown category.
func (t *Table) CategoryCommands(category string) (names []string, ok bool) {
	bit := categoryBit(category)
	if bit == 0 {
		return nil, false
	}
	t.walk(func(e *Command) {
		if e.cats&bit != 0 {
			names = append(names, e.name)
		}
	})
	return names, true
}

// Resolve returns the entry a call of the top-level command name runs: the subcommand of a
// container when args[1] names one, else the command itself. ok is false for a known
// subcommand called with the wrong number of arguments, which the handler answers before any
// permission matters, and for a name the table lacks (e is nil then).
func (t *Table) Resolve(name string, args [][]byte) (e *Command, ok bool) {
	e = t.byName[name]
	if e == nil {
		return nil, false
	}
	if len(e.subs) > 0 && len(args) > 1 {
		for _, s := range e.subs {
			if n := len(e.name) + 1; len(s.name)-n == len(args[1]) && strings.EqualFold(s.name[n:], string(args[1])) {
				if s.arity != 0 && !arityOK(s.arity, len(args)) {
					return s, false
				}
				return s, true
			}
		}
	}
	return e, true
}

// arityOK reports whether n arguments fit an arity (negative: at least -arity).
func arityOK(arity, n int) bool {
	if arity >= 0 {
		return n == arity
	}
	return n >= -arity
}
