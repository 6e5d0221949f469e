package commands

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

// xreadBlockedCount is the COUNT of a blocked XREAD or XREADGROUP that gave none.
const xreadBlockedCount = 1000

// xreadKeys returns the keys of XREAD and XREADGROUP: the first half of the arguments after
// STREAMS.
func xreadKeys(args [][]byte) [][]byte {
	for i := 1; i < len(args); i++ {
		if strings.EqualFold(string(args[i]), "streams") {
			rest := args[i+1:]
			if len(rest)%2 != 0 {
				return nil
			}
			return rest[:len(rest)/2]
		}
	}
	return nil
}

// xreadArgs are the parsed options of XREAD and XREADGROUP.
type xreadArgs struct {
	block    bool
	timeout  time.Duration
	count    int64
	countAt  int // index of COUNT's value, 0 when not given
	streams  int // index of the first key
	n        int // number of keys
	group    []byte
	consumer []byte
	noack    bool
}

func parseXRead(c *Ctx, a *xreadArgs) bool {
	group := c.Cmd.Name == "xreadgroup"
	for i := 1; i < len(c.Args); i++ {
		more := len(c.Args) - i - 1
		o := c.Arg(i)
		switch {
		case strings.EqualFold(o, "block") && more > 0:
			if c.Script != nil {
				c.W.Error(fmt.Sprintf("ERR %s command is not allowed with BLOCK option from scripts", c.Arg(0)))
				return false
			}
			i++
			ms, err := num.ParseInt(c.Args[i])
			if err != nil {
				c.W.Error("ERR timeout is not an integer or out of range")
				return false
			}
			if ms < 0 {
				c.W.Error(ErrTimeoutNegative)
				return false
			}
			a.block, a.timeout = true, time.Duration(min(ms, 1<<42))*time.Millisecond
		case strings.EqualFold(o, "count") && more > 0:
			i++
			n, err := num.ParseInt(c.Args[i])
			if err != nil {
				c.W.Error(ErrNotInteger)
				return false
			}
			a.count, a.countAt = max(n, 0), i
		case strings.EqualFold(o, "streams") && more > 0:
			a.streams = i + 1
			if (len(c.Args)-a.streams)%2 != 0 {
				c.W.Error("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
				return false
			}
			a.n = (len(c.Args) - a.streams) / 2
			i = len(c.Args)
		case strings.EqualFold(o, "group") && more >= 2:
			if !group {
				c.W.Error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return false
			}
			a.group, a.consumer = c.Args[i+1], c.Args[i+2]
			i += 2
		case strings.EqualFold(o, "noack"):
			if !group {
				c.W.Error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return false
			}
			a.noack = true
		default:
			c.W.Error(ErrSyntax)
			return false
		}
	}
	if a.streams == 0 {
		c.W.Error(ErrSyntax)
		return false
	}
	if group && a.group == nil {
		c.W.Error("ERR Missing GROUP option for XREADGROUP")
		return false
	}
	return true
}

// xreadStream is one stream an XREAD or XREADGROUP reads.
type xreadStream struct {
	key []byte
	m   *storage.Meta
	g   *storage.StreamGroup
	gt  storage.StreamID // entries above this ID
	new bool             // XREADGROUP's ">"
}

// XREAD [COUNT count] [BLOCK ms] STREAMS key [key ...] id [id ...]
func cmdXRead(c *Ctx) { xread(c) }

// XREADGROUP GROUP group consumer [COUNT count] [BLOCK ms] [NOACK] STREAMS key [...] id [...]
func cmdXReadGroup(c *Ctx) {
	c.Effects = [][][]byte{} // the reads propagate as XCLAIM and XGROUP, never as themselves
	xread(c)
}

func xread(c *Ctx) {
	var a xreadArgs
	if !parseXRead(c, &a) {
		return
	}
	streams := make([]xreadStream, a.n)
	for i := range streams {
		st := &streams[i]
		st.key = c.Args[a.streams+i]
		idArg := c.Args[a.streams+a.n+i]
		m, ok := streamMeta(c, st.key)
		if !ok {
			return
		}
		st.m = m
		if a.group != nil {
			var g *storage.StreamGroup
			if m != nil {
				var err error
				if g, err = c.Txn.StreamGroupOf(m, a.group); err != nil {
					c.Fail(err)
					return
				}
			}
			if g == nil {
				c.W.Error(fmt.Sprintf("NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP option", st.key, a.group))
				return
			}
			st.g = g
		}
		switch string(idArg) {
		case "$":
			if a.group != nil {
				c.W.Error("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
				return
			}
			if m != nil {
				st.gt = m.X.Last
			}
			continue
		case ">":
			if a.group == nil {
				c.W.Error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
				return
			}
			st.new = true
			continue
		}
		id, ok := streamIDArg(c, a.streams+a.n+i, 0, true)
		if !ok {
			return
		}
		st.gt = id
	}
	at := c.W.Len()
	served := 0
	for i := range streams {
		ok, err := xreadServe(c, &a, &streams[i])
		if err != nil {
			c.W.Truncate(at)
			c.Fail(err)
			return
		}
		if ok {
			served++
		}
	}
	if served > 0 {
		body := append([]byte(nil), c.W.Bytes()[at:]...)
		c.W.Truncate(at)
		if c.Client.Proto == 3 {
			c.W.Map(served)
		} else {
			c.W.Array(served)
		}
		c.W.Raw(body)
		return
	}
	if !a.block || c.NonBlocking {
		c.W.NullArray()
		return
	}
	keys := make([][]byte, a.n)
	args := append([][]byte(nil), c.Args...)
	for i := range streams {
		keys[i] = streams[i].key
		if string(args[a.streams+a.n+i]) == "$" {
			args[a.streams+a.n+i] = streams[i].gt.Append(nil)
		}
	}
	if a.countAt == 0 {
		head := append(append([][]byte(nil), args[:a.streams-1]...), []byte("COUNT"), []byte(strconv.Itoa(xreadBlockedCount)))
		args = append(head, args[a.streams-1:]...)
	}
	c.Args = args
	c.Block(keys, a.timeout)
}

// xreadServe writes the key and entries of one stream when it has entries to serve, as
// Redis decides: XREAD when the stream has entries above the ID; XREADGROUP with ">" when it
// has entries above the group's last-delivered ID; XREADGROUP with an ID always (the
// consumer's history).
func xreadServe(c *Ctx, a *xreadArgs, st *xreadStream) (bool, error) {
	m := st.m
	if m == nil {
		return false, nil
	}
	history := st.g != nil && !st.new
	if !history {
		if m.Size == 0 {
			return false, nil
		}
		last, _, err := c.Txn.StreamLastEntry(m)
		if err != nil {
			return false, err
		}
		if st.g != nil {
			st.gt = st.g.LastID
		}
		if last.Cmp(st.gt) <= 0 {
			return false, nil
		}
	}
	start, ok := st.gt.Incr()
	if !ok && !history {
		return false, nil
	}
	if c.Client.Proto != 3 {
		c.W.Array(2)
	}
	c.W.Bulk(st.key)
	if st.g == nil {
		return true, writeEntries(c, m, start, storage.MaxStreamID, false, a.count)
	}
	cons, err := groupConsumer(c, m, st.g, st.key, a.consumer, a.noack)
	if err != nil {
		return true, err
	}
	if history {
		err = readHistory(c, m, st.g, cons, start, a.count)
	} else {
		err = readNew(c, st.key, m, st.g, cons, start, a.count, a.noack)
	}
	if err != nil {
		return true, err
	}
	c.Txn.PutStreamGroup(m, st.g)
	return true, nil
}

// groupConsumer returns consumer name of g, seen now, creating it (with its event, and its
// propagation for NOACK reads, which propagate no XCLAIM) when it does not exist.
func groupConsumer(c *Ctx, m *storage.Meta, g *storage.StreamGroup, key, name []byte, noack bool) (*storage.StreamConsumer, error) {
	cons, created, err := c.Txn.CreateStreamConsumer(m, g, name)
	if err != nil {
		return nil, err
	}
	if !created {
		cons.SeenTime = c.Txn.Now()
		c.Txn.PutStreamConsumer(m, g, cons)
	} else {
		streamEvent(c, "xgroup-createconsumer", key)
		if noack {
			c.Effect([]byte("XGROUP"), []byte("CREATECONSUMER"), key, g.Name, name)
		}
	}
	return cons, nil
}

// readNew delivers the entries from start on to consumer cons of g: the group's last-delivered
// ID and entries-read advance, and each entry joins the pending list unless noack.
func readNew(c *Ctx, key []byte, m *storage.Meta, g *storage.StreamGroup, cons *storage.StreamConsumer, start storage.StreamID, count int64, noack bool) error {
	var got, lastIDs []storage.StreamID // each entry, and the group's last ID once it was delivered
	at := c.W.Len()
	advanced := false
	err := c.Txn.StreamRangeReply(m, start, storage.MaxStreamID, false, count, func(id storage.StreamID, reply []byte) bool {
		if id.Cmp(g.LastID) > 0 {
			advanceGroup(m, g, id)
			advanced = true
		}
		c.W.Raw(reply)
		got = append(got, id)
		lastIDs = append(lastIDs, g.LastID)
		return true
	})
	if err != nil {
		return err
	}
	body := append([]byte(nil), c.W.Bytes()[at:]...)
	c.W.Truncate(at)
	c.W.Array(len(got))
	c.W.Raw(body)
	if !noack {
		now := c.Txn.Now()
		for i, id := range got {
			prev, err := c.Txn.PendingOf(m, g, id)
			if err != nil {
				return err
			}
			pe := &storage.PendingEntry{ID: id, DeliveryTime: now, DeliveryCount: 1}
			if err := c.Txn.PutPending(m, g, cons.Name, pe, prev); err != nil {
				return err
			}
			c.Effect(xclaimEffect(key, g.Name, cons.Name, pe, lastIDs[i])...)
		}
	} else if advanced {
		c.Effect(setIDEffect(key, g)...)
	}
	return nil
}

// xclaimEffect is the XCLAIM that gives a replica the pending entry pe as it is now, and the
// group's last-delivered ID lastID.
func xclaimEffect(key, group, consumer []byte, pe *storage.PendingEntry, lastID storage.StreamID) [][]byte {
	return [][]byte{[]byte("XCLAIM"), key, group, consumer, []byte("0"), pe.ID.Append(nil),
		[]byte("TIME"), strconv.AppendInt(nil, pe.DeliveryTime, 10),
		[]byte("RETRYCOUNT"), strconv.AppendUint(nil, pe.DeliveryCount, 10),
		[]byte("FORCE"), []byte("JUSTID"), []byte("LASTID"), lastID.Append(nil)}
}

// setIDEffect is the XGROUP SETID that gives a replica g's last-delivered ID and entries-read.
func setIDEffect(key []byte, g *storage.StreamGroup) [][]byte {
	return [][]byte{[]byte("XGROUP"), []byte("SETID"), key, g.Name, g.LastID.Append(nil),
		[]byte("ENTRIESREAD"), strconv.AppendInt(nil, g.EntriesRead, 10)}
}

// readHistory writes the pending entries of consumer cons from start on, each one's delivery
// time and count updated; an entry deleted since is written as its ID and a null.
func readHistory(c *Ctx, m *storage.Meta, g *storage.StreamGroup, cons *storage.StreamConsumer, start storage.StreamID, count int64) error {
	var pes []*storage.PendingEntry
	err := c.Txn.PendingRange(m, g, cons.Name, start, storage.MaxStreamID, count, func(pe *storage.PendingEntry) bool {
		pes = append(pes, pe)
		return true
	})
	if err != nil {
		return err
	}
	c.W.Array(len(pes))
	for _, pe := range pes {
		fv, ok, err := c.Txn.StreamGet(m, pe.ID)
		if err != nil {
			return err
		}
		if !ok {
			c.W.Array(2)
			c.W.Bulk(pe.ID.Append(nil))
			c.W.NullArray()
			continue
		}
		writeEntry(c, pe.ID, fv)
		pe.DeliveryTime = c.Txn.Now()
		pe.DeliveryCount++
		if err := c.Txn.PutPending(m, g, cons.Name, pe, pe); err != nil {
			return err
		}
	}
	return nil
}

// StreamWaiterGone returns the error a client blocked in XREADGROUP (args) on key gets when
// the key no longer holds a stream or its group is gone, or "" when it may be served.
func StreamWaiterGone(t *storage.Txn, args [][]byte, key []byte) string {
	m, err := t.GetMeta(key)
	if err != nil {
		return ""
	}
	if m == nil || m.Type != storage.TypeStream {
		return "UNBLOCKED the stream key no longer exists"
	}
	for i := 1; i+2 < len(args); i++ {
		if strings.EqualFold(string(args[i]), "group") {
			if g, err := t.StreamGroupOf(m, args[i+1]); err == nil && g == nil {
				return "NOGROUP the consumer group this client was blocked on no longer exists"
			}
			break
		}
	}
	return ""
}

// NarrowXRead returns the arguments of a blocked XREAD or XREADGROUP with its streams
// replaced by key alone and the ID it waits for there.
func NarrowXRead(args [][]byte, key []byte) [][]byte {
	for i := 1; i < len(args); i++ {
		if !strings.EqualFold(string(args[i]), "streams") {
			continue
		}
		rest := args[i+1:]
		n := len(rest) / 2
		for j := 0; j < n; j++ {
			if string(rest[j]) == string(key) {
				out := append([][]byte(nil), args[:i+1]...)
				return append(out, key, rest[n+j])
			}
		}
		break
	}
	return args
}
