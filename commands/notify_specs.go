package commands

import (
	"bytes"
	"strings"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/num"
)

// The events each write command emits, as notifySpecs keyed by command name (notifiers); the
// functions that build most of them are in notify_builders.go.

// Shorthands for the spec table.
const (
	evGen  = config.NotifyGeneric
	evStr  = config.NotifyString
	evList = config.NotifyList
	evSet  = config.NotifySet
	evHash = config.NotifyHash
	evZSet = config.NotifyZSet
)

var evFlush = notifySpec{
	pre: func(n *notifier) {
		c := n.c
		if c.KE.Flush == nil || !c.KE.Watching() || !c.Txn.Exclusive() {
			return
		}
		if dbs := evFlushDBs(c); len(dbs) > 0 {
			c.KE.Flush(c, dbs, c.Cmd.Name == "swapdb")
		}
	},
	post: func(n *notifier) {},
}

// notifiers lists the event recorders of the write commands, by command name.
var notifiers = map[string]notifySpec{
	// strings
	"set": {pre: evPreExists(1), post: func(n *notifier) {
		args := n.c.Args
		set := true
		switch {
		case evHasOpt(args, 3, "nx"):
			set = !n.pre[1]
		case evHasOpt(args, 3, "xx"):
			set = n.pre[1]
		}
		if !set || !evHasOpt(args, 3, "get") && n.null() {
			return
		}
		n.emit(evStr, "set", args[1])
		if evHasOpt(args, 3, "ex", "px", "exat", "pxat") {
			n.emit(evGen, "expire", args[1])
		}
	}},
	"setnx": evIfInt(evStr, "set"),
	"setex": {post: func(n *notifier) {
		n.emit(evStr, "set", n.c.Args[1])
		n.emit(evGen, "expire", n.c.Args[1])
	}},
	"psetex": {post: func(n *notifier) {
		n.emit(evStr, "set", n.c.Args[1])
		n.emit(evGen, "expire", n.c.Args[1])
	}},
	"getset": evSimple(evStr, "set"),
	"getdel": {post: func(n *notifier) {
		if !n.null() {
			n.emit(evGen, "del", n.c.Args[1])
		}
	}},
	"getex": {pre: func(n *notifier) {
		n.pre = []bool{false}
		if m, err := n.c.Txn.GetMeta(n.c.Args[1]); err == nil && m != nil && m.Expire != 0 {
			n.pre[0] = true // had a TTL: PERSIST removes it
		}
	}, post: func(n *notifier) {
		args := n.c.Args
		switch {
		case n.null():
		case evHasOpt(args, 2, "persist"):
			if n.pre[0] {
				n.emit(evGen, "persist", args[1])
			}
		case evHasOpt(args, 2, "ex", "px", "exat", "pxat"):
			if n.exists(args[1]) {
				n.emit(evGen, "expire", args[1])
			} else {
				n.emit(evGen, "del", args[1])
			}
		}
	}},
	"mset": {post: func(n *notifier) {
		for i := 1; i+1 < len(n.c.Args); i += 2 {
			n.emit(evStr, "set", n.c.Args[i])
		}
	}},
	"msetnx": {post: func(n *notifier) {
		if n.int() == 1 {
			for i := 1; i+1 < len(n.c.Args); i += 2 {
				n.emit(evStr, "set", n.c.Args[i])
			}
		}
	}},
	"append": evSimple(evStr, "append"),
	"setrange": {post: func(n *notifier) {
		if len(n.c.Args[3]) > 0 {
			n.emit(evStr, "setrange", n.c.Args[1])
		}
	}},
	"incr":        evSimple(evStr, "incrby"),
	"decr":        evSimple(evStr, "incrby"),
	"incrby":      evSimple(evStr, "incrby"),
	"decrby":      evSimple(evStr, "incrby"),
	"incrbyfloat": evSimple(evStr, "incrbyfloat"),
	"setbit": {post: func(n *notifier) {
		if n.wrote() { // a bit set to the value it has changes nothing
			n.emit(evStr, "setbit", n.c.Args[1])
		}
	}},
	"bitfield": {post: func(n *notifier) {
		if evHasOpt(n.c.Args, 2, "set", "incrby") && n.wrote() {
			n.emit(evStr, "setbit", n.c.Args[1])
		}
	}},
	"pfadd":   evIfInt(evStr, "pfadd"),
	"pfmerge": evSimple(evStr, "pfadd"), // a merge is a mass add
	"bitop": {pre: evPreExists(2), post: func(n *notifier) {
		dst := n.c.Args[2]
		if n.int() > 0 {
			n.emit(evStr, "set", dst)
		} else if n.pre[2] {
			n.emit(evGen, "del", dst)
		}
	}},

	// generic
	"del":       evDel,
	"unlink":    evDel,
	"expire":    evExpire,
	"pexpire":   evExpire,
	"expireat":  evExpire,
	"pexpireat": evExpire,
	"persist":   evIfInt(evGen, "persist"),
	"rename":    evRename,
	"renamenx":  evRename,
	"copy": {post: func(n *notifier) {
		if n.int() != 1 {
			return
		}
		db := n.c.Client.DB
		for i := 3; i+1 < len(n.c.Args); i++ {
			if strings.EqualFold(string(n.c.Args[i]), "db") {
				if v, err := num.ParseInt(n.c.Args[i+1]); err == nil {
					db = int(v)
				}
			}
		}
		n.c.Events = append(n.c.Events, Event{Class: evGen, Name: "copy_to", DB: db, Key: n.c.Args[2]})
	}},
	"move": {post: func(n *notifier) {
		if n.int() != 1 {
			return
		}
		db, _ := num.ParseInt(n.c.Args[2])
		n.emit(evGen, "move_from", n.c.Args[1])
		n.c.Events = append(n.c.Events, Event{Class: evGen, Name: "move_to", DB: int(db), Key: n.c.Args[1]})
	}},
	"flushdb":  evFlush,
	"flushall": evFlush,
	"swapdb":   evFlush,
	// RESTORE emits "restore", or "del" when a TTL already past removed the key REPLACE named;
	// MIGRATE emits "del" for each key it moved off (none with COPY).
	"restore":        evRestore,
	"restore-asking": evRestore,
	"migrate":        evMigrate,

	// lists
	"lpush":      evIfInt(evList, "lpush"),
	"rpush":      evIfInt(evList, "rpush"),
	"lpushx":     evIfInt(evList, "lpush"),
	"rpushx":     evIfInt(evList, "rpush"),
	"lpop":       evRemoval(evList, "lpop", false),
	"rpop":       evRemoval(evList, "rpop", false),
	"linsert":    evIfInt(evList, "linsert"),
	"lset":       evSimple(evList, "lset"),
	"lrem":       evRemoval(evList, "lrem", true),
	"rpoplpush":  evLMove(0),
	"lmove":      evLMove(3),
	"brpoplpush": evLMove(0),
	"blmove":     evLMove(3),
	"blpop":      evPopKey(func(*notifier) string { return "lpop" }),
	"brpop":      evPopKey(func(*notifier) string { return "rpop" }),
	"lmpop":      evPopKey(evPopDirection(1)),
	"blmpop":     evPopKey(evPopDirection(2)),
	"ltrim": {pre: evPreExists(1), post: func(n *notifier) {
		if n.pre[1] {
			n.emit(evList, "ltrim", n.c.Args[1])
			n.emitDel(n.c.Args[1])
		}
	}},

	// hashes
	"hset":         evSimple(evHash, "hset"),
	"hmset":        evSimple(evHash, "hset"),
	"hsetnx":       evIfInt(evHash, "hset"),
	"hdel":         evRemoval(evHash, "hdel", true),
	"hincrby":      evSimple(evHash, "hincrby"),
	"hincrbyfloat": evSimple(evHash, "hincrbyfloat"),

	// sets
	"sadd": evIfInt(evSet, "sadd"),
	"srem": evRemoval(evSet, "srem", true),
	"spop": evRemoval(evSet, "spop", false),
	"smove": {pre: func(n *notifier) {
		n.pre = []bool{false}
		ok, err := n.c.Txn.SetIsMember(n.c.Args[2], n.c.Args[3])
		n.pre[0] = err == nil && ok
	}, post: func(n *notifier) {
		args := n.c.Args
		if n.int() != 1 || bytes.Equal(args[1], args[2]) {
			return
		}
		n.emit(evSet, "srem", args[1])
		n.emitDel(args[1])
		if !n.pre[0] {
			n.emit(evSet, "sadd", args[2])
		}
	}},
	"sinterstore": evStore(evSet, "sinterstore"),
	// SORT ... STORE: "sortstore" on a non-empty result, "del" when an empty one removed the
	// destination.
	"sort": {pre: func(n *notifier) {
		n.pre = make([]bool, 1)
		if keys := sortKeys(n.c.Args); len(keys) == 2 {
			n.pre[0] = n.exists(keys[1])
		}
	}, post: func(n *notifier) {
		keys := sortKeys(n.c.Args)
		switch {
		case len(keys) < 2:
		case n.int() > 0:
			n.emit(evList, "sortstore", keys[1])
		case n.pre[0]:
			n.emit(evGen, "del", keys[1])
		}
	}},
	"sunionstore": evStore(evSet, "sunionstore"),
	"sdiffstore":  evStore(evSet, "sdiffstore"),

	// sorted sets
	"zadd": {post: func(n *notifier) {
		if evHasOpt(n.c.Args, 2, "incr") {
			if !n.null() {
				n.emit(evZSet, "zincr", n.c.Args[1])
			}
		} else if n.wrote() {
			n.emit(evZSet, "zadd", n.c.Args[1])
		}
	}},
	"zincrby":          evSimple(evZSet, "zincr"),
	"zrem":             evRemoval(evZSet, "zrem", true),
	"zremrangebyrank":  evRemoval(evZSet, "zremrangebyrank", true),
	"zremrangebyscore": evRemoval(evZSet, "zremrangebyscore", true),
	"zremrangebylex":   evRemoval(evZSet, "zremrangebylex", true),
	"zpopmin":          evRemoval(evZSet, "zpopmin", false),
	"zpopmax":          evRemoval(evZSet, "zpopmax", false),
	"zmpop":            evZMPop(2),
	"bzmpop":           evZMPop(3),
	"bzpopmin":         evZPopKey("zpopmin"),
	"bzpopmax":         evZPopKey("zpopmax"),

	// scripts: their writes are not seen one by one here (they run their commands in their
	// own contexts and commit themselves), so a script fails the WATCH of every key it
	// declares, before it runs, while it holds the store; and a write script in EXEC counts
	// as writing all its declared keys.
	"eval":    evScript,
	"evalsha": evScript,
	"fcall":   evScript,
	"geoadd": {post: func(n *notifier) {
		if n.wrote() {
			n.emit(evZSet, "zadd", n.c.Args[1])
		}
	}},
	"georadius":         evGeoStore("georadiusstore", 6),
	"georadiusbymember": evGeoStore("georadiusstore", 5),
	"geosearchstore":    evGeoStore("geosearchstore", 0),
	"zunionstore":       evStore(evZSet, "zunionstore"),
	"zinterstore":       evStore(evZSet, "zinterstore"),
	"zdiffstore":        evStore(evZSet, "zdiffstore"),
	"zrangestore":       evStore(evZSet, "zrangestore"),
}

var evExpire = notifySpec{post: func(n *notifier) {
	if n.int() != 1 {
		return
	}
	if n.exists(n.c.Args[1]) {
		n.emit(evGen, "expire", n.c.Args[1])
	} else {
		n.emit(evGen, "del", n.c.Args[1])
	}
}}

var evRename = notifySpec{post: func(n *notifier) {
	args := n.c.Args
	r := n.reply()
	ok := bytes.HasPrefix(r, []byte("+OK")) || n.int() == 1
	if !ok || bytes.Equal(args[1], args[2]) {
		return
	}
	n.emit(evGen, "rename_from", args[1])
	n.emit(evGen, "rename_to", args[2])
}}

var evDel = notifySpec{pre: func(n *notifier) {
	n.pre = make([]bool, len(n.c.Args))
	for i := 1; i < len(n.c.Args); i++ {
		n.pre[i] = n.exists(n.c.Args[i])
	}
}, post: func(n *notifier) {
	for i := 1; i < len(n.c.Args); i++ {
		if !n.pre[i] {
			continue
		}
		dup := false
		for j := 1; j < i; j++ {
			dup = dup || bytes.Equal(n.c.Args[j], n.c.Args[i])
		}
		if !dup {
			n.emit(evGen, "del", n.c.Args[i])
		}
	}
},
}

var evRestore = notifySpec{pre: evPreExists(1), post: func(n *notifier) {
	key := n.c.Args[1]
	if n.exists(key) {
		n.emit(evGen, "restore", key)
	} else if n.pre[1] {
		n.emit(evGen, "del", key)
	}
}}

var evMigrate = notifySpec{pre: func(n *notifier) {
	first, _ := migrateKeyRange(n.c.Args)
	evPreExists(intRange(first, len(n.c.Args))...)(n)
}, post: func(n *notifier) {
	first, num := migrateKeyRange(n.c.Args)
	for i := first; i < first+num; i++ {
		dup := false
		for j := first; j < i; j++ {
			dup = dup || bytes.Equal(n.c.Args[j], n.c.Args[i])
		}
		if n.pre[i] && !dup && !n.exists(n.c.Args[i]) {
			n.emit(evGen, "del", n.c.Args[i])
		}
	}
}}

var evScript = notifySpec{
	pre: func(n *notifier) {
		c := n.c
		if c.KE.Touch == nil || !c.KE.Watching() {
			return
		}
		for _, k := range scriptKeys(c.Args) {
			c.KE.Touch(c.Client.DB, k)
		}
	},
	post: func(n *notifier) { n.c.Tracked = false },
}
