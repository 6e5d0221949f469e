package commands

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strata-db/strata/internal/cmddoc"
	"github.com/strata-db/strata/internal/num"
)

// REPLICAOF (and its old name SLAVEOF) and ROLE; PSYNC, SYNC, REPLCONF and WAIT, the master
// side. The server owns the link to the master (server/replica.go) and the replicas' links
// (server/master.go), and is reached through Replicator and Master.

func init() {
	const f = FlagAdmin | FlagNoScript | FlagStale
	register(
		&Command{Name: "replicaof", Arity: 3, Flags: f, Handler: cmdReplicaOf},
		&Command{Name: "slaveof", Arity: 3, Flags: f, Handler: cmdReplicaOf},
		&Command{Name: "role", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast, Handler: cmdRole},
		&Command{Name: "psync", Arity: -3, Flags: FlagAdmin | FlagNoScript | FlagNoMulti, Handler: cmdPSync},
		&Command{Name: "sync", Arity: 1, Flags: FlagAdmin | FlagNoScript | FlagNoMulti, Handler: cmdSync},
		&Command{Name: "replconf", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale, Handler: cmdReplConf},
		&Command{Name: "wait", Arity: 3, Flags: FlagNoScript, Handler: cmdWait},
		&Command{Name: "failover", Arity: -1, Flags: FlagAdmin | FlagNoScript | FlagStale, Handler: cmdFailover},
	)
}

// Master is implemented by a ServerEnv that serves replicas.
type Master interface {
	// Sync serves PSYNC replid offset (psync) or SYNC: the calling connection becomes a
	// replica, served until its link ends.
	Sync(c *Ctx, psync bool)
	// ReplConf answers REPLCONF from a replica.
	ReplConf(c *Ctx)
	// WaitReplicas blocks until n replicas acknowledged the stream so far or timeout (0:
	// none; negative: passed already) passes, and answers how many did.
	WaitReplicas(c *Ctx, n int64, timeout time.Duration)
	// Failover starts (or aborts) a coordinated failover and answers.
	Failover(c *Ctx, o FailoverOptions)
}

// FailoverOptions are FAILOVER's arguments.
type FailoverOptions struct {
	Host    string // TO host port; "" for any replica
	Port    int
	Force   bool
	Abort   bool
	Timeout time.Duration // 0 for none
}

// cmdFailover parses FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms].
func cmdFailover(c *Ctx) {
	var o FailoverOptions
	if len(c.Args) == 2 && strings.EqualFold(c.Arg(1), "abort") {
		o.Abort = true
	}
	for i := 1; i < len(c.Args) && !o.Abort; i++ {
		switch opt := strings.ToLower(c.Arg(i)); {
		case opt == "to" && i+2 < len(c.Args) && o.Host == "":
			port, err := num.ParseInt(c.Args[i+2])
			if err != nil || port < 0 || port > 65535 {
				c.W.Error(ErrNotInteger)
				return
			}
			o.Host, o.Port = c.Arg(i+1), int(port)
			i += 2
		case opt == "force" && !o.Force:
			o.Force = true
		case opt == "timeout" && i+1 < len(c.Args) && o.Timeout == 0:
			ms, err := num.ParseInt(c.Args[i+1])
			if err != nil {
				c.W.Error(ErrNotInteger)
				return
			}
			if ms <= 0 {
				c.W.Error("ERR FAILOVER timeout must be greater than 0")
				return
			}
			o.Timeout = time.Duration(ms) * time.Millisecond
			i++
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if m := master(c); m != nil {
		m.Failover(c, o)
	}
}

func master(c *Ctx) Master {
	if m, ok := c.Env.(Master); ok {
		return m
	}
	c.W.Error("ERR this command needs a running server")
	return nil
}

func cmdPSync(c *Ctx) {
	if m := master(c); m != nil {
		m.Sync(c, true)
	}
}

func cmdSync(c *Ctx) {
	if m := master(c); m != nil {
		m.Sync(c, false)
	}
}

func cmdReplConf(c *Ctx) {
	if m := master(c); m != nil {
		m.ReplConf(c)
	}
}

func cmdWait(c *Ctx) {
	n, err := num.ParseInt(c.Args[1])
	if err != nil {
		c.W.Error(ErrNotInteger)
		return
	}
	ms, err := num.ParseInt(c.Args[2])
	switch {
	case err != nil:
		c.W.Error("ERR timeout is not an integer or out of range")
		return
	case ms < 0:
		c.W.Error(ErrTimeoutNegative)
		return
	}
	// A deadline past the clock's range has passed already, as on redis-server, whose
	// deadline (now + timeout) overflows.
	var timeout time.Duration
	switch {
	case ms > math.MaxInt64-time.Now().UnixMilli():
		timeout = -1
	case ms > int64(math.MaxInt64/time.Millisecond):
		timeout = math.MaxInt64
	default:
		timeout = time.Duration(ms) * time.Millisecond
	}
	if m := master(c); m != nil {
		m.WaitReplicas(c, n, timeout)
	}
}

func replicator(c *Ctx) Replicator {
	if r, ok := c.Env.(Replicator); ok {
		return r
	}
	c.W.Error("ERR this command needs a running server")
	return nil
}

func cmdReplicaOf(c *Ctx) {
	r := replicator(c)
	if r == nil {
		return
	}
	if strings.EqualFold(c.Arg(1), "no") && strings.EqualFold(c.Arg(2), "one") {
		if _, err := r.ReplicaOf("", 0); err != nil {
			c.W.Error("ERR " + err.Error())
			return
		}
		c.W.OK()
		return
	}
	port, err := num.ParseInt(c.Args[2])
	if err != nil || port < 0 || port > 65535 {
		c.W.Error("ERR Invalid master port")
		return
	}
	already, err := r.ReplicaOf(c.Arg(1), int(port))
	switch {
	case err != nil:
		c.W.Error("ERR " + err.Error())
	case already:
		c.W.Status("OK Already connected to specified master")
	default:
		c.W.OK()
	}
}

func cmdRole(c *Ctx) {
	r := replicator(c)
	if r == nil {
		return
	}
	ri := r.Role()
	if ri.Master {
		c.W.Array(3)
		c.W.BulkString("master")
		c.W.Int(ri.Offset)
		c.W.Array(len(ri.Replicas))
		for _, r := range ri.Replicas {
			c.W.Array(3)
			c.W.BulkString(r.IP)
			c.W.BulkString(strconv.Itoa(r.Port))
			c.W.BulkString(strconv.FormatInt(r.Offset, 10))
		}
		return
	}
	c.W.Array(5)
	c.W.BulkString("slave")
	c.W.BulkString(ri.MasterHost)
	c.W.Int(int64(ri.MasterPort))
	c.W.BulkString(ri.State)
	c.W.Int(ri.Offset)
}

// Errors a replica answers in place of a command (server/replica.go).
const (
	ErrReadOnlyReplica = "READONLY You can't write against a read only replica."
	ErrMasterDown      = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."
	ErrNoReplicas      = "NOREPLICAS Not enough good replicas to write."
)

// writeSubs are the subcommands Redis flags write (FUNCTION LOAD, FUNCTION DELETE, ...): their
// container commands are not write commands as a whole.
var writeSubs = func() map[string]bool {
	out := map[string]bool{}
	for name, m := range cmddoc.Redis {
		if strings.Contains(name, "|") && slices.Contains(strings.Fields(m.Flags), "write") {
			out[name] = true
		}
	}
	return out
}()

// Writes reports whether cmd with arguments args is a write command for the gates of a
// replication role (READONLY, NOREPLICAS): a command flagged write, or a subcommand Redis flags
// write.
func Writes(cmd *Command, args [][]byte) bool {
	if cmd.Flags&FlagWrite != 0 {
		return true
	}
	if len(cmd.Sub) == 0 || len(args) < 2 {
		return false
	}
	return writeSubs[cmd.Name+"|"+strings.ToLower(string(args[1]))]
}
