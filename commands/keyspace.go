package commands

import (
	"strings"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

func init() {
	register(
		&Command{Name: "del", Arity: -2, Flags: FlagWrite, FirstKey: 1, LastKey: -1, Step: 1, Handler: cmdDel},
		&Command{Name: "unlink", Arity: -2, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: -1, Step: 1, Handler: cmdDel},
		&Command{Name: "exists", Arity: -2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: -1, Step: 1, Handler: cmdExists},
		&Command{Name: "type", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdType},
		&Command{Name: "dbsize", Arity: 1, Flags: FlagReadonly | FlagFast, Handler: cmdDBSize},
		&Command{Name: "flushdb", Arity: -1, Flags: FlagWrite | FlagExclusive, Handler: cmdFlush},
		&Command{Name: "flushall", Arity: -1, Flags: FlagWrite | FlagExclusive, Handler: cmdFlush},
		&Command{Name: "swapdb", Arity: 3, Flags: FlagWrite | FlagFast | FlagExclusive, Handler: cmdSwapDB},
	)
}

func cmdDel(c *Ctx) { countKeys(c, c.Txn.Delete) }

func cmdExists(c *Ctx) { countKeys(c, c.Txn.Exists) }

// countKeys applies op to every key argument and replies with how many it reported true for.
func countKeys(c *Ctx, op func(key []byte) (bool, error)) {
	var n int64
	for _, k := range c.Args[1:] {
		ok, err := op(k)
		if err != nil {
			c.Fail(err)
			return
		}
		if ok {
			n++
		}
	}
	c.W.Int(n)
}

// keyMeta returns the metadata of the command's key (argument 1) as a collection of type typ.
// When the key is absent it answers with absent, when the lookup fails with the error, and
// then returns ok false.
func keyMeta(c *Ctx, typ storage.Type, absent func()) (m *storage.Meta, ok bool) {
	m, err := c.Txn.GetMetaOf(c.Args[1], typ)
	switch {
	case err != nil:
		c.Fail(err)
	case m == nil:
		absent()
	}
	return m, err == nil && m != nil
}

// metaOrZero returns the metadata of key in database db, answering 0 itself when the key is
// absent (and the error when the lookup fails); ok is false then.
func metaOrZero(c *Ctx, db int, key []byte) (m *storage.Meta, ok bool) {
	return metaOr(c, db, key, func() { c.W.Int(0) })
}

// metaOrNull is metaOrZero answering a null for an absent key, in the client's database.
func metaOrNull(c *Ctx, key []byte) (m *storage.Meta, ok bool) {
	return metaOr(c, c.Client.DB, key, c.W.Null)
}

func metaOr(c *Ctx, db int, key []byte, absent func()) (*storage.Meta, bool) {
	m, err := c.Txn.GetMetaIn(db, key)
	switch {
	case err != nil:
		c.Fail(err)
	case m == nil:
		absent()
	}
	return m, err == nil && m != nil
}

// replyFlag answers 1 or 0 for ok, or the error.
func replyFlag(c *Ctx, ok bool, err error) {
	switch {
	case err != nil:
		c.Fail(err)
	case ok:
		c.W.Int(1)
	default:
		c.W.Int(0)
	}
}

// replySize answers the number of elements of the collection of type typ at the command's key:
// HLEN, SCARD.
func replySize(c *Ctx, typ storage.Type) {
	if m, ok := keyMeta(c, typ, func() { c.W.Int(0) }); ok {
		c.W.Int(int64(m.Size))
	}
}

func cmdType(c *Ctx) {
	m, err := c.Txn.GetMeta(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	if m == nil {
		c.W.Status("none")
		return
	}
	c.W.Status(m.Type.String())
}

func cmdDBSize(c *Ctx) { c.W.Int(c.Store.DBSize(c.Client.DB)) }

func cmdFlush(c *Ctx) {
	if len(c.Args) > 2 {
		c.W.Error(ErrSyntax)
		return
	}
	if len(c.Args) == 2 {
		if mode := strings.ToLower(c.Arg(1)); mode != "async" && mode != "sync" {
			c.W.Error(ErrSyntax)
			return
		}
	}
	if c.Cmd.Name == "flushall" {
		for db := 0; db < c.Store.Databases(); db++ {
			c.Txn.FlushDB(db)
		}
	} else {
		c.Txn.FlushDB(c.Client.DB)
	}
	c.W.OK()
}

// dbIndex parses argument i as a database index, replying with Redis's errors.
func dbIndex(c *Ctx, i int, outOfRange string) (int, bool) {
	n, err := num.ParseInt(c.Args[i])
	if err != nil {
		c.W.Error(ErrNotInteger)
		return 0, false
	}
	if n < 0 || n >= int64(c.Store.Databases()) {
		c.W.Error(outOfRange)
		return 0, false
	}
	return int(n), true
}

func cmdSwapDB(c *Ctx) {
	a, err := num.ParseInt(c.Args[1])
	if err != nil {
		c.W.Error("ERR invalid first DB index")
		return
	}
	b, err := num.ParseInt(c.Args[2])
	if err != nil {
		c.W.Error("ERR invalid second DB index")
		return
	}
	n := int64(c.Store.Databases())
	if a < 0 || a >= n || b < 0 || b >= n {
		c.W.Error(ErrDBIndex)
		return
	}
	c.Txn.SwapDB(int(a), int(b))
	// Clients blocked on a key of either database may now find it.
	c.SignalDB(int(a))
	c.SignalDB(int(b))
	c.W.OK()
}
