package commands

// The functions that build notifySpecs from a command's reply and its keys before and after the
// handler, for the table in notify_specs.go.

import (
	"bytes"
	"strings"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/num"
)

// evPreExists records which of the key arguments are live before the handler.
func evPreExists(idx ...int) func(n *notifier) {
	return func(n *notifier) {
		n.pre = make([]bool, len(n.c.Args))
		for _, i := range idx {
			if i < 0 {
				i += len(n.c.Args)
			}
			if i > 0 && i < len(n.c.Args) {
				n.pre[i] = n.exists(n.c.Args[i])
			}
		}
	}
}

// evHasOpt reports whether an argument from index from on equals one of opts, case-insensitively.
func evHasOpt(args [][]byte, from int, opts ...string) bool {
	for i := from; i < len(args); i++ {
		for _, o := range opts {
			if strings.EqualFold(string(args[i]), o) {
				return true
			}
		}
	}
	return false
}

// evSimple emits event on the key at argument 1 for any successful reply.
func evSimple(class uint32, event string) notifySpec {
	return notifySpec{post: func(n *notifier) { n.emit(class, event, n.c.Args[1]) }}
}

// evIfInt emits event on key argument 1 when the integer reply is positive.
func evIfInt(class uint32, event string) notifySpec {
	return notifySpec{post: func(n *notifier) {
		if n.int() > 0 {
			n.emit(class, event, n.c.Args[1])
		}
	}}
}

// evRemoval emits event on key argument 1 when the reply says something was removed (a positive
// integer or a non-null reply), and "del" when that emptied the key.
func evRemoval(class uint32, event string, byInt bool) notifySpec {
	return notifySpec{post: func(n *notifier) {
		if byInt && n.int() <= 0 || !byInt && n.null() {
			return
		}
		key := n.c.Args[1]
		n.emit(class, event, key)
		n.emitDel(key)
	}}
}

// evStore emits event on the destination (argument 1) of a *STORE command, or "del" when the
// result is empty and the destination existed.
func evStore(class uint32, event string) notifySpec {
	return notifySpec{pre: evPreExists(1), post: func(n *notifier) {
		dst := n.c.Args[1]
		if n.int() > 0 {
			n.emit(class, event, dst)
		} else if n.pre[1] {
			n.emit(config.NotifyGeneric, "del", dst)
		}
	}}
}

// evPopKey emits the pop event for a list command whose reply names the key: BLPOP's
// [key, value] and LMPOP's [key, [values]].
func evPopKey(event func(n *notifier) string) notifySpec {
	return notifySpec{post: func(n *notifier) {
		if n.null() {
			return
		}
		key := evFirstBulk(n.reply())
		if key == nil {
			return
		}
		for _, a := range n.c.Args[1:] { // the key argument, so the event keeps no reply bytes
			if bytes.Equal(a, key) {
				key = a
				break
			}
		}
		n.emit(config.NotifyList, event(n), key)
		n.emitDel(key)
	}}
}

// evFirstBulk returns the first bulk string inside an array reply.
func evFirstBulk(r []byte) []byte {
	i := bytes.Index(r, []byte("\r\n$"))
	if i < 0 || r[0] != '*' && r[0] != '>' {
		return nil
	}
	r = r[i+3:]
	j := bytes.IndexByte(r, '\r')
	if j < 0 {
		return nil
	}
	l, err := num.ParseInt(r[:j])
	if err != nil || l < 0 || int(l)+j+2 > len(r) {
		return nil
	}
	return r[j+2 : j+2+int(l)]
}

// evLMove emits RPOPLPUSH/LMOVE/BLMOVE's events: the push on the destination, the pop on the
// source, and "del" if the source is empty.
func evLMove(whereArg int) notifySpec {
	return notifySpec{post: func(n *notifier) {
		if n.null() {
			return
		}
		args := n.c.Args
		from, to := "rpop", "lpush"
		if whereArg > 0 {
			from = "rpop"
			if strings.EqualFold(string(args[whereArg]), "left") {
				from = "lpop"
			}
			to = "rpush"
			if strings.EqualFold(string(args[whereArg+1]), "left") {
				to = "lpush"
			}
		}
		n.emit(config.NotifyList, to, args[2])
		n.emit(config.NotifyList, from, args[1])
		n.emitDel(args[1])
	}}
}

// evPopDirection returns "lpop" or "rpop" from the LEFT|RIGHT argument after numkeys keys.
func evPopDirection(numkeysAt int) func(n *notifier) string {
	return func(n *notifier) string {
		nk, err := num.ParseInt(n.c.Args[numkeysAt])
		i := numkeysAt + 1 + int(nk)
		if err == nil && i < len(n.c.Args) && strings.EqualFold(string(n.c.Args[i]), "left") {
			return "lpop"
		}
		return "rpop"
	}
}

func evFlushDBs(c *Ctx) []int {
	switch c.Cmd.Name {
	case "flushall":
		dbs := make([]int, c.Store.Databases())
		for i := range dbs {
			dbs[i] = i
		}
		return dbs
	case "swapdb":
		a, err1 := num.ParseInt(c.Args[1])
		b, err2 := num.ParseInt(c.Args[2])
		n := int64(c.Store.Databases())
		if err1 != nil || err2 != nil || a < 0 || b < 0 || a >= n || b >= n {
			return nil
		}
		return []int{int(a), int(b)}
	}
	return []int{c.Client.DB}
}

// evGeoStore emits event on the destination of a geo search that stores, or "del" when
// nothing was found and the destination existed. base is the index of the first optional
// argument of GEORADIUS and GEORADIUSBYMEMBER, whose destination follows their last STORE or
// STOREDIST; 0 means the destination is argument 1 (GEOSEARCHSTORE).
func evGeoStore(event string, base int) notifySpec {
	dest := func(args [][]byte) int {
		if base == 0 {
			return 1
		}
		at := -1
		for i := base; i+1 < len(args); i++ {
			if zfold(args[i], "store") || zfold(args[i], "storedist") {
				at = i + 1
				i++
			}
		}
		return at
	}
	return notifySpec{
		pre: func(n *notifier) {
			n.pre = make([]bool, len(n.c.Args))
			if d := dest(n.c.Args); d > 0 {
				n.pre[d] = n.exists(n.c.Args[d])
			}
		},
		post: func(n *notifier) {
			d := dest(n.c.Args)
			if d < 0 || n.reply()[0] != ':' {
				return
			}
			if n.int() > 0 {
				n.emit(evZSet, event, n.c.Args[d])
			} else if n.pre != nil && n.pre[d] {
				n.emit(evGen, "del", n.c.Args[d])
			}
		},
	}
}

// evZMPop is ZMPOP's and BZMPOP's recorder (keys from argument from on): the reply names the
// key; MIN or MAX gives the event.
func evZMPop(from int) notifySpec {
	return notifySpec{post: func(n *notifier) {
		if n.null() {
			return
		}
		key := evFirstBulk(n.reply())
		for _, a := range n.c.Args[from:] {
			if bytes.Equal(a, key) {
				key = a
				break
			}
		}
		if key == nil {
			return
		}
		event := "zpopmin"
		if evHasOpt(n.c.Args, from, "max") {
			event = "zpopmax"
		}
		n.emit(evZSet, event, key)
		n.emitDel(key)
	}}
}

// intRange returns the integers from lo up to, not including, hi.
func intRange(lo, hi int) []int {
	var out []int
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// evZPopKey is BZPOPMIN's and BZPOPMAX's recorder: the reply is [key, member, score].
func evZPopKey(event string) notifySpec {
	return notifySpec{post: func(n *notifier) {
		if n.null() {
			return
		}
		key := evFirstBulk(n.reply())
		for _, a := range n.c.Args[1:] {
			if bytes.Equal(a, key) {
				key = a
				break
			}
		}
		if key == nil {
			return
		}
		n.emit(evZSet, event, key)
		n.emitDel(key)
	}}
}

// scriptKeys returns the declared keys of EVAL, EVALSHA and FCALL: numkeys, then the keys.
func scriptKeys(args [][]byte) [][]byte {
	if len(args) < 3 {
		return nil
	}
	nk, err := num.ParseInt(args[2])
	if err != nil || nk < 0 || int64(len(args)-3) < nk {
		return nil
	}
	return args[3 : 3+nk]
}
