package commands

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/strata-db/strata/internal/num"
)

func init() {
	register(&Command{Name: "slowlog", Arity: -2, Flags: FlagAdmin | FlagLoading | FlagStale, Handler: cmdSlowlog,
		Sub: []string{"get", "help", "len", "reset"}})
	configMutable["slowlog-log-slower-than"] = configIntCheck(-1, math.MaxInt64)
	configMutable["slowlog-max-len"] = configIntCheck(0, math.MaxInt64)
}

// SlowLogEntry is one entry of the slow log, as SLOWLOG GET reports it.
type SlowLogEntry struct {
	ID, Time, Duration int64 // Time in Unix seconds, Duration in microseconds
	Args               [][]byte
	Peer, Name         string // the client's address and name
}

// SlowLogger is implemented by a server that keeps the slow log.
type SlowLogger interface {
	// SlowLog returns up to n entries, newest first (n < 0: all).
	SlowLog(n int) []SlowLogEntry
	// SlowLogLen returns the number of entries.
	SlowLogLen() int
	// SlowLogReset empties the log.
	SlowLogReset()
}

// The limits of a logged command line, as Redis's: at most 32 arguments (the last says how
// many more there were) of at most 128 bytes each.
const (
	slowLogMaxArgs = 32
	slowLogMaxLen  = 128
)

var redacted = []byte("(redacted)")

// RedactedArgs returns the arguments of a call of cmd as MONITOR shows them: passwords and ACL
// rules replaced by "(redacted)" as Redis 7.0 replaces them. The others are not copied.
func RedactedArgs(cmd *Command, args [][]byte) [][]byte {
	hide := redactions(cmd, args)
	out := make([][]byte, len(args))
	for i, a := range args {
		if hide[i] {
			a = redacted
		}
		out[i] = a
	}
	return out
}

// redactions says which arguments of a call of cmd hold secrets.
func redactions(cmd *Command, args [][]byte) []bool {
	hide := make([]bool, len(args))
	name := ""
	if cmd != nil {
		name = cmd.Name
	}
	sub := ""
	if len(args) > 1 {
		sub = strings.ToLower(string(args[1]))
	}
	switch {
	case name == "auth":
		for i := 1; i < len(args); i++ {
			hide[i] = true
		}
	case name == "hello":
		for i := 2; i+2 < len(args); i++ {
			if bytes.EqualFold(args[i], []byte("auth")) {
				hide[i+1], hide[i+2] = true, true
				i += 2
			}
		}
	case name == "acl" && sub == "setuser":
		for i := 2; i < len(args); i++ {
			hide[i] = true
		}
	case name == "config" && sub == "set":
		for i := 2; i+1 < len(args); i += 2 {
			switch strings.ToLower(string(args[i])) {
			case "masterauth", "masteruser", "requirepass":
				hide[i+1] = true
			}
		}
	case name == "migrate":
		for i := 6; i < len(args); i++ {
			switch {
			case bytes.EqualFold(args[i], []byte("keys")):
				i = len(args)
			case bytes.EqualFold(args[i], []byte("auth")) && i+1 < len(args):
				hide[i+1] = true
				i++
			case bytes.EqualFold(args[i], []byte("auth2")) && i+2 < len(args):
				hide[i+1], hide[i+2] = true, true
				i += 2
			}
		}
	}
	return hide
}

// SlowLogArgs returns the arguments of a call of cmd as the slow log keeps them: redacted as
// RedactedArgs, at most 32 arguments and 128 bytes of each, copied.
func SlowLogArgs(cmd *Command, args [][]byte) [][]byte {
	hide := redactions(cmd, args)
	n := min(len(args), slowLogMaxArgs)
	out := make([][]byte, n)
	for i := range n {
		switch a := args[i]; {
		case n < len(args) && i == n-1:
			out[i] = fmt.Appendf(nil, "... (%d more arguments)", len(args)-n+1)
		case hide[i]:
			out[i] = redacted
		case len(a) > slowLogMaxLen:
			out[i] = fmt.Appendf(bytes.Clone(a[:slowLogMaxLen]), "... (%d more bytes)", len(a)-slowLogMaxLen)
		default:
			out[i] = bytes.Clone(a)
		}
	}
	return out
}

var slowlogHelpLines = []string{
	"SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET [<count>]",
	"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
	"    Entries are made of:",
	"    id, timestamp, time in microseconds, arguments array, client IP and port,",
	"    client name",
	"LEN",
	"    Return the length of the slowlog.",
	"RESET",
	"    Reset the slowlog.",
	"HELP",
	"    Prints this help.",
}

var slowlogSubs = map[string]clientSub{
	"get":   {-2, slowlogGet},
	"help":  {2, func(c *Ctx) { writeHelp(c.W, slowlogHelpLines) }},
	"len":   {2, func(c *Ctx) { withSlowLog(c, func(sl SlowLogger) { c.W.Int(int64(sl.SlowLogLen())) }) }},
	"reset": {2, func(c *Ctx) { withSlowLog(c, func(sl SlowLogger) { sl.SlowLogReset(); c.W.OK() }) }},
}

// cmdSlowlog implements SLOWLOG GET [count] | LEN | RESET | HELP.
func cmdSlowlog(c *Ctx) { runSub(c, "slowlog", slowlogSubs) }

func withSlowLog(c *Ctx, fn func(SlowLogger)) {
	if sl, ok := c.Env.(SlowLogger); ok {
		fn(sl)
		return
	}
	c.W.Error("ERR this command needs a running server")
}

func slowlogGet(c *Ctx) {
	if len(c.Args) > 3 {
		c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try SLOWLOG HELP.", c.Arg(1)))
		return
	}
	count := int64(10)
	if len(c.Args) == 3 {
		n, err := num.ParseInt(c.Args[2])
		if err != nil || n < -1 {
			c.W.Error("ERR count should be greater than or equal to -1")
			return
		}
		count = n
	}
	withSlowLog(c, func(sl SlowLogger) {
		entries := sl.SlowLog(int(min(count, math.MaxInt32)))
		c.W.Array(len(entries))
		for _, e := range entries {
			c.W.Array(6)
			c.W.Int(e.ID)
			c.W.Int(e.Time)
			c.W.Int(e.Duration)
			c.W.Array(len(e.Args))
			for _, a := range e.Args {
				c.W.Bulk(a)
			}
			c.W.BulkString(e.Peer)
			c.W.BulkString(e.Name)
		}
	})
}
