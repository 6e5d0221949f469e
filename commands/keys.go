package commands

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

func init() {
	register(
		&Command{Name: "rename", Arity: 3, Flags: FlagWrite, FirstKey: 1, LastKey: 2, Step: 1, Handler: cmdRename},
		&Command{Name: "renamenx", Arity: 3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 2, Step: 1, Handler: cmdRename},
		// COPY runs on the striped locks of its two keys; with a DB option naming another
		// database it switches to an exclusive transaction (see cmdCopy).
		&Command{Name: "copy", Arity: -3, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 2, Step: 1, Handler: cmdCopy},
		&Command{Name: "move", Arity: 3, Flags: FlagWrite | FlagFast | FlagExclusive, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdMove},
		&Command{Name: "touch", Arity: -2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: -1, Step: 1, Handler: cmdTouch},
		&Command{Name: "randomkey", Arity: 1, Flags: FlagReadonly, Handler: cmdRandomKey},
		&Command{Name: "object", Arity: -2, Flags: FlagReadonly, FirstKey: 2, LastKey: 2, Step: 1, Handler: cmdObject,
			Sub: []string{"encoding", "freq", "help", "idletime", "refcount"}},
	)
}

// cmdRename implements RENAME and RENAMENX. Only the metadata record moves: the object ID, and
// so a collection's sub-keys, stay put, which makes the rename O(1) for any size.
func cmdRename(c *Ctx) {
	nx := c.Cmd.Name == "renamenx"
	src, dst := c.Args[1], c.Args[2]
	m, err := c.Txn.GetMeta(src)
	if err != nil {
		c.Fail(err)
		return
	}
	if m == nil {
		c.W.Error(ErrNoSuchKey)
		return
	}
	if bytes.Equal(src, dst) {
		if nx {
			c.W.Int(0)
		} else {
			c.W.OK()
		}
		return
	}
	if nx {
		ok, err := c.Txn.Exists(dst)
		if err != nil {
			c.Fail(err)
			return
		}
		if ok {
			c.W.Int(0)
			return
		}
	}
	if _, err := c.Txn.Rename(src, dst); err != nil {
		c.Fail(err)
		return
	}
	c.Signal(dst) // wakes clients blocked on dst
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
}

// intArg parses argument i as Redis's getIntFromObjectOrReply does.
func intArg(c *Ctx, i int) (int, bool) {
	n, err := num.ParseInt(c.Args[i])
	if err != nil {
		c.W.Error(ErrNotInteger)
		return 0, false
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		c.W.Error("ERR value is out of range, value must between -2147483648 and 2147483647")
		return 0, false
	}
	return int(n), true
}

// targetDB parses argument i as a destination database for MOVE and COPY.
func targetDB(c *Ctx, i int) (int, bool) {
	db, ok := intArg(c, i)
	if !ok {
		return 0, false
	}
	if db < 0 || db >= c.Store.Databases() {
		c.W.Error(ErrDBIndex)
		return 0, false
	}
	return db, true
}

// cmdMove moves a key to another database. It is exclusive (it spans two databases) and O(1):
// the metadata record moves with its object ID.
func cmdMove(c *Ctx) {
	db, ok := targetDB(c, 2)
	if !ok {
		return
	}
	if db == c.Client.DB {
		c.W.Error(ErrSameObject)
		return
	}
	key := c.Args[1]
	if _, ok := metaOrZero(c, c.Client.DB, key); !ok {
		return
	}
	d, err := c.Txn.GetMetaIn(db, key)
	if err != nil {
		c.Fail(err)
		return
	}
	if d != nil {
		c.W.Int(0)
		return
	}
	if _, err := c.Txn.RenameIn(c.Client.DB, key, db, key); err != nil {
		c.Fail(err)
		return
	}
	c.SignalIn(db, key) // wakes clients blocked on the key in db
	c.W.Int(1)
}

// cmdCopy copies a key, to another database with DB. A collection's elements are copied under
// a new object ID, O(N) as in Redis.
func cmdCopy(c *Ctx) {
	src, dst := c.Args[1], c.Args[2]
	db := c.Client.DB
	replace := false
	for j := 3; j < len(c.Args); j++ {
		switch opt := strings.ToLower(c.Arg(j)); {
		case opt == "replace":
			replace = true
		case opt == "db" && j+1 < len(c.Args):
			n, ok := targetDB(c, j+1)
			if !ok {
				return
			}
			db = n
			j++
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if db == c.Client.DB && bytes.Equal(src, dst) {
		c.W.Error(ErrSameObject)
		return
	}
	if db != c.Client.DB && !c.Txn.Exclusive() {
		// The striped locks cover src and dst in this database only; another database
		// needs the whole store. Nothing was read or written yet, so switching is safe.
		c.Txn.Abort()
		c.Txn = c.Store.BeginExclusive(c.Client.DB)
	}
	m, ok := metaOrZero(c, c.Client.DB, src)
	if !ok {
		return
	}
	d, err := c.Txn.GetMetaIn(db, dst)
	if err != nil {
		c.Fail(err)
		return
	}
	if d != nil && !replace {
		c.W.Int(0)
		return
	}
	cp := *m
	cp.Value = append([]byte(nil), m.Value...)
	if m.Type == storage.TypeString && m.Enc != storage.EncInline {
		// A value-log value is held by one key: the copy gets the bytes, which PutMetaIn
		// stores in the value log again.
		v, err := c.Txn.StringValue(m)
		if err != nil {
			c.Fail(err)
			return
		}
		cp.Enc, cp.Value = storage.EncInline, v
	}
	if m.Type.IsCollection() {
		if cp.ID, err = c.Txn.CopyData(m); err != nil {
			c.Fail(err)
			return
		}
	}
	if err := c.Txn.PutMetaIn(db, dst, &cp); err != nil {
		c.Fail(err)
		return
	}
	c.SignalIn(db, dst) // wakes clients blocked on dst in db
	c.W.Int(1)
}

func cmdTouch(c *Ctx) {
	var n int64
	for _, k := range c.Args[1:] {
		ok, err := c.Txn.Exists(k)
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

func cmdRandomKey(c *Ctx) {
	beginRead(c)
	k, err := c.Txn.RandomKey()
	switch {
	case err != nil:
		c.Fail(err)
	case k == nil:
		c.W.Null()
	default:
		c.W.Bulk(k)
	}
}

// objectHelp is OBJECT HELP's text, as Redis 7.0 sends it.
var objectHelp = []string{
	"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
	"HELP",
	"    Prints this help.",
}

func cmdObject(c *Ctx) {
	sub := strings.ToLower(c.Arg(1))
	switch sub {
	case "help":
		if len(c.Args) != 2 {
			c.W.Error(ArityError("object|help"))
			return
		}
		c.W.Array(len(objectHelp))
		for _, l := range objectHelp {
			c.W.Status(l)
		}
		return
	case "encoding", "refcount", "idletime", "freq":
		if len(c.Args) != 3 {
			c.W.Error(ArityError("object|" + sub))
			return
		}
	default:
		name := c.Arg(1)
		if len(name) > 128 {
			name = name[:128]
		}
		c.W.Error(fmt.Sprintf(ErrUnknownSub, name, strings.ToUpper(c.Arg(0))))
		return
	}
	m, ok := metaOrNull(c, c.Args[2])
	if !ok {
		return
	}
	if m.Type == storage.TypeString && m.Enc != storage.EncInline && m.StringLen() <= 20 {
		// A value-log string short enough to be an integer (a tiny large-value-threshold):
		// the integer checks need its bytes.
		v, err := c.Txn.StringValue(m)
		if err != nil {
			c.Fail(err)
			return
		}
		inline := *m
		inline.Enc, inline.Value = storage.EncInline, v
		m = &inline
	}
	switch sub {
	case "encoding":
		enc, err := objectEncoding(c.Txn, m)
		if err != nil {
			c.Fail(err)
			return
		}
		c.W.BulkString(enc)
	case "refcount":
		// Redis shares the objects of the integers 0..9999 (refcount INT_MAX).
		if n, ok := redisInt(m); ok && m.Type == storage.TypeString && n >= 0 && n < 10000 {
			c.W.Int(math.MaxInt32)
		} else {
			c.W.Int(1)
		}
	case "idletime":
		if lfuPolicy(c) {
			c.W.Error("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
			return
		}
		c.W.Int(idleSeconds(c, c.Args[2]))
	case "freq":
		if !lfuPolicy(c) {
			c.W.Error("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
			return
		}
		_, freq := c.Store.Access(c.Client.DB, c.Args[2])
		c.W.Int(int64(freq))
	}
}

// lfuPolicy reports whether maxmemory-policy is an LFU policy, under which OBJECT reports
// access frequencies rather than idle times.
func lfuPolicy(c *Ctx) bool {
	p, _ := c.Env.Config().Get("maxmemory-policy")
	return strings.HasSuffix(p, "-lfu")
}

// idleSeconds returns the seconds since key was last used (storage.Store.Access).
func idleSeconds(c *Ctx, key []byte) int64 {
	at, _ := c.Store.Access(c.Client.DB, key)
	return max(time.Now().Unix()-at, 0)
}

// redisInt reports whether a string value would be stored by Redis as an integer (string2l).
func redisInt(m *storage.Meta) (int64, bool) {
	if m.Type != storage.TypeString || m.Enc != storage.EncInline || len(m.Value) > 20 || string(m.Value) == "-0" {
		return 0, false
	}
	n, err := num.ParseInt(m.Value)
	return n, err == nil
}

// embstrLimit is the longest string Redis 7.0 encodes as embstr.
const embstrLimit = 44

// objectEncoding returns the encoding OBJECT ENCODING reports, as Redis 7.0 names them:
// strings "int", "embstr" or "raw" by content and length; lists "quicklist" (7.0 has no
// listpack lists); hashes "listpack" and sorted sets "listpack" while packed (storage.EncPacked),
// sets "intset"; otherwise "hashtable", "hashtable" and "skiplist". As in Redis, a collection
// that converted keeps its encoding when it shrinks.
func objectEncoding(t *storage.Txn, m *storage.Meta) (string, error) {
	switch m.Type {
	case storage.TypeString:
		if _, ok := redisInt(m); ok {
			return "int", nil
		}
		if m.StringLen() <= embstrLimit {
			return "embstr", nil
		}
		return "raw", nil
	case storage.TypeList:
		return "quicklist", nil
	case storage.TypeStream:
		return "stream", nil
	case storage.TypeHash:
		if m.Enc == storage.EncPacked {
			return "listpack", nil
		}
		return "hashtable", nil
	case storage.TypeSet:
		if m.Enc == storage.EncPacked {
			return "intset", nil
		}
		return "hashtable", nil
	case storage.TypeZSet:
		if m.Enc == storage.EncPacked {
			return "listpack", nil
		}
		return "skiplist", nil
	}
	return "unknown", nil
}
