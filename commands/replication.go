package commands

import (
	"strings"

	"github.com/strata-db/strata/internal/num"
)

// REPLICAOF (and its old name SLAVEOF) and ROLE. The server owns the link to the master
// (server/replica.go) and is reached through Replicator.

func init() {
	const f = FlagAdmin | FlagNoScript | FlagStale
	register(
		&Command{Name: "replicaof", Arity: 3, Flags: f, Handler: cmdReplicaOf},
		&Command{Name: "slaveof", Arity: 3, Flags: f, Handler: cmdReplicaOf},
		&Command{Name: "role", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast, Handler: cmdRole},
	)
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
		c.W.Array(0)
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
)
