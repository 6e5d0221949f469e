package commands

import (
	"strconv"
	"strings"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

// Streams: XRANGE, XREVRANGE, XLEN, XDEL, XSETID (this file); XADD and XTRIM
// (streams_add.go); XREAD and XREADGROUP (streams_read.go); consumer groups
// (streams_group.go, streams_claim.go); XINFO (streams_info.go); RDB values (streams_rdb.go).
// Entries, nodes, groups and pending lists are storage records (storage/stream.go).

func init() {
	key1 := func(c *Command) *Command { c.FirstKey, c.LastKey, c.Step = 1, 1, 1; return c }
	key2 := func(c *Command) *Command { c.FirstKey, c.LastKey, c.Step = 2, 2, 1; return c }
	register(
		key1(&Command{Name: "xadd", Arity: -5, Flags: FlagWrite | FlagDenyOOM | FlagFast, Handler: cmdXAdd}),
		key1(&Command{Name: "xrange", Arity: -4, Flags: FlagReadonly, Handler: cmdXRange}),
		key1(&Command{Name: "xrevrange", Arity: -4, Flags: FlagReadonly, Handler: cmdXRange}),
		key1(&Command{Name: "xlen", Arity: 2, Flags: FlagReadonly | FlagFast, Handler: cmdXLen}),
		key1(&Command{Name: "xdel", Arity: -3, Flags: FlagWrite | FlagFast, Handler: cmdXDel}),
		key1(&Command{Name: "xtrim", Arity: -4, Flags: FlagWrite, Handler: cmdXTrim}),
		key1(&Command{Name: "xsetid", Arity: -3, Flags: FlagWrite | FlagDenyOOM | FlagFast, Handler: cmdXSetID}),
		&Command{Name: "xread", Arity: -4, Flags: FlagReadonly | FlagBlocking, Keys: xreadKeys, Handler: cmdXRead},
		&Command{Name: "xreadgroup", Arity: -7, Flags: FlagWrite | FlagBlocking, Keys: xreadKeys, Handler: cmdXReadGroup},
		key1(&Command{Name: "xack", Arity: -4, Flags: FlagWrite | FlagFast, Handler: cmdXAck}),
		key1(&Command{Name: "xpending", Arity: -3, Flags: FlagReadonly, Handler: cmdXPending}),
		key1(&Command{Name: "xclaim", Arity: -6, Flags: FlagWrite | FlagFast, Handler: cmdXClaim}),
		key1(&Command{Name: "xautoclaim", Arity: -6, Flags: FlagWrite | FlagFast, Handler: cmdXAutoClaim}),
		key2(&Command{Name: "xgroup", Arity: -2, Flags: FlagWrite | FlagDenyOOM, Handler: cmdXGroup,
			Sub: []string{"create", "createconsumer", "delconsumer", "destroy", "help", "setid"}}),
		key2(&Command{Name: "xinfo", Arity: -2, Flags: FlagReadonly, Handler: cmdXInfo,
			Sub: []string{"consumers", "groups", "help", "stream"}}),
	)
	for _, name := range []string{"xadd", "xdel", "xtrim", "xsetid", "xreadgroup", "xack", "xclaim", "xautoclaim", "xgroup"} {
		notifiers[name] = notifySpec{post: func(*notifier) {}}
	}
}

// Stream error replies.
const (
	errStreamID          = "ERR Invalid stream ID specified as stream command argument"
	errStreamIDZero      = "ERR The ID specified in XADD must be greater than 0-0"
	errStreamExhausted   = "ERR The stream has exhausted the last possible ID, unable to add more items"
	errStreamIDSmall     = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	errStreamTooLarge    = "ERR Elements are too large to be stored"
	errStreamStart       = "ERR invalid start ID for the interval"
	errStreamEnd         = "ERR invalid end ID for the interval"
	errStreamTrimBoth    = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
	errStreamMaxLen      = "ERR The MAXLEN argument must be >= 0."
	errStreamLimit       = "ERR The LIMIT argument must be >= 0."
	errStreamLimitNoTrim = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
	errStreamXTrimNone   = "ERR syntax error, XTRIM must be called with a trimming strategy"
	errStreamLimitExact  = "ERR syntax error, LIMIT cannot be used without the special ~ option"
)

// streamEvent records a stream keyspace event on key when events are being recorded.
func streamEvent(c *Ctx, name string, key []byte) {
	if c.KE.Active() {
		c.Events = append(c.Events, Event{Class: config.NotifyStream, Name: name, DB: c.Client.DB, Key: key})
	}
}

// parseStreamID parses a stream ID as Redis does: ms[-seq], "-" and "+" unless strict, and
// ms-* when seqGiven is not nil (which is then set false). missing is the sequence of an ID
// given as ms alone.
func parseStreamID(b []byte, missing uint64, strict bool, seqGiven *bool) (storage.StreamID, bool) {
	if len(b) > 127 {
		return storage.StreamID{}, false
	}
	s := string(b)
	if seqGiven != nil {
		*seqGiven = true
	}
	switch s {
	case "-", "+":
		if strict {
			return storage.StreamID{}, false
		}
		if s == "-" {
			return storage.StreamID{}, true
		}
		return storage.MaxStreamID, true
	}
	msPart, seqPart, dash := strings.Cut(s, "-")
	ms, ok := parseULL(msPart)
	if !ok {
		return storage.StreamID{}, false
	}
	seq := missing
	if dash {
		if seqGiven != nil && seqPart == "*" {
			seq, *seqGiven = 0, false
		} else if seq, ok = parseULL(seqPart); !ok {
			return storage.StreamID{}, false
		}
	}
	return storage.StreamID{Ms: ms, Seq: seq}, true
}

// parseULL parses an unsigned 64-bit integer as Redis's string2ull: a canonical int64 that
// is not negative, or else what strtoull accepts whole (leading spaces, a sign, leading zeros;
// a minus sign wraps), short of overflow.
func parseULL(s string) (uint64, bool) {
	if v, err := num.ParseInt([]byte(s)); err == nil {
		return uint64(v), v >= 0
	}
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(s[i:], 10, 64)
	if err != nil || s[i] == '+' || s[i] == '-' {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// streamIDArg parses argument i as a stream ID, answering Redis's error.
func streamIDArg(c *Ctx, i int, missing uint64, strict bool) (storage.StreamID, bool) {
	id, ok := parseStreamID(c.Args[i], missing, strict, nil)
	if !ok {
		c.W.Error(errStreamID)
	}
	return id, ok
}

// streamIDArgs parses the arguments from i on as stream IDs (no "-" or "+").
func streamIDArgs(c *Ctx, i int) ([]storage.StreamID, bool) {
	ids := make([]storage.StreamID, 0, len(c.Args)-i)
	for ; i < len(c.Args); i++ {
		id, ok := streamIDArg(c, i, 0, true)
		if !ok {
			return nil, false
		}
		ids = append(ids, id)
	}
	return ids, true
}

// streamLimits returns stream-node-max-entries and stream-node-max-bytes, which the server
// hands to the store (Store.SetStreamLimits).
func streamLimits(c *Ctx) storage.StreamLimits {
	if c.Store == nil {
		return storage.DefaultStreamLimits
	}
	return c.Store.StreamLimits()
}

// streamMeta reads key's stream, answering WRONGTYPE or a storage error.
func streamMeta(c *Ctx, key []byte) (*storage.Meta, bool) {
	m, err := c.Txn.StreamMetaOf(key)
	if err != nil {
		c.Fail(err)
		return nil, false
	}
	return m, true
}

// writeEntry writes one entry as XRANGE does: its ID and its fields and values.
func writeEntry(c *Ctx, id storage.StreamID, fv [][]byte) {
	var buf [256]byte
	c.W.Raw(storage.AppendStreamEntry(buf[:0], id, fv))
}

// writeRange writes the entries of m in [start, end] (reverse: from end down), at most count
// (0: all), as an array; it returns false after answering a storage error.
func writeRange(c *Ctx, m *storage.Meta, start, end storage.StreamID, rev bool, count int64) bool {
	at := c.W.Len()
	if err := writeEntries(c, m, start, end, rev, count); err != nil {
		c.W.Truncate(at)
		c.Fail(err)
		return false
	}
	return true
}

// headerRoom is the space writeEntries leaves for an array header.
var headerRoom [24]byte

// writeEntries writes the entries of m in [start, end] (reverse: from end down), at most
// count (0: all), as an array. The entries go after room left for the array's header, which
// is written once their number is known and the entries moved up to it.
func writeEntries(c *Ctx, m *storage.Meta, start, end storage.StreamID, rev bool, count int64) error {
	const room = len(headerRoom) // "*", 20 digits, CRLF
	at := c.W.Len()
	c.W.Raw(headerRoom[:])
	n := 0
	err := c.Txn.StreamRangeReply(m, start, end, rev, count, func(_ storage.StreamID, reply []byte) bool {
		n++
		c.W.Raw(reply)
		return true
	})
	if err != nil {
		c.W.Truncate(at)
		return err
	}
	var hb [room]byte
	h := append(append(hb[:0], '*'), strconv.Itoa(n)...)
	h = append(h, "\r\n"...)
	out := c.W.Bytes()
	copy(out[at:], h)
	moved := copy(out[at+len(h):], out[at+room:])
	c.W.Truncate(at + len(h) + moved)
	return nil
}

// XRANGE key start end [COUNT n]; XREVRANGE key end start [COUNT n]
func cmdXRange(c *Ctx) {
	rev := c.Cmd.Name == "xrevrange"
	si, ei := 2, 3
	if rev {
		si, ei = 3, 2
	}
	start, ok := rangeStart(c, si)
	if !ok {
		return
	}
	end, ok := rangeEnd(c, ei)
	if !ok {
		return
	}
	count := int64(-1)
	for j := 4; j < len(c.Args); j++ {
		if !strings.EqualFold(c.Arg(j), "count") || j+1 >= len(c.Args) {
			c.W.Error(ErrSyntax)
			return
		}
		n, err := num.ParseInt(c.Args[j+1])
		if err != nil {
			c.W.Error(ErrNotInteger)
			return
		}
		count = max(n, 0)
		j++
	}
	m, err := c.Txn.PeekStreamMeta(c.Args[1]) // the transaction's own Meta: no allocation
	if err != nil {
		c.Fail(err)
		return
	}
	switch {
	case m == nil:
		c.W.Array(0)
	case count == 0:
		c.W.NullArray()
	default:
		writeRange(c, m, start, end, rev, max(count, 0))
	}
}

// rangeStart parses argument i as a range's start: "(" excludes the ID.
func rangeStart(c *Ctx, i int) (storage.StreamID, bool) {
	id, ex, ok := intervalID(c, i, 0)
	if ok && ex {
		if id, ok = id.Incr(); !ok {
			c.W.Error(errStreamStart)
		}
	}
	return id, ok
}

// rangeEnd parses argument i as a range's end: "(" excludes the ID; a bare ms ends at its last
// sequence.
func rangeEnd(c *Ctx, i int) (storage.StreamID, bool) {
	id, ex, ok := intervalID(c, i, ^uint64(0))
	if ok && ex {
		if id, ok = id.Decr(); !ok {
			c.W.Error(errStreamEnd)
		}
	}
	return id, ok
}

// intervalID parses a range bound: an ID, or "(" and an ID for an exclusive bound.
func intervalID(c *Ctx, i int, missing uint64) (storage.StreamID, bool, bool) {
	b := c.Args[i]
	if len(b) > 1 && b[0] == '(' {
		id, ok := parseStreamID(b[1:], missing, true, nil)
		if !ok {
			c.W.Error(errStreamID)
		}
		return id, true, ok
	}
	id, ok := streamIDArg(c, i, missing, false)
	return id, false, ok
}

// XLEN key
func cmdXLen(c *Ctx) {
	m, ok := streamMeta(c, c.Args[1])
	if !ok {
		return
	}
	if m == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(m.Size))
}

// XDEL key id [id ...]
func cmdXDel(c *Ctx) {
	key := c.Args[1]
	m, ok := streamMeta(c, key)
	if !ok {
		return
	}
	if m == nil {
		c.W.Int(0)
		return
	}
	ids, ok := streamIDArgs(c, 2)
	if !ok {
		return
	}
	var n int64
	for _, id := range ids {
		gone, err := c.Txn.StreamDelete(m, id)
		if err != nil {
			c.Fail(err)
			return
		}
		if gone {
			n++
		}
	}
	if n > 0 {
		if err := c.Txn.PutMeta(key, m); err != nil {
			c.Fail(err)
			return
		}
		streamEvent(c, "xdel", key)
	}
	c.W.Int(n)
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
func cmdXSetID(c *Ctx) {
	id, ok := streamIDArg(c, 2, 0, true)
	if !ok {
		return
	}
	added := int64(-1)
	var maxDel storage.StreamID
	for i := 3; i < len(c.Args); i++ {
		more := len(c.Args) - 1 - i
		switch {
		case strings.EqualFold(c.Arg(i), "entriesadded") && more > 0:
			n, err := num.ParseInt(c.Args[i+1])
			if err != nil {
				c.W.Error(ErrNotInteger)
				return
			}
			if n < 0 {
				c.W.Error("ERR entries_added must be positive")
				return
			}
			added = n
			i++
		case strings.EqualFold(c.Arg(i), "maxdeletedid") && more > 0:
			if maxDel, ok = streamIDArg(c, i+1, 0, true); !ok {
				return
			}
			if id.Cmp(maxDel) < 0 {
				c.W.Error("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
				return
			}
			i++
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	key := c.Args[1]
	m, ok := streamMeta(c, key)
	if !ok {
		return
	}
	if m == nil {
		c.W.Error(ErrNoSuchKey)
		return
	}
	if m.Size > 0 {
		last, _, err := c.Txn.StreamLastEntry(m)
		if err != nil {
			c.Fail(err)
			return
		}
		if id.Cmp(last) < 0 {
			c.W.Error("ERR The ID specified in XSETID is smaller than the target stream top item")
			return
		}
		if added != -1 && uint64(added) < m.Size {
			c.W.Error("ERR The entries_added specified in XSETID is smaller than the target stream length")
			return
		}
	}
	m.X.Last = id
	if added != -1 {
		m.X.EntriesAdded = uint64(added)
	}
	if !maxDel.IsZero() {
		m.X.MaxDeleted = maxDel
	}
	if err := c.Txn.PutMeta(key, m); err != nil {
		c.Fail(err)
		return
	}
	streamEvent(c, "xsetid", key)
	c.W.OK()
}
