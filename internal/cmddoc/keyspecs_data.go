package cmddoc

// Code generated from Redis 7.0.15's COMMAND INFO (key specifications) and its command
// table (the commands with a getkeys procedure). DO NOT EDIT.

// KeySpecs holds each command's and subcommand's key specifications, in Redis's order.
var KeySpecs = map[string][]KeySpec{
	"append": {
		{Flags: "RW insert", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"bitcount": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"bitfield": {
		{Notes: "This command allows both access and modification of the key", Flags: "RW access update variable_flags", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"bitfield_ro": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"bitop": {
		{Flags: "OW update", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
		{Flags: "RO access", Begin: "index", Index: 3, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"bitpos": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"blmove": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RW insert", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"blmpop": {
		{Flags: "RW access delete", Begin: "index", Index: 2, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"blpop": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", LastKey: -2, KeyStep: 1},
	},
	"brpop": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", LastKey: -2, KeyStep: 1},
	},
	"brpoplpush": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RW insert", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"bzmpop": {
		{Flags: "RW access delete", Begin: "index", Index: 2, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"bzpopmax": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", LastKey: -2, KeyStep: 1},
	},
	"bzpopmin": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", LastKey: -2, KeyStep: 1},
	},
	"copy": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "OW update", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"decr": {
		{Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"decrby": {
		{Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"del": {
		{Flags: "RM delete", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"dump": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"eval": {
		{Notes: "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE", Flags: "RW access update", Begin: "index", Index: 2, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"eval_ro": {
		{Notes: "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS", Flags: "RO access", Begin: "index", Index: 2, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"evalsha": {
		{Flags: "RW access update", Begin: "index", Index: 2, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"evalsha_ro": {
		{Flags: "RO access", Begin: "index", Index: 2, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"exists": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"expire": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"expireat": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"expiretime": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"fcall": {
		{Notes: "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE", Flags: "RW access update", Begin: "index", Index: 2, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"fcall_ro": {
		{Notes: "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS", Flags: "RO access", Begin: "index", Index: 2, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"geoadd": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"geodist": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"geohash": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"geopos": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"georadius": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "OW update", Begin: "keyword", Keyword: "STORE", From: 6, Find: "range", KeyStep: 1},
		{Flags: "OW update", Begin: "keyword", Keyword: "STOREDIST", From: 6, Find: "range", KeyStep: 1},
	},
	"georadius_ro": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"georadiusbymember": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "OW update", Begin: "keyword", Keyword: "STORE", From: 5, Find: "range", KeyStep: 1},
		{Flags: "OW update", Begin: "keyword", Keyword: "STOREDIST", From: 5, Find: "range", KeyStep: 1},
	},
	"georadiusbymember_ro": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"geosearch": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"geosearchstore": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RO access", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"get": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"getbit": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"getdel": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"getex": {
		{Notes: "RW and UPDATE because it changes the TTL", Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"getrange": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"getset": {
		{Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hdel": {
		{Flags: "RW delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hexists": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hget": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hgetall": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hincrby": {
		{Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hincrbyfloat": {
		{Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hkeys": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hlen": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hmget": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hmset": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hrandfield": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hscan": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hset": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hsetnx": {
		{Flags: "RW insert", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hstrlen": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"hvals": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"incr": {
		{Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"incrby": {
		{Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"incrbyfloat": {
		{Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"lcs": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", LastKey: 1, KeyStep: 1},
	},
	"lindex": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"linsert": {
		{Flags: "RW insert", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"llen": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"lmove": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RW insert", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"lmpop": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"lpop": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"lpos": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"lpush": {
		{Flags: "RW insert", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"lpushx": {
		{Flags: "RW insert", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"lrange": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"lrem": {
		{Flags: "RW delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"lset": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"ltrim": {
		{Flags: "RW delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"memory|usage": {
		{Flags: "RO", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"mget": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"migrate": {
		{Flags: "RW access delete", Begin: "index", Index: 3, Find: "range", KeyStep: 1},
		{Flags: "RW access delete incomplete", Begin: "keyword", Keyword: "KEYS", From: -2, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"move": {
		{Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"mset": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 2},
	},
	"msetnx": {
		{Flags: "OW insert", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 2},
	},
	"object|encoding": {
		{Flags: "RO", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"object|freq": {
		{Flags: "RO", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"object|idletime": {
		{Flags: "RO", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"object|refcount": {
		{Flags: "RO", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"persist": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"pexpire": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"pexpireat": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"pexpiretime": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"pfadd": {
		{Flags: "RW insert", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"pfcount": {
		{Notes: "RW because it may change the internal representation of the key, and propagate to replicas", Flags: "RW access", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"pfdebug": {
		{Flags: "RW access", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"pfmerge": {
		{Flags: "RW access insert", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RO access", Begin: "index", Index: 2, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"psetex": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"pttl": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"rename": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "OW update", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"renamenx": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "OW insert", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"restore": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"restore-asking": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"rpop": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"rpoplpush": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RW insert", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"rpush": {
		{Flags: "RW insert", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"rpushx": {
		{Flags: "RW insert", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"sadd": {
		{Flags: "RW insert", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"scard": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"sdiff": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"sdiffstore": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RO access", Begin: "index", Index: 2, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"set": {
		{Notes: "RW and ACCESS due to the optional `GET` argument", Flags: "RW access update variable_flags", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"setbit": {
		{Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"setex": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"setnx": {
		{Flags: "OW insert", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"setrange": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"sinter": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"sintercard": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"sinterstore": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RO access", Begin: "index", Index: 2, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"sismember": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"smembers": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"smismember": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"smove": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RW insert", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"sort": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort", Flags: "RO access", Begin: "unknown", Find: "unknown"},
		{Notes: "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array", Flags: "OW update", Begin: "unknown", Find: "unknown"},
	},
	"sort_ro": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort", Flags: "RO access", Begin: "unknown", Find: "unknown"},
	},
	"spop": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"spublish": {
		{Flags: "not_key", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"srandmember": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"srem": {
		{Flags: "RW delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"sscan": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"ssubscribe": {
		{Flags: "not_key", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"strlen": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"substr": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"sunion": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"sunionstore": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RO access", Begin: "index", Index: 2, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"sunsubscribe": {
		{Flags: "not_key", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"touch": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"ttl": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"type": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"unlink": {
		{Flags: "RM delete", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"watch": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", LastKey: -1, KeyStep: 1},
	},
	"xack": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"xadd": {
		{Notes: "UPDATE instead of INSERT because of the optional trimming feature", Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"xautoclaim": {
		{Flags: "RW delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"xclaim": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"xdel": {
		{Flags: "RW delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"xgroup|create": {
		{Flags: "RW insert", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"xgroup|createconsumer": {
		{Flags: "RW insert", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"xgroup|delconsumer": {
		{Flags: "RW delete", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"xgroup|destroy": {
		{Flags: "RW delete", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"xgroup|setid": {
		{Flags: "RW update", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"xinfo|consumers": {
		{Flags: "RO access", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"xinfo|groups": {
		{Flags: "RO access", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"xinfo|stream": {
		{Flags: "RO access", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"xlen": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"xpending": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"xrange": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"xread": {
		{Flags: "RO access", Begin: "keyword", Keyword: "STREAMS", From: 1, Find: "range", LastKey: -1, KeyStep: 1, Limit: 2},
	},
	"xreadgroup": {
		{Flags: "RO access", Begin: "keyword", Keyword: "STREAMS", From: 4, Find: "range", LastKey: -1, KeyStep: 1, Limit: 2},
	},
	"xrevrange": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"xsetid": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"xtrim": {
		{Flags: "RW delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zadd": {
		{Flags: "RW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zcard": {
		{Flags: "RO", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zcount": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zdiff": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"zdiffstore": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RO access", Begin: "index", Index: 2, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"zincrby": {
		{Flags: "RW access update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zinter": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"zintercard": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"zinterstore": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RO access", Begin: "index", Index: 2, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"zlexcount": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zmpop": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"zmscore": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zpopmax": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zpopmin": {
		{Flags: "RW access delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zrandmember": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zrange": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zrangebylex": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zrangebyscore": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zrangestore": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RO access", Begin: "index", Index: 2, Find: "range", KeyStep: 1},
	},
	"zrank": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zrem": {
		{Flags: "RW delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zremrangebylex": {
		{Flags: "RW delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zremrangebyrank": {
		{Flags: "RW delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zremrangebyscore": {
		{Flags: "RW delete", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zrevrange": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zrevrangebylex": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zrevrangebyscore": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zrevrank": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zscan": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zscore": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
	},
	"zunion": {
		{Flags: "RO access", Begin: "index", Index: 1, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
	"zunionstore": {
		{Flags: "OW update", Begin: "index", Index: 1, Find: "range", KeyStep: 1},
		{Flags: "RO access", Begin: "index", Index: 2, Find: "keynum", KeyStep: 1, FirstKey: 1},
	},
}

// KeysProc lists the commands whose keys Redis also finds with a procedure of its own (used when
// their specifications are incomplete, give variable flags, or fail on the arguments).
var KeysProc = map[string]bool{
	"bitfield":          true,
	"blmpop":            true,
	"bzmpop":            true,
	"eval":              true,
	"eval_ro":           true,
	"evalsha":           true,
	"evalsha_ro":        true,
	"fcall":             true,
	"fcall_ro":          true,
	"georadius":         true,
	"georadiusbymember": true,
	"lmpop":             true,
	"migrate":           true,
	"set":               true,
	"sintercard":        true,
	"sort":              true,
	"sort_ro":           true,
	"xread":             true,
	"xreadgroup":        true,
	"zdiff":             true,
	"zdiffstore":        true,
	"zinter":            true,
	"zintercard":        true,
	"zinterstore":       true,
	"zmpop":             true,
	"zunion":            true,
	"zunionstore":       true,
}

// Flags lists, for each command that has them, the flags of Redis 7.0's COMMAND INFO that
// Strata's command table does not model (skip_monitor, skip_slowlog, no_mandatory_keys,
// no_async_loading, allow_busy), in Redis's order.
var Flags = map[string]string{
	"auth":         "allow_busy",
	"bgrewriteaof": "no_async_loading",
	"bgsave":       "no_async_loading",
	"discard":      "allow_busy",
	"eval":         "skip_monitor no_mandatory_keys",
	"eval_ro":      "skip_monitor no_mandatory_keys",
	"evalsha":      "skip_monitor no_mandatory_keys",
	"evalsha_ro":   "skip_monitor no_mandatory_keys",
	"exec":         "skip_slowlog",
	"fcall":        "skip_monitor no_mandatory_keys",
	"fcall_ro":     "skip_monitor no_mandatory_keys",
	"hello":        "allow_busy",
	"multi":        "allow_busy",
	"psync":        "no_async_loading",
	"quit":         "allow_busy",
	"replconf":     "allow_busy",
	"replicaof":    "no_async_loading",
	"reset":        "allow_busy",
	"save":         "no_async_loading",
	"shutdown":     "allow_busy",
	"slaveof":      "no_async_loading",
	"sync":         "no_async_loading",
	"unwatch":      "allow_busy",
	"watch":        "allow_busy",
}
