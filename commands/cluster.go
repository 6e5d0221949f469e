package commands

import (
	"sort"
	"strings"

	"github.com/strata-db/strata/internal/cmddoc"
)

// Strata runs standalone, as a Redis without cluster support: CLUSTER, ASKING, READONLY and
// READWRITE answer that cluster support is disabled (after CLUSTER's subcommand and arity
// checks, in Redis's order). A deployment that outgrows one node uses replicas and Sentinel.

const errClusterDisabled = "ERR This instance has cluster support disabled"

func clusterDisabled(c *Ctx) { c.W.Error(errClusterDisabled) }

var clusterSubs = map[string]clientSub{}

func init() {
	var subs []string
	for name, m := range cmddoc.Redis {
		if sub, ok := strings.CutPrefix(name, "cluster|"); ok {
			clusterSubs[sub] = clientSub{m.Arity, clusterDisabled}
			subs = append(subs, sub)
		}
	}
	sort.Strings(subs)
	register(
		&Command{Name: "cluster", Arity: -2, Handler: func(c *Ctx) { runSub(c, "cluster", clusterSubs) }, Sub: subs},
		&Command{Name: "asking", Arity: 1, Flags: FlagFast, Handler: clusterDisabled},
		&Command{Name: "readonly", Arity: 1, Flags: FlagFast | FlagLoading | FlagStale, Handler: clusterDisabled},
		&Command{Name: "readwrite", Arity: 1, Flags: FlagFast | FlagLoading | FlagStale, Handler: clusterDisabled},
	)
}
