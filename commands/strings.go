package commands

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

// maxStringLen is Redis's default proto-max-bulk-len, the bound of strings and bit offsets
// where no configuration is at hand.
const maxStringLen = 512 << 20

// stringLimit is the largest string APPEND, SETRANGE, SETBIT and BITFIELD may build:
// proto-max-bulk-len.
func stringLimit(c *Ctx) int64 {
	if c.Env == nil {
		return maxStringLen
	}
	return c.Env.Config().ProtoMaxBulkLen
}

func init() {
	register(
		&Command{Name: "get", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGet},
		&Command{Name: "set", Arity: -3, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdSet},
		&Command{Name: "setnx", Arity: 3, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdSetNX},
		&Command{Name: "setex", Arity: 4, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdSetEX},
		&Command{Name: "psetex", Arity: 4, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdSetEX},
		&Command{Name: "getset", Arity: 3, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGetSet},
		&Command{Name: "getdel", Arity: 2, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGetDel},
		&Command{Name: "getex", Arity: -2, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGetEx},
		&Command{Name: "mget", Arity: -2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: -1, Step: 1, Handler: cmdMGet},
		&Command{Name: "mset", Arity: -3, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: -1, Step: 2, Handler: cmdMSet},
		&Command{Name: "msetnx", Arity: -3, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: -1, Step: 2, Handler: cmdMSet},
		&Command{Name: "append", Arity: 3, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdAppend},
		&Command{Name: "strlen", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdStrlen},
		&Command{Name: "incr", Arity: 2, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdIncr},
		&Command{Name: "decr", Arity: 2, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdIncr},
		&Command{Name: "incrby", Arity: 3, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdIncr},
		&Command{Name: "decrby", Arity: 3, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdIncr},
		&Command{Name: "incrbyfloat", Arity: 3, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdIncrByFloat},
		&Command{Name: "setrange", Arity: 4, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdSetRange},
		&Command{Name: "getrange", Arity: 4, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGetRange},
		&Command{Name: "substr", Arity: 4, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdGetRange},
	)
}

func cmdGet(c *Ctx) {
	m, err := c.Txn.PeekMeta(c.Args[1])
	switch {
	case err != nil:
		c.Fail(err)
	case m == nil:
		c.W.Null()
	case m.Type != storage.TypeString:
		c.Fail(storage.ErrWrongType)
	default:
		if err := replyString(c, m); err != nil {
			c.Fail(err)
		}
	}
}

// replyString writes string m as a bulk reply. A value-log value is read straight into the
// reply buffer; on an error nothing is written.
func replyString(c *Ctx, m *storage.Meta) error {
	if m.Enc == storage.EncInline {
		c.W.Bulk(m.Value)
		return nil
	}
	start := c.W.Len()
	if err := c.Txn.ReadStringInto(m, c.W.BulkSpace(m.StringLen())); err != nil {
		c.W.Truncate(start)
		return err
	}
	return nil
}

// expireOpt is a parsed EX/PX/EXAT/PXAT/KEEPTTL/PERSIST option.
type expireOpt struct {
	at      int64 // unix ms; 0 none
	keepTTL bool
	persist bool
	unit    string // the option given; Redis accepts the same one repeated, the last value wins
}

// accepts reports whether option opt may follow the expiry options already parsed.
func (e *expireOpt) accepts(opt string) bool { return e.unit == "" || e.unit == opt }

// parseUnit handles EX, PX, EXAT or PXAT with its value at argument *i. It reports whether opt
// was one of them (advancing *i past the value), and ok false after replying with an error.
func (e *expireOpt) parseUnit(c *Ctx, opt string, i *int) (matched, ok bool) {
	if opt != "ex" && opt != "px" && opt != "exat" && opt != "pxat" || !e.accepts(opt) || *i+1 >= len(c.Args) {
		return false, true
	}
	e.unit = opt
	*i++
	e.at, ok = parseExpireArg(c, opt, c.Args[*i])
	return true, ok
}

// parseExpireArg parses the value after EX, PX, EXAT or PXAT into unix ms, replying with
// Redis's errors on bad input.
func parseExpireArg(c *Ctx, unit string, arg []byte) (int64, bool) {
	n, err := num.ParseInt(arg)
	if err != nil {
		c.W.Error(ErrNotInteger)
		return 0, false
	}
	seconds := unit == "ex" || unit == "exat"
	if n <= 0 || seconds && n > math.MaxInt64/1000 {
		c.W.Error(fmt.Sprintf(ErrInvalidExpire, c.Cmd.Name))
		return 0, false
	}
	if seconds {
		n *= 1000
	}
	if unit == "ex" || unit == "px" {
		now := c.Txn.Now()
		if n > math.MaxInt64-now {
			c.W.Error(fmt.Sprintf(ErrInvalidExpire, c.Cmd.Name))
			return 0, false
		}
		n += now
	}
	return n, true
}

func cmdSet(c *Ctx) {
	var nx, xx, get bool
	var exp expireOpt
	for i := 3; i < len(c.Args); i++ {
		opt := strings.ToLower(c.Arg(i))
		if matched, ok := exp.parseUnit(c, opt, &i); matched {
			if !ok {
				return
			}
			continue
		}
		switch {
		case opt == "nx" && !xx:
			nx = true
		case opt == "xx" && !nx:
			xx = true
		case opt == "get":
			get = true
		case opt == "keepttl" && exp.accepts(opt):
			exp.keepTTL, exp.unit = true, opt
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	key := c.Args[1]
	// The old metadata is done with (GET's reply, KEEPTTL) before the write, so the
	// transaction's own Meta holds it: no allocation per SET.
	m, err := c.Txn.PeekMeta(key)
	if err != nil {
		c.Fail(err)
		return
	}
	if get && m != nil && m.Type != storage.TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	if nx && m != nil || xx && m == nil {
		if get && m != nil {
			if err := replyString(c, m); err != nil {
				c.Fail(err)
			}
		} else {
			c.W.Null()
		}
		return
	}
	at := exp.at
	if exp.keepTTL && m != nil {
		at = m.Expire
	}
	// With GET the old value is the reply: it is written first, and withdrawn if the SET fails.
	start := c.W.Len()
	if get && m == nil {
		c.W.Null()
	} else if get {
		if err := replyString(c, m); err != nil {
			c.Fail(err)
			return
		}
	}
	if c.Staged != nil {
		err = c.Txn.SetStaged(key, c.Staged, at)
	} else {
		err = c.Txn.SetString(key, c.Args[2], at)
	}
	if err == nil {
		err = setEffect(c, exp.at, get)
	}
	if err != nil {
		c.W.Truncate(start)
		c.Fail(err)
		return
	}
	if !get {
		c.W.OK()
	}
}

// setEffect records SET's propagated form: SET key value PXAT ms for a SET with an expiry (its
// other options dropped), its arguments without GET otherwise. A value the server streamed to
// the value log (Ctx.Staged) is read back for the receiver, when there is one.
func setEffect(c *Ctx, at int64, get bool) error {
	val := c.Args[2]
	if c.Staged != nil {
		if c.Propagate == nil {
			return nil
		}
		var err error
		if val, err = c.Staged.Bytes(); err != nil {
			return err
		}
	}
	switch {
	case at != 0:
		c.Effect(verbSet, c.Args[1], val, wordPXAT, numArg(at))
	case get:
		argv := [][]byte{c.Args[0], c.Args[1], val}
		for _, a := range c.Args[3:] {
			if !strings.EqualFold(string(a), "get") {
				argv = append(argv, a)
			}
		}
		c.Effect(argv...)
	case c.Staged != nil:
		c.effectArgs(nil, 2, val)
	}
	return nil
}

func cmdSetNX(c *Ctx) {
	ok, err := c.Txn.Exists(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	if ok {
		c.W.Int(0)
		return
	}
	if err := c.Txn.SetString(c.Args[1], c.Args[2], 0); err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(1)
}

func cmdSetEX(c *Ctx) {
	unit := "ex"
	if c.Cmd.Name == "psetex" {
		unit = "px"
	}
	at, ok := parseExpireArg(c, unit, c.Args[2])
	if !ok {
		return
	}
	if err := c.Txn.SetString(c.Args[1], c.Args[3], at); err != nil {
		c.Fail(err)
		return
	}
	c.Effect(verbSet, c.Args[1], c.Args[3], wordPXAT, numArg(at))
	c.W.OK()
}

func cmdGetSet(c *Ctx) {
	m, err := c.Txn.GetMetaOf(c.Args[1], storage.TypeString)
	if err != nil {
		c.Fail(err)
		return
	}
	// The old value is the reply: it is written first, and withdrawn if the SET fails.
	start := c.W.Len()
	if m == nil {
		c.W.Null()
	} else if err := replyString(c, m); err != nil {
		c.Fail(err)
		return
	}
	if err := c.Txn.SetString(c.Args[1], c.Args[2], 0); err != nil {
		c.W.Truncate(start)
		c.Fail(err)
		return
	}
	c.effectArgs(verbSet, 0, nil)
}

func cmdGetDel(c *Ctx) {
	m, err := c.Txn.GetMetaOf(c.Args[1], storage.TypeString)
	if err != nil {
		c.Fail(err)
		return
	}
	if m == nil {
		c.W.Null()
		return
	}
	start := c.W.Len()
	if err := replyString(c, m); err != nil {
		c.Fail(err)
		return
	}
	if _, err := c.Txn.Delete(c.Args[1]); err != nil {
		c.W.Truncate(start)
		c.Fail(err)
		return
	}
	c.effectDelete("lazyfree-lazy-user-del", c.Args[1])
}

func cmdGetEx(c *Ctx) {
	// As Redis: the options' syntax first, then the key (null if missing, WRONGTYPE), and only
	// then the expiry value (the last one given).
	var exp expireOpt
	var value []byte
	for i := 2; i < len(c.Args); i++ {
		opt := strings.ToLower(c.Arg(i))
		switch {
		case (opt == "ex" || opt == "px" || opt == "exat" || opt == "pxat") && exp.accepts(opt) && i+1 < len(c.Args):
			exp.unit = opt
			i++
			value = c.Args[i]
		case opt == "persist" && exp.accepts(opt):
			exp.persist, exp.unit = true, opt
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	m, ok := metaOrNull(c, c.Args[1])
	if !ok {
		return
	}
	if m.Type != storage.TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	if value != nil {
		var ok bool
		if exp.at, ok = parseExpireArg(c, exp.unit, value); !ok {
			return
		}
	}
	start := c.W.Len()
	if err := replyString(c, m); err != nil {
		c.Fail(err)
		return
	}
	var err error
	switch {
	case exp.persist && m.Expire != 0:
		m.Expire = 0
		err = c.Txn.PutMeta(c.Args[1], m)
		c.Effect(verbPersist, c.Args[1])
	case exp.at != 0 && exp.at <= c.Txn.Now():
		_, err = c.Txn.Delete(c.Args[1])
		c.effectDelete("lazyfree-lazy-expire", c.Args[1])
	case exp.at != 0:
		m.Expire = exp.at
		err = c.Txn.PutMeta(c.Args[1], m)
		c.Effect(verbPExpireAt, c.Args[1], numArg(exp.at))
	}
	if err != nil {
		c.W.Truncate(start)
		c.Fail(err)
	}
}

func cmdMGet(c *Ctx) {
	c.W.Array(len(c.Args) - 1)
	for _, k := range c.Args[1:] {
		m, err := c.Txn.GetMetaOf(k, storage.TypeString)
		if err != nil || m == nil || replyString(c, m) != nil {
			c.W.Null()
		}
	}
}

func cmdMSet(c *Ctx) {
	if len(c.Args)%2 == 0 {
		c.W.Error(ArityError(c.Cmd.Name))
		return
	}
	nx := c.Cmd.Name == "msetnx"
	if nx {
		for i := 1; i < len(c.Args); i += 2 {
			ok, err := c.Txn.Exists(c.Args[i])
			if err != nil {
				c.Fail(err)
				return
			}
			if ok {
				c.W.Int(0)
				return
			}
		}
	}
	var last map[string]int // key -> its last pair, for long argument lists
	if len(c.Args) > 33 {
		last = make(map[string]int, len(c.Args)/2)
		for i := 1; i < len(c.Args); i += 2 {
			last[string(c.Args[i])] = i
		}
	}
	for i := 1; i < len(c.Args); i += 2 {
		if setLater(c.Args, i, last) {
			continue // a later pair sets the same key: only the last value is stored
		}
		if err := c.Txn.SetString(c.Args[i], c.Args[i+1], 0); err != nil {
			c.Fail(err)
			return
		}
	}
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
}

// setLater reports whether a pair after pair i of MSET names the same key; last, when set,
// maps each key to its last pair.
func setLater(args [][]byte, i int, last map[string]int) bool {
	if last != nil {
		return last[string(args[i])] != i
	}
	for j := i + 2; j < len(args); j += 2 {
		if bytes.Equal(args[j], args[i]) {
			return true
		}
	}
	return false
}

func cmdAppend(c *Ctx) {
	m, err := c.Txn.GetMeta(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	if m != nil && m.Type != storage.TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	var v []byte
	var at int64
	if m != nil {
		if int64(m.StringLen()+len(c.Args[2])) > stringLimit(c) {
			c.W.Error(ErrStringTooLong)
			return
		}
		cur, err := c.Txn.StringValue(m)
		if err != nil {
			c.Fail(err)
			return
		}
		v = make([]byte, 0, len(cur)+len(c.Args[2]))
		v = append(v, cur...)
		at = m.Expire
	}
	v = append(v, c.Args[2]...)
	if err := c.Txn.SetString(c.Args[1], v, at); err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(int64(len(v)))
}

func cmdStrlen(c *Ctx) {
	m, err := c.Txn.GetMetaOf(c.Args[1], storage.TypeString)
	if err != nil {
		c.Fail(err)
		return
	}
	n := 0
	if m != nil {
		n = m.StringLen() // no read of a value-log value
	}
	c.W.Int(int64(n))
}

func cmdSetRange(c *Ctx) {
	off, ok := c.Int(2)
	if !ok {
		return
	}
	if off < 0 {
		c.W.Error(ErrOffsetRange)
		return
	}
	val := c.Args[3]
	m, err := c.Txn.GetMeta(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	if m != nil && m.Type != storage.TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	var cur []byte
	var at int64
	if m != nil && len(val) == 0 {
		c.W.Int(int64(m.StringLen()))
		return
	}
	if m != nil {
		if cur, err = c.Txn.StringValue(m); err != nil {
			c.Fail(err)
			return
		}
		at = m.Expire
	}
	if len(val) == 0 {
		c.W.Int(0)
		return
	}
	if off > stringLimit(c)-int64(len(val)) { // not off+len: that overflows for offsets near 2^63
		c.W.Error(ErrStringTooLong)
		return
	}
	n := max(len(cur), int(off)+len(val))
	v := make([]byte, n)
	copy(v, cur)
	copy(v[off:], val)
	if err := c.Txn.SetString(c.Args[1], v, at); err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(int64(n))
}

func cmdGetRange(c *Ctx) {
	start, ok := c.Int(2)
	if !ok {
		return
	}
	end, ok := c.Int(3)
	if !ok {
		return
	}
	v, _, err := c.Txn.GetString(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	n := int64(len(v))
	if start < 0 && end < 0 && start > end {
		c.W.BulkString("")
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = max(start, 0), max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		c.W.BulkString("")
		return
	}
	c.W.Bulk(v[start : end+1])
}
