package commands

import (
	"fmt"
	"math"
	"strings"
)

func init() {
	register(
		&Command{Name: "expire", Arity: -3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdExpire},
		&Command{Name: "pexpire", Arity: -3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdExpire},
		&Command{Name: "expireat", Arity: -3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdExpire},
		&Command{Name: "pexpireat", Arity: -3, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdExpire},
		&Command{Name: "ttl", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdTTL},
		&Command{Name: "pttl", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdTTL},
		&Command{Name: "expiretime", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdTTL},
		&Command{Name: "pexpiretime", Arity: 2, Flags: FlagReadonly | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdTTL},
		&Command{Name: "persist", Arity: 2, Flags: FlagWrite | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdPersist},
	)
}

// Condition flags of EXPIRE and its siblings.
const (
	expireNX = 1 << iota
	expireXX
	expireGT
	expireLT
)

// cmdExpire implements EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT as Redis 7.0's
// expireGenericCommand does: options first, then the time (with overflow checks), then the key.
// A time at or before now deletes the key. Times are kept in milliseconds.
func cmdExpire(c *Ctx) {
	flags := 0
	for _, a := range c.Args[3:] {
		switch strings.ToLower(string(a)) {
		case "nx":
			flags |= expireNX
		case "xx":
			flags |= expireXX
		case "gt":
			flags |= expireGT
		case "lt":
			flags |= expireLT
		default:
			c.W.Error("ERR Unsupported option " + string(a))
			return
		}
	}
	if flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0 {
		c.W.Error("ERR NX and XX, GT or LT options at the same time are not compatible")
		return
	}
	if flags&expireGT != 0 && flags&expireLT != 0 {
		c.W.Error("ERR GT and LT options at the same time are not compatible")
		return
	}
	when, ok := c.Int(2)
	if !ok {
		return
	}
	name := c.Cmd.Name
	if name == "expire" || name == "expireat" {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.W.Error(fmt.Sprintf(ErrInvalidExpire, name))
			return
		}
		when *= 1000
	}
	if name == "expire" || name == "pexpire" {
		base := c.Txn.Now()
		if when > math.MaxInt64-base {
			c.W.Error(fmt.Sprintf(ErrInvalidExpire, name))
			return
		}
		when += base
	}
	key := c.Args[1]
	m, ok := metaOrZero(c, c.Client.DB, key)
	if !ok {
		return
	}
	cur := m.Expire // 0: no expiry, which GT and LT treat as infinite
	switch {
	case flags&expireNX != 0 && cur != 0,
		flags&expireXX != 0 && cur == 0,
		flags&expireGT != 0 && (cur == 0 || when <= cur),
		flags&expireLT != 0 && cur != 0 && when >= cur:
		c.W.Int(0)
		return
	}
	var err error
	if when <= c.Txn.Now() {
		_, err = c.Txn.Delete(key)
		c.effectDelete("lazyfree-lazy-expire", key)
	} else {
		m.Expire = when
		err = c.Txn.PutMeta(key, m)
		if name != "pexpireat" {
			c.effectArgs(verbPExpireAt, 2, numArg(when)) // the options stay
		}
	}
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(1)
}

// cmdTTL implements TTL, PTTL, EXPIRETIME and PEXPIRETIME: -2 for a missing key, -1 for a key
// without expiry; seconds are rounded to the nearest as Redis does ((ms+500)/1000).
func cmdTTL(c *Ctx) {
	m, err := c.Txn.GetMeta(c.Args[1])
	switch {
	case err != nil:
		c.Fail(err)
		return
	case m == nil:
		c.W.Int(-2)
		return
	case m.Expire == 0:
		c.W.Int(-1)
		return
	}
	v := m.Expire
	if name := c.Cmd.Name; name == "ttl" || name == "pttl" {
		v = max(v-c.Txn.Now(), 0)
	}
	if name := c.Cmd.Name; name == "ttl" || name == "expiretime" {
		v = v/1000 + (v%1000+500)/1000 // (v+500)/1000 without overflow near MaxInt64
	}
	c.W.Int(v)
}

func cmdPersist(c *Ctx) {
	m, err := c.Txn.GetMeta(c.Args[1])
	if err != nil {
		c.Fail(err)
		return
	}
	if m == nil || m.Expire == 0 {
		c.W.Int(0)
		return
	}
	m.Expire = 0
	if err := c.Txn.PutMeta(c.Args[1], m); err != nil {
		c.Fail(err)
		return
	}
	c.W.Int(1)
}
