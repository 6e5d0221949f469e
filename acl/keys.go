package acl

import "strings"

// keySpecs gives, for each Redis 7.0 command with key specs, the access its keys need, one
// letter per key spec in order: r (read: ACCESS), w (write: INSERT, DELETE or UPDATE), b (both),
// n (neither, e.g. EXISTS). A trailing '*' marks Redis's VARIABLE_FLAGS (decided per call).
// The i-th key a command names takes the i-th spec, the keys past the last spec the last one.
// Generated from redis-server 7.0.15's COMMAND INFO (key-spec flags, NOT_KEY specs left out).
var keySpecs = map[string]string{
	"append": "w", "bitcount": "r", "bitfield": "b*", "bitfield_ro": "r", "bitop": "wr",
	"bitpos": "r", "blmove": "bw", "blmpop": "b", "blpop": "b", "brpop": "b", "brpoplpush": "bw",
	"bzmpop": "b", "bzpopmax": "b", "bzpopmin": "b", "copy": "rw", "decr": "b", "decrby": "b",
	"del": "w", "dump": "r", "eval": "b", "eval_ro": "r", "evalsha": "b", "evalsha_ro": "r",
	"exists": "n", "expire": "w", "expireat": "w", "expiretime": "r", "fcall": "b",
	"fcall_ro": "r", "geoadd": "w", "geodist": "r", "geohash": "r", "geopos": "r",
	"georadius": "rww", "georadius_ro": "r", "georadiusbymember": "rww",
	"georadiusbymember_ro": "r", "geosearch": "r", "geosearchstore": "wr", "get": "r",
	"getbit": "r", "getdel": "b", "getex": "b", "getrange": "r", "getset": "b", "hdel": "w",
	"hexists": "n", "hget": "r", "hgetall": "r", "hincrby": "b", "hincrbyfloat": "b", "hkeys": "r",
	"hlen": "n", "hmget": "r", "hmset": "w", "hrandfield": "r", "hscan": "r", "hset": "w",
	"hsetnx": "w", "hstrlen": "n", "hvals": "r", "incr": "b", "incrby": "b", "incrbyfloat": "b",
	"lcs": "r", "lindex": "r", "linsert": "w", "llen": "n", "lmove": "bw", "lmpop": "b",
	"lpop": "b", "lpos": "r", "lpush": "w", "lpushx": "w", "lrange": "r", "lrem": "w", "lset": "w",
	"ltrim": "w", "memory|usage": "n", "mget": "r", "migrate": "bb", "move": "b", "mset": "w",
	"msetnx": "w", "object|encoding": "n", "object|freq": "n", "object|idletime": "n",
	"object|refcount": "n", "persist": "w", "pexpire": "w", "pexpireat": "w", "pexpiretime": "r",
	"pfadd": "w", "pfcount": "r", "pfdebug": "r", "pfmerge": "br", "psetex": "w", "pttl": "r",
	"rename": "bw", "renamenx": "bw", "restore": "w", "restore-asking": "w", "rpop": "b",
	"rpoplpush": "bw", "rpush": "w", "rpushx": "w", "sadd": "w", "scard": "n", "sdiff": "r",
	"sdiffstore": "wr", "set": "b*", "setbit": "b", "setex": "w", "setnx": "w", "setrange": "w",
	"sinter": "r", "sintercard": "r", "sinterstore": "wr", "sismember": "n", "smembers": "r",
	"smismember": "r", "smove": "bw", "sort": "rw", "sort_ro": "r", "spop": "b",
	"srandmember": "r", "srem": "w", "sscan": "r", "strlen": "n", "substr": "r", "sunion": "r",
	"sunionstore": "wr", "touch": "n", "ttl": "r", "type": "n", "unlink": "w", "watch": "n",
	"xack": "w", "xadd": "w", "xautoclaim": "w", "xclaim": "w", "xdel": "w", "xgroup|create": "w",
	"xgroup|createconsumer": "w", "xgroup|delconsumer": "w", "xgroup|destroy": "w",
	"xgroup|setid": "w", "xinfo|consumers": "r", "xinfo|groups": "r", "xinfo|stream": "r",
	"xlen": "n", "xpending": "r", "xrange": "r", "xread": "r", "xreadgroup": "r", "xrevrange": "r",
	"xsetid": "w", "xtrim": "w", "zadd": "w", "zcard": "n", "zcount": "r", "zdiff": "r",
	"zdiffstore": "wr", "zincrby": "b", "zinter": "r", "zintercard": "r", "zinterstore": "wr",
	"zlexcount": "r", "zmpop": "b", "zmscore": "r", "zpopmax": "b", "zpopmin": "b",
	"zrandmember": "r", "zrange": "r", "zrangebylex": "r", "zrangebyscore": "r",
	"zrangestore": "wr", "zrank": "r", "zrem": "w", "zremrangebylex": "w", "zremrangebyrank": "w",
	"zremrangebyscore": "w", "zrevrange": "r", "zrevrangebylex": "r", "zrevrangebyscore": "r",
	"zrevrank": "r", "zscan": "r", "zscore": "r", "zunion": "r", "zunionstore": "wr",
}

// keyRef is a key a call names and the access it needs.
type keyRef struct {
	key  []byte
	need int
}

// appendKeys appends to dst the keys a call of e names and the access each needs, as Redis's
// getKeysFromCommandWithSpecs and key-spec flags; kb is room for the keys.
func (e *Command) appendKeys(args [][]byte, kb [][]byte, dst []keyRef) []keyRef {
	top := e.top()
	var keys [][]byte
	switch top.name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		// Strata's scripts lock the keyspace themselves; Redis's keys are the numkeys ones.
		if len(args) > 2 {
			if n, ok := parseCount(args[2]); ok && n <= len(args)-3 {
				keys = args[3 : 3+n]
			}
		}
	case "watch":
		keys = args[1:]
	default:
		keys = top.keys.appendKeys(kb, args)
	}
	if len(keys) == 0 {
		return dst
	}
	codes := e.keyFlags
	if codes == "" && e.parent != nil {
		codes = e.parent.keyFlags
	}
	if strings.HasSuffix(codes, "*") {
		codes = variableKeyFlags(top.name, args)
	}
	for i, k := range keys {
		need := keyRead
		if codes != "" {
			switch codes[min(i, len(codes)-1)] {
			case 'w':
				need = keyWrite
			case 'b':
				need = keyAll
			case 'n':
				need = 0
			}
		} else if top.write {
			need = keyAll
		}
		dst = append(dst, keyRef{k, need})
	}
	return dst
}

// parseCount parses a non-negative integer as Redis's string2ll does (no sign, no leading
// zero, no spaces); ok is false for anything else.
func parseCount(b []byte) (n int, ok bool) {
	if len(b) == 1 && b[0] >= '0' && b[0] <= '9' {
		return int(b[0] - '0'), true
	}
	if len(b) == 0 || len(b) > 19 || b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if u >= 1<<63 {
		return 0, false
	}
	return int(u), true
}

// variableKeyFlags decides the key access of SET and BITFIELD from their arguments, as Redis's
// setGetKeys and bitfieldGetKeys do.
func variableKeyFlags(name string, args [][]byte) string {
	switch name {
	case "set":
		for _, a := range args[min(3, len(args)):] {
			if strings.EqualFold(string(a), "get") {
				return "b"
			}
		}
		return "w"
	case "bitfield":
		for i := 2; i < len(args); i++ {
			rem := len(args) - i - 1
			switch a := string(args[i]); {
			case strings.EqualFold(a, "get") && rem >= 2:
				i += 2
			case strings.EqualFold(a, "overflow") && rem >= 1:
				i++
			default:
				return "b"
			}
		}
		return "r"
	}
	return "b"
}

// channels returns the channels a publish or subscribe call names (Redis checks no others)
// and whether they are patterns.
func channels(name string, args [][]byte) ([][]byte, bool) {
	switch name {
	case "publish", "spublish":
		return args[1:min(2, len(args))], false
	case "subscribe", "ssubscribe":
		return args[1:], false
	case "psubscribe":
		return args[1:], true
	}
	return nil, false
}
