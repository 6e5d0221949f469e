package commands

import (
	"bytes"
	"strconv"

	"github.com/strata-db/strata/storage"
)

// Propagated forms. A write command whose arguments would not repeat its writes on a replica
// records what does (Ctx.Effect): relative times become absolute (EXPIRE as PEXPIREAT, SET EX
// as SET PXAT), computed results their values (INCRBYFLOAT as SET KEEPTTL, HINCRBYFLOAT as
// HSET), random or blocking choices what they chose (SPOP as SREM, BLPOP as LPOP). The verbs
// are upper-case, as Redis writes them in its stream. EXEC and scripts gather the effects of
// the commands they run (EffectLog) and send them as one block, wrapped in MULTI/EXEC when
// there are several, as Redis 7.0 does.

// Verbs and keywords of the propagated forms.
var (
	verbDel       = []byte("DEL")
	verbUnlink    = []byte("UNLINK")
	verbPExpireAt = []byte("PEXPIREAT")
	verbPersist   = []byte("PERSIST")
	verbSet       = []byte("SET")
	verbHSet      = []byte("HSET")
	verbSRem      = []byte("SREM")
	verbLPop      = []byte("LPOP")
	verbRPop      = []byte("RPOP")
	verbLMove     = []byte("LMOVE")
	verbRPopLPush = []byte("RPOPLPUSH")
	verbZPopMin   = []byte("ZPOPMIN")
	verbZPopMax   = []byte("ZPOPMAX")
	verbMulti     = []byte("MULTI")
	verbExec      = []byte("EXEC")
	verbSelect    = []byte("SELECT")
	wordPXAT      = []byte("PXAT")
	wordKeepTTL   = []byte("KEEPTTL")
	wordABSTTL    = []byte("ABSTTL")
)

// numArg formats n as a command argument.
func numArg(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

// lazy reports whether the lazy-freeing directive (lazyfree-lazy-expire, ...) is yes: the
// deletions it governs propagate as UNLINK rather than DEL.
func (c *Ctx) lazy(directive string) bool {
	if c.Env == nil {
		return false
	}
	v, _ := c.Env.Config().Get(directive)
	return v == "yes"
}

// effectDelete records the deletion of key as DEL, or UNLINK when directive is yes.
func (c *Ctx) effectDelete(directive string, key []byte) {
	verb := verbDel
	if c.lazy(directive) {
		verb = verbUnlink
	}
	c.Effect(verb, key)
}

// effectArgs records the command's own arguments with verb in place of the name (nil keeps
// it) and, when i > 0, argument i replaced by v.
func (c *Ctx) effectArgs(verb []byte, i int, v []byte) {
	argv := append([][]byte(nil), c.Args...)
	if verb != nil {
		argv[0] = verb
	}
	if i > 0 {
		argv[i] = v
	}
	c.Effect(argv...)
}

// propagateNow hands the command's own arguments to c.Propagate at once, for a command that
// acts outside any transaction (PUBLISH, FUNCTION LOAD, DELETE, FLUSH, RESTORE). Run by EXEC
// or a script, it propagates with their block instead (Ctx.untxnEffect).
func (c *Ctx) propagateNow() {
	switch {
	case c.Propagate == nil:
	case c.NonBlocking:
		c.untxnEffect = true
	default:
		c.Propagate(c.Client.DB, [][][]byte{c.Args})
	}
}

// effectsOf returns what c propagates: its Effects, or its own arguments when it set none.
func effectsOf(c *Ctx) [][][]byte {
	if c.Effects != nil {
		return c.Effects
	}
	return [][][]byte{c.Args}
}

// EffectLog gathers the effects of the commands an EXEC or a script runs, each in the database
// it ran in, and sends them as one block once the batch has committed.
type EffectLog struct {
	dbs  []int
	cmds [][][]byte
}

// AddCommand records what sub, run in database db in transaction t from mark m on, propagates:
// the deletions of the keys it found expired (DEL, or UNLINK by lazyfree-lazy-expire), then its
// effects when it staged any other write.
func (l *EffectLog) AddCommand(db int, sub *Ctx, t *storage.Txn, m storage.TxnMark) {
	if writes := l.AddExpired(sub, t, m); writes > 0 || sub.untxnEffect {
		l.add(db, sub)
	}
}

// AddExpired records the deletions of the keys sub found expired in t from mark m on, and
// returns the number of other writes it staged. EXEC and scripts call it alone for a command
// that failed: its writes are not propagated, but the deletions it staged stay in their batch.
func (l *EffectLog) AddExpired(sub *Ctx, t *storage.Txn, m storage.TxnMark) (writes int) {
	expired, writes := t.Since(m)
	for _, k := range expired {
		verb := verbDel
		if sub.lazy("lazyfree-lazy-expire") {
			verb = verbUnlink
		}
		l.dbs = append(l.dbs, k.DB)
		l.cmds = append(l.cmds, [][]byte{verb, k.Key})
	}
	return writes
}

// add records the effects of sub, a command that staged writes in database db: a script's are
// the writes it made, each in its own database.
func (l *EffectLog) add(db int, sub *Ctx) {
	if se := sub.scriptEffects; se != nil {
		l.dbs = append(l.dbs, se.dbs...)
		l.cmds = append(l.cmds, se.cmds...)
		return
	}
	for _, argv := range effectsOf(sub) {
		l.dbs = append(l.dbs, db)
		l.cmds = append(l.cmds, argv)
	}
}

// AddCopy is AddCommand for a command whose arguments the caller reuses: it keeps copies.
func (l *EffectLog) AddCopy(db int, sub *Ctx, t *storage.Txn, m storage.TxnMark) {
	n := len(l.cmds)
	l.AddCommand(db, sub, t, m)
	for i := n; i < len(l.cmds); i++ {
		argv := make([][]byte, len(l.cmds[i]))
		for j, a := range l.cmds[i] {
			argv[j] = bytes.Clone(a)
		}
		l.cmds[i] = argv
	}
}

// SendOnCommit hands the recorded effects to send once t commits: alone when there is one,
// wrapped in MULTI/EXEC when there are several, as Redis 7.0 propagates a transaction or a
// script. A database change inside the block is a SELECT, and the stream stays in the last
// database selected, as in Redis (the receiver follows the SELECTs it sends). When t staged
// no write (a transaction or script that only published), nothing orders the effects
// against other writes and they go at once.
func (l *EffectLog) SendOnCommit(t *storage.Txn, send func(db int, effects [][][]byte)) {
	if send == nil || len(l.cmds) == 0 {
		return
	}
	first := l.dbs[0]
	var out [][][]byte
	wrap := len(l.cmds) > 1
	if wrap {
		out = append(out, [][]byte{verbMulti})
	}
	cur := first
	for i, argv := range l.cmds {
		if l.dbs[i] != cur {
			cur = l.dbs[i]
			out = append(out, [][]byte{verbSelect, numArg(int64(cur))})
		}
		out = append(out, argv)
	}
	if wrap {
		out = append(out, [][]byte{verbExec})
	}
	if t.Writes() == 0 {
		send(first, out)
		return
	}
	t.OnCommitted(func() { send(first, out) })
}
