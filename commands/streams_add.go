package commands

import (
	"strconv"
	"strings"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

// XADD and XTRIM: their shared trimming options and the exact form they propagate in.

// trimArgs are the parsed trimming options of XADD and XTRIM.
type trimArgs struct {
	storage.StreamTrim
	set      bool
	argIdx   int // index of the MAXLEN/MINID value
	noMk     bool
	idGiven  bool
	seqGiven bool
	id       storage.StreamID
}

// parseTrimArgs parses XADD's or XTRIM's options from argument 2 and returns the index of
// XADD's ID argument, or -1 after answering an error.
func parseTrimArgs(c *Ctx, a *trimArgs, xadd bool) int {
	limitGiven := false
	i := 2
	for ; i < len(c.Args); i++ {
		more := len(c.Args) - 1 - i
		opt := c.Arg(i)
		switch {
		case xadd && opt == "*":
			return finishTrimArgs(c, a, limitGiven, i)
		case strings.EqualFold(opt, "maxlen") && more > 0, strings.EqualFold(opt, "minid") && more > 0:
			if a.set {
				c.W.Error(errStreamTrimBoth)
				return -1
			}
			a.Approx = false
			if next := c.Arg(i + 1); more >= 2 && (next == "~" || next == "=") {
				a.Approx = next == "~"
				i++
			}
			if strings.EqualFold(opt, "maxlen") {
				n, err := num.ParseInt(c.Args[i+1])
				if err != nil {
					c.W.Error(ErrNotInteger)
					return -1
				}
				if n < 0 {
					c.W.Error(errStreamMaxLen)
					return -1
				}
				a.MaxLen = uint64(n)
			} else {
				id, ok := streamIDArg(c, i+1, 0, true)
				if !ok {
					return -1
				}
				a.ByID, a.MinID = true, id
			}
			i++
			a.set, a.argIdx = true, i
		case strings.EqualFold(opt, "limit") && more > 0:
			n, err := num.ParseInt(c.Args[i+1])
			if err != nil {
				c.W.Error(ErrNotInteger)
				return -1
			}
			if n < 0 {
				c.W.Error(errStreamLimit)
				return -1
			}
			a.Limit, limitGiven = n, true
			i++
		case xadd && strings.EqualFold(opt, "nomkstream"):
			a.noMk = true
		case xadd:
			id, ok := parseStreamID(c.Args[i], 0, true, &a.seqGiven)
			if !ok {
				c.W.Error(errStreamID)
				return -1
			}
			a.id, a.idGiven = id, true
			return finishTrimArgs(c, a, limitGiven, i)
		default:
			c.W.Error(ErrSyntax)
			return -1
		}
	}
	return finishTrimArgs(c, a, limitGiven, i)
}

func finishTrimArgs(c *Ctx, a *trimArgs, limitGiven bool, i int) int {
	if a.Limit != 0 && !a.set {
		c.W.Error(errStreamLimitNoTrim)
		return -1
	}
	if c.Cmd.Name == "xtrim" && !a.set {
		c.W.Error(errStreamXTrimNone)
		return -1
	}
	switch {
	case limitGiven && !a.Approx:
		c.W.Error(errStreamLimitExact)
		return -1
	case !limitGiven && a.Approx:
		a.Limit = min(max(100*streamLimits(c).MaxEntries, 0), 1000000)
		if a.Limit <= 0 {
			a.Limit = 10000
		}
	case !limitGiven:
		a.Limit = 0
	}
	return i
}

// trimEffect rewrites an approximate trim's arguments in args to the exact outcome: MAXLEN =
// the length, or MINID = the first entry's ID (the largest ID when none is left), so that a
// replica trims the same entries.
func trimEffect(c *Ctx, args [][]byte, a *trimArgs, m *storage.Meta) bool {
	if !a.Approx {
		return true
	}
	args[a.argIdx-1] = []byte("=")
	if a.ByID {
		first, ok, err := c.Txn.StreamFirstEntry(m)
		if err != nil {
			c.Fail(err)
			return false
		}
		if !ok {
			// The trim emptied the stream (a MINID past the entry just added): the
			// largest ID, which trims anything a replica holds.
			first = storage.MaxStreamID
		}
		args[a.argIdx] = first.Append(nil)
	} else {
		args[a.argIdx] = strconv.AppendUint(nil, m.Size, 10)
	}
	return true
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [...]
func cmdXAdd(c *Ctx) {
	var a trimArgs
	idPos := parseTrimArgs(c, &a, true)
	if idPos < 0 {
		return
	}
	fields := c.Args[idPos+1:]
	if len(fields) < 2 || len(fields)%2 == 1 {
		c.W.Error(ArityError(c.Arg(0)))
		return
	}
	if a.idGiven && a.seqGiven && a.id.IsZero() {
		c.W.Error(errStreamIDZero)
		return
	}
	key := c.Args[1]
	m, err := c.Txn.PeekStreamMeta(key)
	if err != nil {
		c.Fail(err)
		return
	}
	if m == nil {
		if a.noMk {
			c.W.Null()
			return
		}
		var err error
		if m, err = c.Txn.NewStream(); err != nil {
			c.Fail(err)
			return
		}
	}
	x := m.X
	if x.Last == storage.MaxStreamID {
		c.W.Error(errStreamExhausted)
		return
	}
	var id storage.StreamID
	switch {
	case a.idGiven && a.seqGiven:
		id = a.id
	case a.idGiven && x.Last.Ms == a.id.Ms:
		if x.Last.Seq == ^uint64(0) {
			c.W.Error(errStreamIDSmall)
			return
		}
		id = storage.StreamID{Ms: x.Last.Ms, Seq: x.Last.Seq + 1}
	case a.idGiven:
		id = a.id
	default:
		now := uint64(c.Txn.Now())
		if now > x.Last.Ms {
			id = storage.StreamID{Ms: now}
		} else {
			id, _ = x.Last.Incr()
		}
	}
	if id.Cmp(x.Last) <= 0 {
		c.W.Error(errStreamIDSmall)
		return
	}
	var total int
	for _, f := range fields {
		total += len(f)
	}
	if total > 1<<30 {
		c.W.Error(errStreamTooLarge)
		return
	}
	if err := c.Txn.StreamAppend(m, id, fields, streamLimits(c)); err != nil {
		c.Fail(err)
		return
	}
	streamEvent(c, "xadd", key)
	if a.set {
		n, err := c.Txn.StreamTrimmed(m, a.StreamTrim)
		if err != nil {
			c.Fail(err)
			return
		}
		if n > 0 {
			streamEvent(c, "xtrim", key)
		}
	}
	if err := c.Txn.PutMeta(key, m); err != nil {
		c.Fail(err)
		return
	}
	if c.Propagate != nil && (a.Approx || !a.idGiven || !a.seqGiven) {
		args := append([][]byte(nil), c.Args...)
		if !trimEffect(c, args, &a, m) {
			return
		}
		if !a.idGiven || !a.seqGiven {
			args[idPos] = id.Append(nil)
		}
		c.Effect(args...)
	}
	c.Signal(key)
	var buf [41]byte
	c.W.Bulk(id.Append(buf[:0]))
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
func cmdXTrim(c *Ctx) {
	var a trimArgs
	if parseTrimArgs(c, &a, false) < 0 {
		return
	}
	key := c.Args[1]
	m, ok := streamMeta(c, key)
	if !ok {
		return
	}
	if m == nil {
		c.W.Int(0)
		return
	}
	n, err := c.Txn.StreamTrimmed(m, a.StreamTrim)
	if err != nil {
		c.Fail(err)
		return
	}
	if n > 0 {
		if err := c.Txn.PutMeta(key, m); err != nil {
			c.Fail(err)
			return
		}
		streamEvent(c, "xtrim", key)
		args := append([][]byte(nil), c.Args...)
		if !trimEffect(c, args, &a, m) {
			return
		}
		c.Effect(args...)
	}
	c.W.Int(n)
}
