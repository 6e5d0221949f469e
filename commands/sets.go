package commands

import (
	"bytes"
	"strings"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

// Set command errors, byte for byte as Redis 7.0 sends them.
const (
	errNumKeysPositive = "ERR numkeys should be greater than 0"
	errNumKeysTooMany  = "ERR Number of keys can't be greater than number of args"
	errLimitNegative   = "ERR LIMIT can't be negative"
)

func init() {
	key1 := func(c *Command) *Command { c.FirstKey, c.LastKey, c.Step = 1, 1, 1; return c }
	keysAll := func(c *Command) *Command { c.FirstKey, c.LastKey, c.Step = 1, -1, 1; return c }
	register(
		key1(&Command{Name: "sadd", Arity: -3, Flags: FlagWrite | FlagDenyOOM | FlagFast, Handler: cmdSAdd}),
		key1(&Command{Name: "srem", Arity: -3, Flags: FlagWrite | FlagFast, Handler: cmdSRem}),
		key1(&Command{Name: "smembers", Arity: 2, Flags: FlagReadonly, Handler: cmdSCombine}),
		key1(&Command{Name: "sismember", Arity: 3, Flags: FlagReadonly | FlagFast, Handler: cmdSIsMember}),
		key1(&Command{Name: "smismember", Arity: -3, Flags: FlagReadonly | FlagFast, Handler: cmdSMIsMember}),
		key1(&Command{Name: "scard", Arity: 2, Flags: FlagReadonly | FlagFast, Handler: cmdSCard}),
		key1(&Command{Name: "spop", Arity: -2, Flags: FlagWrite | FlagFast, Handler: cmdSPop}),
		key1(&Command{Name: "srandmember", Arity: -2, Flags: FlagReadonly, Handler: cmdSRandMember}),
		&Command{Name: "smove", Arity: 4, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 2, Step: 1, Handler: cmdSMove},
		keysAll(&Command{Name: "sinter", Arity: -2, Flags: FlagReadonly, Handler: cmdSCombine}),
		keysAll(&Command{Name: "sunion", Arity: -2, Flags: FlagReadonly, Handler: cmdSCombine}),
		keysAll(&Command{Name: "sdiff", Arity: -2, Flags: FlagReadonly, Handler: cmdSCombine}),
		keysAll(&Command{Name: "sinterstore", Arity: -3, Flags: FlagWrite | FlagDenyOOM, Handler: cmdSCombine}),
		keysAll(&Command{Name: "sunionstore", Arity: -3, Flags: FlagWrite | FlagDenyOOM, Handler: cmdSCombine}),
		keysAll(&Command{Name: "sdiffstore", Arity: -3, Flags: FlagWrite | FlagDenyOOM, Handler: cmdSCombine}),
		&Command{Name: "sintercard", Arity: -3, Flags: FlagReadonly,
			Keys: sinterCardKeys, Handler: cmdSInterCard},
	)
}

func cmdSAdd(c *Ctx) {
	n, err := c.Txn.SetAdd(c.Args[1], c.Args[2:])
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(n)
}

func cmdSRem(c *Ctx) {
	n, err := c.Txn.SetRem(c.Args[1], c.Args[2:])
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(n)
}

func cmdSIsMember(c *Ctx) {
	ok, err := c.Txn.SetIsMember(c.Args[1], c.Args[2])
	replyFlag(c, ok, err)
}

func cmdSMIsMember(c *Ctx) {
	in, err := c.Txn.SetMembership(c.Args[1], c.Args[2:])
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Array(len(in))
	for _, ok := range in {
		if ok {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	}
}

func cmdSCard(c *Ctx) { replySize(c, storage.TypeSet) }

func cmdSPop(c *Ctx) {
	switch {
	case len(c.Args) > 3:
		c.W.Error(ErrSyntax)
		return
	case len(c.Args) == 2:
		out, err := c.Txn.SetPop(c.Args[1], 1)
		switch {
		case err != nil:
			c.Fail(err)
		case len(out) == 0:
			c.W.Null()
		default:
			c.Effect(verbSRem, c.Args[1], out[0])
			c.W.Bulk(out[0])
		}
		return
	}
	// getPositiveLongFromObjectOrReply: one message for anything but a non-negative long.
	n, err := num.ParseInt(c.Args[2])
	if err != nil || n < 0 {
		c.W.Error(ErrCountPositive)
		return
	}
	out, err := c.Txn.SetPop(c.Args[1], uint64(n))
	if err == nil && len(out) > 0 {
		err = spopEffects(c, out)
	}
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Set(len(out))
	for _, m := range out {
		c.W.Bulk(m)
	}
}

// spopEffects records SPOP key count's propagated form: DEL when it emptied the set, an SREM
// for each element otherwise.
func spopEffects(c *Ctx, out [][]byte) error {
	left, err := c.Txn.Exists(c.Args[1])
	if err != nil || !left {
		c.Effect(verbDel, c.Args[1])
		return err
	}
	for _, m := range out {
		c.Effect(verbSRem, c.Args[1], m)
	}
	return nil
}

func cmdSRandMember(c *Ctx) {
	switch {
	case len(c.Args) > 3:
		c.W.Error(ErrSyntax)
		return
	case len(c.Args) == 2:
		m, ok := keyMeta(c, storage.TypeSet, c.W.Null)
		if !ok {
			return
		}
		var mem []byte
		if err := c.Txn.SetRandom(m, 1, true, func(b []byte) { mem = bytes.Clone(b) }); err != nil {
			c.Fail(err)
			return
		}
		if mem == nil {
			c.W.Null()
			return
		}
		c.W.Bulk(mem)
		return
	}
	l, ok := parseRandCount(c, 2)
	if !ok {
		return
	}
	m, count, distinct, ok := randomPick(c, storage.TypeSet, l)
	if !ok {
		return
	}
	draw := func(count uint64) (int, error) {
		n := 0
		err := c.Txn.SetRandom(m, count, distinct, func(b []byte) {
			c.W.Bulk(b)
			n++
		})
		return n, err
	}
	if !distinct {
		drawRepeated(c, count, c.W.Array, draw) // bounds.go
		return
	}
	replyCounted(c, int(count), c.W.Array, func() (int, error) { return draw(count) })
}

func cmdSMove(c *Ctx) {
	ok, err := c.Txn.SetMove(c.Args[1], c.Args[2], c.Args[3])
	replyFlag(c, ok, err)
}

// cmdSCombine serves SMEMBERS (SINTER of one key, as in Redis 7.0), SINTER, SUNION, SDIFF and
// their STORE forms.
func cmdSCombine(c *Ctx) {
	var op storage.SetOp
	name := c.Cmd.Name
	switch name {
	case "smembers":
		cmdSMembers(c)
		return
	case "sinter", "sinterstore":
		op = storage.SetInter
	case "sunion", "sunionstore":
		op = storage.SetUnion
	default:
		op = storage.SetDiff
	}
	if !strings.HasSuffix(name, "store") {
		// The size is known only at the end: the members go straight into the reply and
		// replyCounted puts the right header in front.
		replyCounted(c, 0, c.W.Set, func() (int, error) {
			n := 0
			err := c.Txn.SetCombine(op, c.Args[1:], func(m []byte) bool {
				c.W.Bulk(m)
				n++
				return true
			})
			return n, err
		})
		return
	}
	var out [][]byte
	err := c.Txn.SetCombine(op, c.Args[2:], func(m []byte) bool {
		out = append(out, bytes.Clone(m))
		return true
	})
	if err != nil {
		c.Fail(err)
		return
	}
	n, err := c.Txn.SetStore(c.Args[1], out)
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(n)
}

func cmdSMembers(c *Ctx) {
	m, ok := keyMeta(c, storage.TypeSet, func() { c.W.Set(0) })
	if !ok {
		return
	}
	replyCounted(c, int(m.Size), c.W.Set, func() (int, error) {
		n := 0
		err := c.Txn.SetEach(m, func(b []byte) bool {
			c.W.Bulk(b)
			n++
			return true
		})
		return n, err
	})
}

// sinterCardKeys returns the keys of SINTERCARD numkeys key [key ...]: none when numkeys is not
// valid (the handler then answers the error).
func sinterCardKeys(args [][]byte) [][]byte {
	if len(args) < 2 {
		return nil
	}
	n, err := num.ParseInt(args[1])
	if err != nil || n < 1 || n > int64(len(args)-2) {
		return nil
	}
	return args[2 : 2+n]
}

func cmdSInterCard(c *Ctx) {
	n, err := num.ParseInt(c.Args[1])
	if err != nil || n < 1 {
		c.W.Error(errNumKeysPositive)
		return
	}
	if n > int64(len(c.Args)-2) {
		c.W.Error(errNumKeysTooMany)
		return
	}
	var limit int64
	for i := 2 + int(n); i < len(c.Args); i++ {
		if bytes.EqualFold(c.Args[i], []byte("limit")) && i+1 < len(c.Args) {
			i++
			l, err := num.ParseInt(c.Args[i])
			if err != nil || l < 0 {
				c.W.Error(errLimitNegative)
				return
			}
			limit = l
			continue
		}
		c.W.Error(ErrSyntax)
		return
	}
	var card int64
	err = c.Txn.SetCombine(storage.SetInter, c.Args[2:2+n], func([]byte) bool {
		card++
		return limit == 0 || card < limit
	})
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(card)
}
