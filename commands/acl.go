package commands

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-db/strata/internal/cmddoc"
	"github.com/strata-db/strata/internal/glob"
)

// This file holds Redis 7.0's access control lists: users with passwords, command, key and
// channel permissions (root selector plus optional "(...)" selectors), the ACL command, AUTH
// and HELLO AUTH against users, the permission check the dispatcher runs after authentication
// (CheckACL), the ACL LOG, and the ACL file. Behaviour, rule syntax, error texts and the
// ACL LIST description follow Redis 7.0.15's acl.c.
//
// The command universe the rules range over is Strata's command table plus every Redis 7.0
// command and subcommand of cmddoc.Redis (internal/cmddoc), with Redis's categories, so that
// rules naming commands Strata lacks are accepted and ACL LIST/GETUSER/CAT describe rules as
// Redis does.

func init() {
	register(&Command{Name: "acl", Arity: -2, Flags: FlagNoScript | FlagLoading | FlagStale, Handler: cmdACL,
		Sub: aclSubNames()})
}

// Redis 7.0's ACL categories, in its order (ACL CAT, the ACL LIST description).
var aclCategories = []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous",
	"connection", "transaction", "scripting"}

func aclCategoryBit(name string) uint32 {
	for i, c := range aclCategories {
		if strings.EqualFold(c, name) {
			return 1 << i
		}
	}
	return 0
}

// aclCmd is one command or subcommand of the ACL command universe.
type aclCmd struct {
	id       int
	name     string // full lower-case name: "get", "config|get"
	cats     uint32 // category bits
	parent   *aclCmd
	subs     []*aclCmd
	noAuth   bool   // allowed before AUTH: never denied by command rules
	arity    int    // Redis's arity of a subcommand, 0 if unknown
	keyFlags string // key access of its key specs (aclKeySpecs)
	redis70  bool   // a Redis 7.0 command: counted when describing rules by categories
}

type aclTable struct {
	top    []*aclCmd          // top-level commands by name
	byName map[string]*aclCmd // every command and subcommand by full name
	n      int                // number of commands; bit n is the "future commands" bit of +@all
	words  int
}

var aclTabOnce struct {
	sync.Once
	t *aclTable
}

// aclCommands returns the command universe, built on first use (after every init registered
// its commands).
func aclCommands() *aclTable {
	aclTabOnce.Do(func() { aclTabOnce.t = buildACLTable() })
	return aclTabOnce.t
}

func buildACLTable() *aclTable {
	t := &aclTable{byName: map[string]*aclCmd{}}
	add := func(name string, parent *aclCmd, flags Flag, noAuth bool) {
		if t.byName[name] != nil {
			return
		}
		m, inRedis := cmddoc.Redis[name]
		e := &aclCmd{name: name, parent: parent, noAuth: noAuth, keyFlags: aclKeySpecs[name],
			redis70: inRedis && !strings.HasPrefix(m.Since, "7.2")}
		for _, c := range commandACL(name, flags) {
			e.cats |= aclCategoryBit(strings.TrimPrefix(c, "@"))
		}
		if parent != nil {
			e.arity = cmddoc.Redis[name].Arity
			parent.subs = append(parent.subs, e)
		} else {
			t.top = append(t.top, e)
		}
		t.byName[name] = e
	}
	for _, cmd := range All() {
		add(cmd.Name, nil, cmd.Flags, cmd.Flags&FlagNoAuth != 0)
		for _, s := range cmd.Sub {
			add(cmd.Name+"|"+s, t.byName[cmd.Name], cmd.Flags, false)
		}
	}
	var names []string
	for name := range cmddoc.Redis {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !strings.Contains(name, "|") {
			add(name, nil, 0, name == "auth" || name == "hello" || name == "quit")
		}
	}
	for _, name := range names {
		if base, _, ok := strings.Cut(name, "|"); ok && t.byName[base] != nil {
			add(name, t.byName[base], 0, false)
		}
	}
	sort.Slice(t.top, func(i, j int) bool { return t.top[i].name < t.top[j].name })
	for _, e := range t.top {
		e.id = t.n
		t.n++
		sort.Slice(e.subs, func(i, j int) bool { return e.subs[i].name < e.subs[j].name })
		for _, s := range e.subs {
			s.id = t.n
			t.n++
		}
	}
	t.words = (t.n + 1 + 63) / 64
	return t
}

// lookup finds a command as Redis's ACLLookupCommand does: "name" or "container|sub",
// case-insensitively; nil if unknown.
func (t *aclTable) lookup(name string) *aclCmd {
	parts := strings.Split(strings.ToLower(name), "|")
	switch {
	case len(parts) > 2:
		return nil
	case len(parts) == 1:
		return t.byName[parts[0]]
	}
	base := t.byName[parts[0]]
	if base == nil || len(base.subs) == 0 {
		return nil
	}
	return t.byName[parts[0]+"|"+parts[1]]
}

// walk calls f for every command, each container followed by its subcommands.
func (t *aclTable) walk(f func(e *aclCmd)) {
	for _, e := range t.top {
		f(e)
		for _, s := range e.subs {
			f(s)
		}
	}
}

// aclKeySpecs gives, for each Redis 7.0 command with key specs, the access its keys need, one
// letter per key spec in order: r (read: ACCESS), w (write: INSERT, DELETE or UPDATE), b (both),
// n (neither, e.g. EXISTS). A trailing '*' marks Redis's VARIABLE_FLAGS (decided per call).
// The i-th key a command names takes the i-th spec, the keys past the last spec the last one.
// Generated from redis-server 7.0.15's COMMAND INFO (key-spec flags, NOT_KEY specs left out).
var aclKeySpecs = map[string]string{
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
	"smismember": "r", "smove": "bw", "sort": "rrw", "sort_ro": "rr", "spop": "b",
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

// Key permissions of a key pattern (%R~, %W~, ~).
const (
	aclKeyRead  = 1
	aclKeyWrite = 2
	aclKeyAll   = aclKeyRead | aclKeyWrite
)

type aclKeyPattern struct {
	flags   int
	pattern string
	glob    []byte // pattern, for matching
}

func (p aclKeyPattern) String() string {
	switch p.flags {
	case aclKeyRead:
		return "%R~" + p.pattern
	case aclKeyWrite:
		return "%W~" + p.pattern
	}
	return "~" + p.pattern
}

// aclSelector is a set of command, key and channel permissions: a user's root selector or one
// of its "(...)" selectors. A command is allowed when one selector allows it with its keys and
// channels.
type aclSelector struct {
	root                              bool
	allKeys, allChannels, allCommands bool
	bits                              []uint64 // allowed command ids, plus the future-commands bit
	firstArgs                         map[int][]string
	keys                              []aclKeyPattern
	channels                          []string
}

func newSelector(root bool) *aclSelector {
	return &aclSelector{root: root, bits: make([]uint64, aclCommands().words)}
}

func (s *aclSelector) clone() *aclSelector {
	d := *s
	d.bits = append([]uint64(nil), s.bits...)
	d.keys = append([]aclKeyPattern(nil), s.keys...)
	d.channels = append([]string(nil), s.channels...)
	d.firstArgs = nil
	for id, fa := range s.firstArgs {
		if d.firstArgs == nil {
			d.firstArgs = map[int][]string{}
		}
		d.firstArgs[id] = append([]string(nil), fa...)
	}
	return &d
}

func (s *aclSelector) bit(id int) bool { return s.bits[id/64]&(1<<(id%64)) != 0 }

// setBit sets or clears a command bit; clearing one ends "allcommands", as in Redis.
func (s *aclSelector) setBit(id int, v bool) {
	if v {
		s.bits[id/64] |= 1 << (id % 64)
	} else {
		s.bits[id/64] &^= 1 << (id % 64)
		s.allCommands = false
	}
}

// changePerm allows or denies a command; for a container, all its subcommands too.
func (s *aclSelector) changePerm(e *aclCmd, allow bool) {
	s.setBit(e.id, allow)
	delete(s.firstArgs, e.id)
	for _, sub := range e.subs {
		s.setBit(sub.id, allow)
	}
}

func (s *aclSelector) setCategory(cat uint32, allow bool) {
	for _, e := range aclCommands().top {
		if e.cats&cat != 0 {
			s.changePerm(e, allow)
		}
		for _, sub := range e.subs {
			if sub.cats&cat != 0 {
				s.changePerm(sub, allow)
			}
		}
	}
}

// countCategory counts the Redis 7.0 commands of a category the selector allows and denies.
// Strata's own commands are left out, so that rules are described as Redis describes them.
func (s *aclSelector) countCategory(cat uint32) (on, off int) {
	aclCommands().walk(func(e *aclCmd) {
		if e.cats&cat != 0 && e.redis70 {
			if s.bit(e.id) {
				on++
			} else {
				off++
			}
		}
	})
	return on, off
}

// Errors of rule application, with Redis's texts (ACLSetUserStringError).
var (
	errACLUnknown       = errors.New("Unknown command or category name in ACL")
	errACLSyntax        = errors.New("Syntax error")
	errACLKeysAfterAll  = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	errACLChansAfterAll = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	errACLNoSuchPass    = errors.New("The password you are trying to remove from the user does not exist")
	errACLBadHash       = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
	errACLFirstArgSub   = errors.New("Allowing first-arg of a subcommand is not supported")
)

// hasSpaces reports whether s holds white space or NUL (Redis's ACLStringHasSpaces).
func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// set applies one selector rule (Redis's ACLSetSelector).
func (s *aclSelector) set(op string) error {
	t := aclCommands()
	eq := func(w string) bool { return strings.EqualFold(op, w) }
	switch {
	case eq("allkeys") || op == "~*":
		s.allKeys, s.keys = true, nil
	case eq("resetkeys"):
		s.allKeys, s.keys = false, nil
	case eq("allchannels") || op == "&*":
		s.allChannels, s.channels = true, nil
	case eq("resetchannels"):
		s.allChannels, s.channels = false, nil
	case eq("allcommands") || eq("+@all"):
		for i := range s.bits {
			s.bits[i] = math.MaxUint64
		}
		s.allCommands, s.firstArgs = true, nil
	case eq("nocommands") || eq("-@all"):
		clear(s.bits)
		s.allCommands, s.firstArgs = false, nil
	case op[0] == '~' || op[0] == '%':
		if s.allKeys {
			return errACLKeysAfterAll
		}
		flags, off := aclKeyAll, 1
		if op[0] == '%' {
			flags = 0
			for ; off < len(op); off++ {
				if ch := op[off] | 0x20; ch == 'r' && flags&aclKeyRead == 0 {
					flags |= aclKeyRead
				} else if ch == 'w' && flags&aclKeyWrite == 0 {
					flags |= aclKeyWrite
				} else if op[off] == '~' && flags != 0 {
					off++
					break
				} else {
					return errACLSyntax
				}
			}
			if flags == 0 {
				return errACLSyntax
			}
		}
		pat := op[off:]
		if hasSpaces(pat) {
			return errACLSyntax
		}
		for i := range s.keys {
			if s.keys[i].pattern == pat {
				s.keys[i].flags |= flags
				return nil
			}
		}
		s.keys = append(s.keys, aclKeyPattern{flags, pat, []byte(pat)})
	case op[0] == '&':
		if s.allChannels {
			return errACLChansAfterAll
		}
		pat := op[1:]
		if hasSpaces(pat) {
			return errACLSyntax
		}
		for _, c := range s.channels {
			if c == pat {
				return nil
			}
		}
		s.channels = append(s.channels, pat)
	case (op[0] == '+' || op[0] == '-') && len(op) > 1 && op[1] == '@':
		cat := aclCategoryBit(op[2:])
		if cat == 0 {
			return errACLUnknown
		}
		s.setCategory(cat, op[0] == '+')
	case op[0] == '+':
		name := op[1:]
		i := strings.LastIndexByte(name, '|')
		if i < 0 {
			e := t.lookup(name)
			if e == nil {
				return errACLUnknown
			}
			s.changePerm(e, true)
			return nil
		}
		e := t.lookup(name[:i])
		switch {
		case e == nil:
			return errACLUnknown
		case e.parent != nil:
			return errACLFirstArgSub
		case i == len(name)-1:
			return errACLSyntax
		case len(e.subs) > 0:
			sub := t.lookup(name)
			if sub == nil {
				return errACLUnknown
			}
			s.changePerm(sub, true)
		default:
			// +select|0: that first argument of an otherwise denied command.
			arg := name[i+1:]
			for _, a := range s.firstArgs[e.id] {
				if strings.EqualFold(a, arg) {
					return nil
				}
			}
			if s.firstArgs == nil {
				s.firstArgs = map[int][]string{}
			}
			s.firstArgs[e.id] = append(s.firstArgs[e.id], arg)
		}
	case op[0] == '-':
		e := t.lookup(op[1:])
		if e == nil {
			return errACLUnknown
		}
		s.changePerm(e, false)
	default:
		return errACLSyntax
	}
	return nil
}

// describeCommands returns the command rules of s as Redis's ACLDescribeSelectorCommandRules
// does: "+@all" or "-@all", the categories that best fit the allowed commands, then the single
// commands (and first arguments) that differ.
func (s *aclSelector) describeCommands() string {
	t := aclCommands()
	fake := newSelector(false)
	additive := !s.bit(t.n)
	rules := []string{"-@all"}
	if !additive {
		rules[0] = "+@all"
		fake.set("+@all")
	}
	temp := &aclSelector{bits: append([]uint64(nil), s.bits...)}
	applied := make([]bool, len(aclCategories))
	sign := func(plus bool) string {
		if plus {
			return "+"
		}
		return "-"
	}
	for {
		best, mindiff, maxsame := -1, math.MaxInt, 0
		for j := range aclCategories {
			if applied[j] {
				continue
			}
			on, off := temp.countCategory(1 << j)
			diff, same := off, on
			if !additive {
				diff, same = on, off
			}
			if same > diff && (diff < mindiff || diff == mindiff && same > maxsame) {
				best, mindiff, maxsame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		fake.setCategory(1<<best, additive)
		temp.setCategory(1<<best, !additive)
		rules = append(rules, sign(additive)+"@"+aclCategories[best])
		applied[best] = true
	}
	var single func(list []*aclCmd)
	single = func(list []*aclCmd) {
		for _, e := range list {
			ub := s.bit(e.id)
			if ub != fake.bit(e.id) {
				rules = append(rules, sign(ub)+e.name)
				fake.changePerm(e, ub)
			}
			single(e.subs)
			if !ub {
				for _, a := range s.firstArgs[e.id] {
					rules = append(rules, "+"+e.name+"|"+a)
				}
			}
		}
	}
	single(t.top)
	return strings.Join(rules, " ")
}

func (s *aclSelector) keysString() string {
	if s.allKeys {
		return "~*"
	}
	out := make([]string, len(s.keys))
	for i, p := range s.keys {
		out[i] = p.String()
	}
	return strings.Join(out, " ")
}

func (s *aclSelector) channelsString() string {
	if s.allChannels {
		return "&*"
	}
	out := make([]string, len(s.channels))
	for i, c := range s.channels {
		out[i] = "&" + c
	}
	return strings.Join(out, " ")
}

// describe returns the selector as ACL LIST shows it (ACLDescribeSelector).
func (s *aclSelector) describe() string {
	var b strings.Builder
	if k := s.keysString(); k != "" {
		b.WriteString(k)
		b.WriteByte(' ')
	}
	if s.allChannels {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		if c := s.channelsString(); c != "" {
			b.WriteString(c)
			b.WriteByte(' ')
		}
	}
	b.WriteString(s.describeCommands())
	return b.String()
}

// User flags, in the order Redis describes them.
const (
	userOn = 1 << iota
	userOff
	userNopass
	userSkipSanitize
	userSanitize
)

var userFlagNames = []struct {
	f    int
	name string
}{{userOn, "on"}, {userOff, "off"}, {userNopass, "nopass"}, {userSkipSanitize, "skip-sanitize-payload"},
	{userSanitize, "sanitize-payload"}}

// userRules is an immutable snapshot of a user's settings; ACL SETUSER builds a new one.
type userRules struct {
	flags        int
	passwords    []string // SHA-256 hex of each password
	selectors    []*aclSelector
	unrestricted bool // one selector allowing every command, key and channel: nothing to check
}

func newUserRules() *userRules {
	return &userRules{flags: userOff, selectors: []*aclSelector{newSelector(true)}}
}

func (r *userRules) clone() *userRules {
	d := &userRules{flags: r.flags, passwords: append([]string(nil), r.passwords...)}
	for _, s := range r.selectors {
		d.selectors = append(d.selectors, s.clone())
	}
	return d
}

func (r *userRules) seal() *userRules {
	root := r.selectors[0]
	r.unrestricted = len(r.selectors) == 1 && root.allCommands && root.allKeys && root.allChannels
	return r
}

// hashPassword returns the SHA-256 hex digest Redis stores for a password.
func hashPassword(p []byte) string {
	h := sha256.Sum256(p)
	return hex.EncodeToString(h[:])
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// set applies one user rule (Redis's ACLSetUser).
func (r *userRules) set(op string) error {
	if op == "" {
		return nil
	}
	eq := func(w string) bool { return strings.EqualFold(op, w) }
	switch {
	case eq("on"):
		r.flags = r.flags&^userOff | userOn
	case eq("off"):
		r.flags = r.flags&^userOn | userOff
	case eq("skip-sanitize-payload"):
		r.flags = r.flags&^userSanitize | userSkipSanitize
	case eq("sanitize-payload"):
		r.flags = r.flags&^userSkipSanitize | userSanitize
	case eq("nopass"):
		r.flags |= userNopass
		r.passwords = nil
	case eq("resetpass"):
		r.flags &^= userNopass
		r.passwords = nil
	case op[0] == '>' || op[0] == '#':
		h := op[1:]
		if op[0] == '>' {
			h = hashPassword([]byte(h))
		} else if !validHash(h) {
			return errACLBadHash
		}
		found := false
		for _, p := range r.passwords {
			found = found || p == h
		}
		if !found {
			r.passwords = append(r.passwords, h)
		}
		r.flags &^= userNopass
	case op[0] == '<' || op[0] == '!':
		h := op[1:]
		if op[0] == '<' {
			h = hashPassword([]byte(h))
		} else if !validHash(h) {
			return errACLBadHash
		}
		for i, p := range r.passwords {
			if p == h {
				r.passwords = append(r.passwords[:i:i], r.passwords[i+1:]...)
				return nil
			}
		}
		return errACLNoSuchPass
	case op[0] == '(' && op[len(op)-1] == ')':
		s := newSelector(false)
		args, _ := splitArgs(op[1 : len(op)-1])
		for _, a := range args {
			if err := s.set(a); err != nil {
				return err
			}
		}
		r.selectors = append(r.selectors, s)
	case eq("clearselectors"):
		r.selectors = r.selectors[:1]
	case eq("reset"):
		for _, o := range []string{"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload",
			"clearselectors", "-@all"} {
			r.set(o)
		}
	default:
		return r.selectors[0].set(op)
	}
	return nil
}

// describe returns the user's rules as ACL LIST shows them (ACLDescribeUser).
func (r *userRules) describe() string {
	var b strings.Builder
	for _, f := range userFlagNames {
		if r.flags&f.f != 0 {
			b.WriteString(f.name)
			b.WriteByte(' ')
		}
	}
	for _, p := range r.passwords {
		b.WriteByte('#')
		b.WriteString(p)
		b.WriteByte(' ')
	}
	for _, s := range r.selectors {
		if s.root {
			b.WriteString(s.describe())
		} else {
			b.WriteString(" (" + s.describe() + ")")
		}
	}
	return b.String()
}

// mergeSelectorArgs joins "(" ... ")" selector rules spread over several arguments into one
// (Redis's ACLMergeSelectorArguments). bad is the index of an unclosed selector's first
// argument, or -1.
func mergeSelectorArgs(args []string) (merged []string, bad int) {
	open := -1
	var cur string
	for i, op := range args {
		if open < 0 && len(op) > 0 && op[0] == '(' && op[len(op)-1] != ')' {
			open, cur = i, op
			continue
		}
		if open >= 0 {
			cur += " " + op
			if len(op) > 0 && op[len(op)-1] == ')' {
				open = -1
				merged = append(merged, cur)
			}
			continue
		}
		merged = append(merged, op)
	}
	if open >= 0 {
		return nil, open
	}
	return merged, -1
}

// ACLUser is an ACL user. Connections hold the user they are authenticated as; ACL SETUSER
// replaces its rules in place, so they apply to those connections at once, as in Redis.
type ACLUser struct {
	Name  string
	rules atomic.Pointer[userRules]
	acl   *ACL
}

func (u *ACLUser) get() *userRules { return u.rules.Load() }

// MayUseChannel reports whether u may subscribe to a channel, or (pattern) to a pattern, which
// is compared literally with the user's channel patterns, as Redis's ACLUserCheckChannelPerm.
func (u *ACLUser) MayUseChannel(name []byte, pattern bool) bool {
	for _, s := range u.get().selectors {
		if s.allChannels {
			return true
		}
		for _, p := range s.channels {
			if pattern && p == string(name) || !pattern && glob.Match([]byte(p), name, false) {
				return true
			}
		}
	}
	return false
}

// SubscriberKiller is implemented by Envs with pub/sub (the server): after ACL SETUSER changed
// a user, it closes the connections of that user subscribed to channels or patterns it may no
// longer use (MayUseChannel), as Redis's ACLKillPubsubClientsIfNeeded. self is the calling
// client, closed after its reply if it is one of them.
type SubscriberKiller interface {
	KillRevokedSubscribers(self *Client, u *ACLUser)
}

// aclLogEntry is one ACL LOG entry.
type aclLogEntry struct {
	count            int64
	reason           aclReason
	context          string
	object, username string
	ctime            time.Time
	cinfo            string
}

// ACL is a server's users, ACL log and requirepass bookkeeping.
type ACL struct {
	mu      sync.Mutex // guards users and changes of rules
	users   map[string]*ACLUser
	def     *ACLUser
	reqpass atomic.Pointer[string] // requirepass last applied to the default user

	logMu sync.Mutex
	log   []*aclLogEntry // newest first
}

// NewACL returns an ACL with only the default user ("on nopass ~* &* +@all").
func NewACL() *ACL {
	a := &ACL{users: map[string]*ACLUser{}}
	a.def = &ACLUser{Name: "default", acl: a}
	a.def.rules.Store(defaultUserRules())
	a.users["default"] = a.def
	return a
}

func defaultUserRules() *userRules {
	r := newUserRules()
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		r.set(op)
	}
	return r.seal()
}

// ACLEnv is implemented by Envs with users (the server). Without it, commands run unchecked
// and AUTH checks requirepass only.
type ACLEnv interface {
	ACL() *ACL
}

func aclOf(c *Ctx) *ACL {
	if e, ok := c.Env.(ACLEnv); ok {
		return e.ACL()
	}
	return nil
}

// Default returns the default user, which new connections run as.
func (a *ACL) Default() *ACLUser { return a.def }

// User returns the user called name, or nil.
func (a *ACL) User(name string) *ACLUser {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.users[name]
}

// DefaultNopass reports whether the default user needs no password (Redis's protected mode
// and AUTH <password> look at this).
func (a *ACL) DefaultNopass() bool { return a.def.get().flags&userNopass != 0 }

// DefaultAuthed reports whether a new connection starts authenticated: the default user needs
// no password and is on.
func (a *ACL) DefaultAuthed() bool {
	r := a.def.get()
	return r.flags&userNopass != 0 && r.flags&userOff == 0
}

// AuthRequired reports whether connections that have not authenticated must (Redis's
// authRequired): the default user has a password or is off.
func (a *ACL) AuthRequired() bool { return !a.DefaultAuthed() }

// authRequired is AuthRequired after making requirepass, which CONFIG SET may have changed, the
// default user's password.
func (a *ACL) authRequired(requirepass string) bool {
	a.SyncRequirePass(requirepass)
	return a.AuthRequired()
}

// SyncRequirePass makes requirepass the default user's password when it changed since the
// last call (startup, CONFIG SET): "resetpass >pass", or "nopass" for an empty one, as Redis's
// ACLUpdateDefaultUserPassword. It is cheap when nothing changed.
func (a *ACL) SyncRequirePass(pass string) {
	if p := a.reqpass.Load(); p != nil && *p == pass {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if p := a.reqpass.Load(); p != nil && *p == pass {
		return
	}
	r := a.def.get().clone()
	r.set("resetpass")
	if pass != "" {
		r.set(">" + pass)
	} else {
		r.set("nopass")
	}
	a.def.rules.Store(r.seal())
	a.reqpass.Store(&pass)
}

// credentials returns the user that user and pass authenticate, or nil.
func (a *ACL) credentials(user, pass []byte) *ACLUser {
	a.mu.Lock()
	u := a.users[string(user)]
	a.mu.Unlock()
	if u == nil {
		return nil
	}
	r := u.get()
	if r.flags&userOff != 0 {
		return nil
	}
	if r.flags&userNopass != 0 {
		return u
	}
	h := hashPassword(pass)
	ok := false
	for _, p := range r.passwords {
		if subtle.ConstantTimeCompare([]byte(h), []byte(p)) == 1 {
			ok = true
		}
	}
	if ok {
		return u
	}
	return nil
}

// authenticate logs the client in as user, or logs the failure in the ACL LOG (object: the
// command name as sent) and returns false.
func (a *ACL) authenticate(c *Ctx, user, pass []byte) bool {
	u := a.credentials(user, pass)
	if u == nil {
		a.addLog(c, aclDeniedAuth, "toplevel", string(c.Args[0]), string(user), strings.ToLower(string(c.Args[0])))
		return false
	}
	c.Client.Authed, c.Client.User, c.Client.ACLUser = true, u.Name, u
	return true
}

// aclAuth implements AUTH [username] password against the users (connection.go calls it).
func aclAuth(c *Ctx, a *ACL) {
	a.SyncRequirePass(c.Env.Config().RequirePass)
	user, pass := []byte("default"), c.Args[len(c.Args)-1]
	if len(c.Args) == 2 {
		if a.DefaultNopass() {
			c.W.Error(ErrAuthNotSet)
			return
		}
	} else {
		user = c.Args[1]
	}
	if !a.authenticate(c, user, pass) {
		c.W.Error(ErrWrongPass)
		return
	}
	c.W.OK()
}

// userExists reports whether CLIENT KILL USER may name user.
func userExists(c *Ctx, user string) bool {
	if a := aclOf(c); a != nil {
		return a.User(user) != nil
	}
	return user == "default"
}

// Reasons of a denial, in Redis's order (the highest wins among selectors).
type aclReason int

const (
	aclOK aclReason = iota
	aclDeniedCmd
	aclDeniedKey
	aclDeniedAuth
	aclDeniedChannel
)

// aclResolve returns the universe entry a call runs: the subcommand of a container when
// args[1] names one, else the command. ok is false for a known subcommand called with the
// wrong number of arguments, which the handler answers before anything runs (Redis checks
// arity before ACLs).
func aclResolve(cmd *Command, args [][]byte) (e *aclCmd, ok bool) {
	t := aclCommands()
	e = t.byName[cmd.Name]
	if e == nil {
		return nil, false
	}
	if len(e.subs) > 0 && len(args) > 1 {
		for _, s := range e.subs {
			if n := len(e.name) + 1; len(s.name)-n == len(args[1]) && strings.EqualFold(s.name[n:], string(args[1])) {
				if s.arity != 0 && !subArityOK(s.arity, len(args)) {
					return s, false
				}
				return s, true
			}
		}
	}
	return e, true
}

type aclKeyRef struct {
	key  []byte
	need int
}

// aclKeys appends to dst the keys a call names and the access each needs, as Redis's
// getKeysFromCommandWithSpecs and key-spec flags; kb is room for the keys.
func aclKeys(e *aclCmd, cmd *Command, args [][]byte, kb [][]byte, dst []aclKeyRef) []aclKeyRef {
	var keys [][]byte
	switch cmd.Name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		// Strata's scripts lock the keyspace themselves; Redis's keys are the numkeys ones.
		if len(args) > 2 {
			if n, err := ParseInt(args[2]); err == nil && n >= 0 && n <= int64(len(args)-3) {
				keys = args[3 : 3+n]
			}
		}
	case "watch":
		keys = args[1:]
	default:
		if cmd.FirstKey > 0 || cmd.Keys != nil {
			keys = cmd.AppendKeys(kb, args)
		}
	}
	if len(keys) == 0 {
		return dst
	}
	codes := e.keyFlags
	if codes == "" && e.parent != nil {
		codes = e.parent.keyFlags
	}
	if strings.HasSuffix(codes, "*") {
		codes = variableKeyFlags(cmd.Name, args)
	}
	for i, k := range keys {
		need := aclKeyRead
		if codes != "" {
			switch codes[min(i, len(codes)-1)] {
			case 'w':
				need = aclKeyWrite
			case 'b':
				need = aclKeyAll
			case 'n':
				need = 0
			}
		} else if cmd.Flags&FlagWrite != 0 {
			need = aclKeyAll
		}
		dst = append(dst, aclKeyRef{k, need})
	}
	return dst
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

// aclChannels returns the channels a publish or subscribe call names (Redis checks no others)
// and whether they are patterns.
func aclChannels(name string, args [][]byte) ([][]byte, bool) {
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

// check tells whether the selector lets the call run (Redis's ACLSelectorCheckCmd); on a
// denial it returns the reason and the denied key or channel and its index.
func (s *aclSelector) check(e *aclCmd, cmd *Command, args [][]byte, keys []aclKeyRef) (aclReason, []byte, int) {
	if !s.allCommands && !e.noAuth && !s.bit(e.id) {
		idx := 1
		if e.parent != nil {
			idx = 2
		}
		allowed := false
		if fa := s.firstArgs[e.id]; len(args) > idx {
			for _, a := range fa {
				allowed = allowed || strings.EqualFold(a, string(args[idx]))
			}
		}
		if !allowed {
			return aclDeniedCmd, nil, 0
		}
	}
	if !s.allKeys {
		for i, k := range keys {
			ok := false
			for _, p := range s.keys {
				if p.flags&k.need == k.need && glob.Match(p.glob, k.key, false) {
					ok = true
					break
				}
			}
			if !ok {
				return aclDeniedKey, k.key, i
			}
		}
	}
	if !s.allChannels {
		chans, pattern := aclChannels(cmd.Name, args)
		for i, ch := range chans {
			ok := false
			for _, p := range s.channels {
				if pattern && p == string(ch) || !pattern && glob.Match([]byte(p), ch, false) {
					ok = true
					break
				}
			}
			if !ok {
				return aclDeniedChannel, ch, i
			}
		}
	}
	return aclOK, nil, 0
}

// aclCheck tells whether u may run cmd with args (Redis's ACLCheckAllUserCommandPerm); on a
// denial it returns the reason, the command's universe entry and the denied key or channel.
func aclCheck(u *ACLUser, cmd *Command, args [][]byte) (aclReason, *aclCmd, []byte) {
	r := u.get()
	if r.unrestricted {
		return aclOK, nil, nil
	}
	e, ok := aclResolve(cmd, args)
	if !ok {
		return aclOK, e, nil
	}
	var (
		kb   [8][]byte
		refs [8]aclKeyRef
		keys []aclKeyRef
	)
	for _, s := range r.selectors {
		if !s.allKeys {
			keys = aclKeys(e, cmd, args, kb[:0], refs[:0])
			break
		}
	}
	reason, lastIdx := aclDeniedCmd, -1
	var obj []byte
	for _, s := range r.selectors {
		res, o, idx := s.check(e, cmd, args, keys)
		if res == aclOK {
			return aclOK, e, nil
		}
		if res > reason || res == reason && idx > lastIdx {
			reason, obj, lastIdx = res, o, idx
		}
	}
	return reason, e, obj
}

// aclErrorMessage is Redis's getAclErrorMessage: the reason given inside scripts and EXEC.
func aclErrorMessage(r aclReason) string {
	switch r {
	case aclDeniedCmd:
		return "can't run this command or subcommand"
	case aclDeniedKey:
		return "can't access at least one of the keys mentioned in the command arguments"
	case aclDeniedChannel:
		return "can't publish to the channel mentioned in the command"
	}
	return "lacking the permissions for the command"
}

// CheckACL reports whether the client's user may run cmd with c.Args. When it may not, it
// answers Redis's NOPERM error, records the denial in the ACL LOG under context ("toplevel",
// "multi" while queueing in MULTI) and returns false. Clients without a user (no ACLs, as in
// unit tests) may run everything.
func CheckACL(c *Ctx, cmd *Command, context string) bool {
	u := c.Client.ACLUser
	if u == nil || u.get().unrestricted {
		return true
	}
	reason, e, obj := aclCheck(u, cmd, c.Args)
	if reason == aclOK {
		return true
	}
	if a := aclOf(c); a != nil {
		a.logDenial(c, reason, context, e, obj, u.Name)
	}
	switch reason {
	case aclDeniedCmd:
		c.W.Error(fmt.Sprintf("NOPERM this user has no permissions to run the '%s' command", e.name))
	case aclDeniedKey:
		c.W.Error("NOPERM this user has no permissions to access one of the keys used as arguments")
	default:
		c.W.Error("NOPERM this user has no permissions to access one of the channels used as arguments")
	}
	return false
}

// ACLAllows reports whether the client's user may run cmd with args, logging nothing (what a
// script's redis.acl_check_cmd answers).
func ACLAllows(c *Ctx, cmd *Command, args [][]byte) bool {
	u := c.Client.ACLUser
	if u == nil {
		return true
	}
	r, _, _ := aclCheck(u, cmd, args)
	return r == aclOK
}

// aclDeny checks a call made on the client's behalf and logs a denial under context.
func aclDeny(c *Ctx, cmd *Command, args [][]byte, context string) aclReason {
	u := c.Client.ACLUser
	if u == nil || u.get().unrestricted {
		return aclOK
	}
	reason, e, obj := aclCheck(u, cmd, args)
	if reason != aclOK {
		if a := aclOf(c); a != nil {
			a.logDenial(c, reason, context, e, obj, u.Name)
		}
	}
	return reason
}

// ACLScriptDenial checks a script's redis.call on behalf of the client running the script: it
// returns "" when the client's user may run cmd with args, else Redis 7.0's error text
// ("The user executing the script can't run this command or subcommand", ...) after logging
// the denial in the ACL LOG (context "lua").
func ACLScriptDenial(c *Ctx, cmd *Command, args [][]byte) string {
	r := aclDeny(c, cmd, args, "lua")
	if r == aclOK {
		return ""
	}
	return "The user executing the script " + aclErrorMessage(r)
}

// ACLExecDenial checks a queued command when EXEC runs it, as Redis 7.0 does in case the rules
// changed since it was queued: "" when allowed, else the NOPERM error to answer for it (logged
// with context "multi"). Queueing itself should call CheckACL(c, cmd, "multi").
func ACLExecDenial(c *Ctx, cmd *Command, args [][]byte) string {
	var reason string
	switch aclDeny(c, cmd, args, "multi") {
	case aclOK:
		return ""
	case aclDeniedCmd:
		reason = "no permission to execute the command or subcommand"
	case aclDeniedKey:
		reason = "no permission to touch the specified keys"
	default:
		reason = "no permission to access one of the channels used as arguments"
	}
	return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. " +
		"This command is no longer allowed for the following reason: " + reason
}

func (a *ACL) logDenial(c *Ctx, reason aclReason, context string, e *aclCmd, obj []byte, user string) {
	object := string(obj)
	if reason == aclDeniedCmd {
		object = e.name
	}
	a.addLog(c, reason, context, object, user, e.name)
}

// addLog adds an ACL LOG entry, or bumps a similar recent one (same reason, context, object
// and user within 60 seconds, among the 10 newest), as Redis's addACLLogEntry.
func (a *ACL) addLog(c *Ctx, reason aclReason, context, object, user, cmdName string) {
	maxLen := 128
	if c.Env != nil {
		if cfg := c.Env.Config(); cfg != nil {
			maxLen = cfg.ACLLogMaxLen
		}
	}
	le := &aclLogEntry{count: 1, reason: reason, context: context, object: object, username: user,
		ctime: time.Now(), cinfo: aclClientInfo(c, cmdName)}
	a.logMu.Lock()
	defer a.logMu.Unlock()
	for i, cur := range a.log[:min(10, len(a.log))] {
		d := cur.ctime.Sub(le.ctime)
		if cur.reason == le.reason && cur.context == le.context && d < time.Minute && d > -time.Minute &&
			cur.object == le.object && cur.username == le.username {
			cur.cinfo, cur.ctime = le.cinfo, le.ctime
			cur.count++
			copy(a.log[1:i+1], a.log[:i])
			a.log[0] = cur
			return
		}
	}
	a.log = append([]*aclLogEntry{le}, a.log...)
	if len(a.log) > maxLen {
		a.log = a.log[:maxLen]
	}
}

// aclClientInfo is the client-info of an ACL LOG entry: the client's CLIENT LIST line with the
// denied command as cmd.
func aclClientInfo(c *Ctx, cmdName string) string {
	var list []ClientInfo
	if srv, ok := c.Env.(ServerEnv); ok {
		list = srv.Clients()
	}
	ci := selfInfo(c, list, cmdName)
	return clientLine(&ci, time.Now())
}

// aclFileError is the reply of ACL LOAD and ACL SAVE without an aclfile.
const aclFileError = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users " +
	"via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file " +
	"set) in order to store users in the Redis configuration."

// LoadFile replaces the users with those of an ACL file, as Redis's ACLLoadFromFile: one
// "user <name> <rules...>" per line; any error leaves the users as they were and is returned
// with Redis's text. The default user keeps its identity (connections stay with it); it is
// reset to "on nopass ~* &* +@all" when the file does not define it. It returns the users
// replaced, whose connections the caller should close.
func (a *ACL) LoadFile(path string) (replaced []*ACLUser, err error) {
	data, rerr := os.ReadFile(path)
	if rerr != nil {
		msg := rerr.Error()
		var pe *os.PathError
		if errors.As(rerr, &pe) {
			msg = pe.Err.Error()
			if len(msg) > 0 {
				msg = strings.ToUpper(msg[:1]) + msg[1:]
			}
		}
		return nil, fmt.Errorf("Error loading ACLs, opening file '%s': %s", path, msg)
	}
	var errs strings.Builder
	users := map[string]*userRules{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", path, i+1)
			continue
		}
		if hasSpaces(argv[1]) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", path, i+1, argv[1])
			continue
		}
		if users[argv[1]] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], i+1)
			continue
		}
		r := newUserRules()
		users[argv[1]] = r
		args, bad := mergeSelectorArgs(argv[2:])
		if bad >= 0 {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", path, i+1)
		}
		for _, op := range args {
			if err := r.set(strings.Trim(op, "\t\r\n")); err != nil {
				fmt.Fprintf(&errs, "%s:%d: %s. ", path, i+1, err)
			}
		}
	}
	if errs.Len() > 0 {
		errs.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
		return nil, errors.New(errs.String())
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	def := users["default"]
	if def == nil {
		def = defaultUserRules()
	}
	for name, u := range a.users {
		if name != "default" {
			u.rules.Store(newUserRules().seal())
			replaced = append(replaced, u)
		}
	}
	a.users = map[string]*ACLUser{"default": a.def}
	a.def.rules.Store(def.seal())
	for name, r := range users {
		if name != "default" {
			u := &ACLUser{Name: name, acl: a}
			u.rules.Store(r.seal())
			a.users[name] = u
		}
	}
	return replaced, nil
}

// list returns "user <name> <rules>" for every user, sorted by name (ACL LIST, ACL SAVE).
func (a *ACL) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	names := make([]string, 0, len(a.users))
	for n := range a.users {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "user " + n + " " + a.users[n].get().describe()
	}
	return out
}

// SaveFile writes the users to path in ACL file format, through a temporary file renamed over it.
func (a *ACL) SaveFile(path string) error {
	var b strings.Builder
	for _, l := range a.list() {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	tmp := fmt.Sprintf("%s.tmp-%d-%d", path, os.Getpid(), time.Now().UnixMilli())
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// killUsers closes the connections authenticated as the given users (the caller's own after
// its reply), as Redis does when a user is deleted or replaced.
func killUsers(c *Ctx, users []*ACLUser) {
	srv, ok := c.Env.(ServerEnv)
	if !ok || len(users) == 0 {
		return
	}
	srv.KillClients(c.Client, func(ci *ClientInfo) bool {
		for _, u := range users {
			if ci.ACLUser == u {
				return true
			}
		}
		return false
	})
	for _, u := range users {
		if c.Client.ACLUser == u {
			c.Client.Quit = true
		}
	}
}

// ACL subcommands with their arity (counting "acl" and the subcommand).
var aclSubs = map[string]struct {
	arity   int
	handler func(c *Ctx, a *ACL)
}{
	"cat":     {-2, aclCat},
	"deluser": {-3, aclDelUser},
	"dryrun":  {-4, aclDryRun},
	"genpass": {-2, aclGenPass},
	"getuser": {3, aclGetUser},
	"help":    {2, func(c *Ctx, _ *ACL) { writeHelp(c.W, aclHelpLines) }},
	"list":    {2, aclList},
	"load":    {2, aclLoad},
	"log":     {-2, aclLog},
	"save":    {2, aclSave},
	"setuser": {-3, aclSetUser},
	"users":   {2, aclUsers},
	"whoami":  {2, aclWhoAmI},
}

func aclSubNames() []string {
	var names []string
	for n := range aclSubs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var aclHelpLines = []string{
	"ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CAT [<category>]",
	"    List all commands that belong to <category>, or all command categories",
	"    when no category is specified.",
	"DELUSER <username> [<username> ...]",
	"    Delete a list of users.",
	"DRYRUN <username> <command> [<arg> ...]",
	"    Returns whether the user can execute the given command without executing the command.",
	"GETUSER <username>",
	"    Get the user's details.",
	"GENPASS [<bits>]",
	"    Generate a secure 256-bit user password. The optional `bits` argument can",
	"    be used to specify a different size.",
	"LIST",
	"    Show users details in config file format.",
	"LOAD",
	"    Reload users from the ACL file.",
	"LOG [<count> | RESET]",
	"    Show the ACL log entries.",
	"SAVE",
	"    Save the current config to the ACL file.",
	"SETUSER <username> <attribute> [<attribute> ...]",
	"    Create or modify a user with the specified attributes.",
	"USERS",
	"    List all the registered usernames.",
	"WHOAMI",
	"    Return the current connection username.",
	"HELP",
	"    Prints this help.",
}

func cmdACL(c *Ctx) {
	name := strings.ToLower(c.Arg(1))
	sub, ok := aclSubs[name]
	if !ok {
		c.W.Error(fmt.Sprintf(ErrUnknownSub, c.Arg(1), "ACL"))
		return
	}
	if !subArityOK(sub.arity, len(c.Args)) {
		c.W.Error(fmt.Sprintf(ErrWrongArity, "acl|"+name))
		return
	}
	a := aclOf(c)
	if a == nil {
		c.W.Error("ERR this command needs a running server")
		return
	}
	a.SyncRequirePass(c.Env.Config().RequirePass)
	sub.handler(c, a)
}

// aclSyntaxError is Redis's addReplySubcommandSyntaxError.
func aclSyntaxError(c *Ctx) {
	c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%.128s'. Try ACL HELP.", c.Arg(1)))
}

func aclSetUser(c *Ctx, a *ACL) {
	name := c.Arg(2)
	if hasSpaces(name) {
		c.W.Error("ERR Usernames can't contain spaces or null characters")
		return
	}
	rawArgs := make([]string, len(c.Args)-3)
	for i, arg := range c.Args[3:] {
		rawArgs[i] = string(arg)
	}
	args, bad := mergeSelectorArgs(rawArgs)
	if bad >= 0 {
		c.W.Error(fmt.Sprintf("ERR Unmatched parenthesis in acl selector starting at '%s'.", rawArgs[bad]))
		return
	}
	a.mu.Lock()
	u := a.users[name]
	existed := u != nil
	r := newUserRules()
	if existed {
		r = u.get().clone()
	}
	for _, op := range args {
		if err := r.set(op); err != nil {
			a.mu.Unlock()
			c.W.Error(fmt.Sprintf("ERR Error in ACL SETUSER modifier '%s': %s", op, err))
			return
		}
	}
	if !existed {
		u = &ACLUser{Name: name, acl: a}
		a.users[name] = u
	}
	u.rules.Store(r.seal())
	a.mu.Unlock()
	if k, ok := c.Env.(SubscriberKiller); ok && existed {
		k.KillRevokedSubscribers(c.Client, u)
	}
	c.W.OK()
}

func aclDelUser(c *Ctx, a *ACL) {
	for _, n := range c.Args[2:] {
		if string(n) == "default" {
			c.W.Error("ERR The 'default' user cannot be removed")
			return
		}
	}
	var gone []*ACLUser
	a.mu.Lock()
	for _, n := range c.Args[2:] {
		if u := a.users[string(n)]; u != nil {
			delete(a.users, string(n))
			u.rules.Store(newUserRules().seal()) // connections still holding it can do nothing
			gone = append(gone, u)
		}
	}
	a.mu.Unlock()
	killUsers(c, gone)
	c.W.Int(int64(len(gone)))
}

func aclGetUser(c *Ctx, a *ACL) {
	u := a.User(c.Arg(2))
	if u == nil {
		c.W.Null()
		return
	}
	r := u.get()
	c.W.Map(6)
	c.W.BulkString("flags")
	n := 0
	for _, f := range userFlagNames {
		if r.flags&f.f != 0 {
			n++
		}
	}
	c.W.Set(n)
	for _, f := range userFlagNames {
		if r.flags&f.f != 0 {
			c.W.BulkString(f.name)
		}
	}
	c.W.BulkString("passwords")
	c.W.Array(len(r.passwords))
	for _, p := range r.passwords {
		c.W.BulkString(p)
	}
	writeSelector := func(s *aclSelector) {
		c.W.BulkString("commands")
		c.W.BulkString(s.describeCommands())
		c.W.BulkString("keys")
		c.W.BulkString(s.keysString())
		c.W.BulkString("channels")
		c.W.BulkString(s.channelsString())
	}
	writeSelector(r.selectors[0])
	c.W.BulkString("selectors")
	c.W.Array(len(r.selectors) - 1)
	for _, s := range r.selectors[1:] {
		c.W.Map(3)
		writeSelector(s)
	}
}

func aclList(c *Ctx, a *ACL) {
	l := a.list()
	c.W.Array(len(l))
	for _, s := range l {
		c.W.BulkString(s)
	}
}

func aclUsers(c *Ctx, a *ACL) {
	a.mu.Lock()
	names := make([]string, 0, len(a.users))
	for n := range a.users {
		names = append(names, n)
	}
	a.mu.Unlock()
	sort.Strings(names)
	c.W.Array(len(names))
	for _, n := range names {
		c.W.BulkString(n)
	}
}

func aclWhoAmI(c *Ctx, _ *ACL) {
	name := c.Client.User
	if c.Client.ACLUser != nil {
		name = c.Client.ACLUser.Name
	}
	if name == "" {
		name = "default"
	}
	c.W.BulkString(name)
}

func aclCat(c *Ctx, _ *ACL) {
	switch len(c.Args) {
	case 2:
		c.W.Array(len(aclCategories))
		for _, cat := range aclCategories {
			c.W.BulkString(cat)
		}
	case 3:
		bit := aclCategoryBit(c.Arg(2))
		if bit == 0 {
			c.W.Error(fmt.Sprintf("ERR Unknown category '%.128s'", c.Arg(2)))
			return
		}
		var names []string
		aclCommands().walk(func(e *aclCmd) {
			if e.cats&bit != 0 {
				names = append(names, e.name)
			}
		})
		c.W.Array(len(names))
		for _, n := range names {
			c.W.BulkString(n)
		}
	default:
		aclSyntaxError(c)
	}
}

func aclGenPass(c *Ctx, _ *ACL) {
	if len(c.Args) > 3 {
		aclSyntaxError(c)
		return
	}
	bits := int64(256)
	if len(c.Args) == 3 {
		n, ok := c.Int(2)
		if !ok {
			return
		}
		bits = n
	}
	if bits <= 0 || bits > 4096 {
		c.W.Error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
		return
	}
	chars := int((bits + 3) / 4)
	buf := make([]byte, (chars+1)/2)
	rand.Read(buf)
	c.W.BulkString(hex.EncodeToString(buf)[:chars])
}

func aclLog(c *Ctx, a *ACL) {
	if len(c.Args) > 3 {
		aclSyntaxError(c)
		return
	}
	count := int64(10)
	if len(c.Args) == 3 {
		if strings.EqualFold(c.Arg(2), "reset") {
			a.logMu.Lock()
			a.log = nil
			a.logMu.Unlock()
			c.W.OK()
			return
		}
		n, ok := c.Int(2)
		if !ok {
			return
		}
		count = max(n, 0)
	}
	a.logMu.Lock()
	entries := a.log[:min(int(min(count, math.MaxInt32)), len(a.log))]
	snap := make([]aclLogEntry, len(entries))
	for i, e := range entries {
		snap[i] = *e
	}
	a.logMu.Unlock()
	now := time.Now()
	reasons := map[aclReason]string{aclDeniedCmd: "command", aclDeniedKey: "key", aclDeniedChannel: "channel",
		aclDeniedAuth: "auth"}
	c.W.Array(len(snap))
	for _, e := range snap {
		c.W.Map(7)
		c.W.BulkString("count")
		c.W.Int(e.count)
		c.W.BulkString("reason")
		c.W.BulkString(reasons[e.reason])
		c.W.BulkString("context")
		c.W.BulkString(e.context)
		c.W.BulkString("object")
		c.W.BulkString(e.object)
		c.W.BulkString("username")
		c.W.BulkString(e.username)
		c.W.BulkString("age-seconds")
		c.W.Double(float64(now.Sub(e.ctime).Milliseconds()) / 1000)
		c.W.BulkString("client-info")
		c.W.BulkString(e.cinfo)
	}
}

func aclDryRun(c *Ctx, a *ACL) {
	u := a.User(c.Arg(2))
	if u == nil {
		c.W.Error(fmt.Sprintf("ERR User '%s' not found", c.Arg(2)))
		return
	}
	args := c.Args[3:]
	cmd := Lookup(args[0])
	if cmd == nil {
		c.W.Error(fmt.Sprintf("ERR Command '%s' not found", args[0]))
		return
	}
	e := aclCommands().byName[cmd.Name]
	arity := cmd.Arity
	if len(e.subs) > 0 && len(args) > 1 {
		se, _ := aclResolve(cmd, args)
		if se == e {
			c.W.Error(fmt.Sprintf("ERR Command '%s' not found", args[0]))
			return
		}
		e = se
		if e.arity != 0 {
			arity = e.arity
		}
	}
	if !subArityOK(arity, len(args)) {
		c.W.Error(fmt.Sprintf(ErrWrongArity, e.name))
		return
	}
	reason, _, obj := aclCheck(u, cmd, args)
	switch reason {
	case aclOK:
		c.W.OK()
	case aclDeniedCmd:
		c.W.BulkString(fmt.Sprintf("This user has no permissions to run the '%s' command", e.name))
	case aclDeniedKey:
		c.W.BulkString(fmt.Sprintf("This user has no permissions to access the '%s' key", obj))
	default:
		c.W.BulkString(fmt.Sprintf("This user has no permissions to access the '%s' channel", obj))
	}
}

func aclLoad(c *Ctx, a *ACL) {
	path := c.Env.Config().ACLFile
	if path == "" {
		c.W.Error(aclFileError)
		return
	}
	replaced, err := a.LoadFile(path)
	if err != nil {
		c.W.Error("ERR " + err.Error())
		return
	}
	killUsers(c, replaced)
	c.W.OK()
}

func aclSave(c *Ctx, a *ACL) {
	path := c.Env.Config().ACLFile
	if path == "" {
		c.W.Error(aclFileError)
		return
	}
	if err := a.SaveFile(path); err != nil {
		slog.Warn("ACL SAVE failed", "file", path, "err", err)
		c.W.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	c.W.OK()
}

// splitArgs splits a selector's rules as Redis's sdssplitargs: white space separates words,
// double quotes take \n \r \t \b \a \xHH and \" escapes, single quotes take \'. It returns
// false for unbalanced quotes.
func splitArgs(line string) ([]string, bool) {
	var out []string
	i, n := 0, len(line)
	isSpace := func(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f' }
	unhex := func(c byte) byte {
		switch {
		case c >= '0' && c <= '9':
			return c - '0'
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10
		}
		return c - 'A' + 10
	}
	isHex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	for {
		for i < n && isSpace(line[i]) {
			i++
		}
		if i >= n {
			return out, true
		}
		var cur []byte
		inDq, inSq := false, false
	word:
		for {
			switch {
			case inDq:
				if i >= n {
					return nil, false
				}
				switch ch := line[i]; {
				case ch == '\\' && i+3 < n && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					cur = append(cur, unhex(line[i+2])<<4|unhex(line[i+3]))
					i += 3
				case ch == '\\' && i+1 < n:
					i++
					esc := line[i]
					switch esc {
					case 'n':
						esc = '\n'
					case 'r':
						esc = '\r'
					case 't':
						esc = '\t'
					case 'b':
						esc = '\b'
					case 'a':
						esc = '\a'
					}
					cur = append(cur, esc)
				case ch == '"':
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, false
					}
					i++
					break word
				default:
					cur = append(cur, ch)
				}
			case inSq:
				if i >= n {
					return nil, false
				}
				switch ch := line[i]; {
				case ch == '\\' && i+1 < n && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case ch == '\'':
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, false
					}
					i++
					break word
				default:
					cur = append(cur, ch)
				}
			default:
				if i >= n {
					break word
				}
				switch ch := line[i]; {
				case isSpace(ch):
					break word
				case ch == '"':
					inDq = true
				case ch == '\'':
					inSq = true
				default:
					cur = append(cur, ch)
				}
			}
			i++
		}
		out = append(out, string(cur))
	}
}
