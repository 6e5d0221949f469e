package commands

import (
	"fmt"
	"strings"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

// Consumer groups: XGROUP, XACK, XPENDING, and the entries-read and lag arithmetic of Redis 7.0.

// invalidEntriesRead is a group's entries-read counter when it is unknown.
const invalidEntriesRead = -1

// rangeHasTombstones reports whether entries between start and end (inclusive; nil: the
// stream's edges) of m may have been deleted.
func rangeHasTombstones(m *storage.Meta, start, end *storage.StreamID) bool {
	x := m.X
	if m.Size == 0 || x.MaxDeleted.IsZero() {
		return false
	}
	if x.First.Cmp(x.MaxDeleted) > 0 {
		return false
	}
	lo, hi := storage.StreamID{}, storage.MaxStreamID
	if start != nil {
		lo = *start
	}
	if end != nil {
		hi = *end
	}
	return lo.Cmp(x.MaxDeleted) <= 0 && x.MaxDeleted.Cmp(hi) <= 0
}

// entriesReadAt returns the number of entries added up to ID id, or invalidEntriesRead when
// deletions make it unknowable.
func entriesReadAt(m *storage.Meta, id storage.StreamID) int64 {
	x := m.X
	added := int64(x.EntriesAdded)
	if added == 0 {
		return 0
	}
	if m.Size == 0 && id.Cmp(x.Last) < 1 {
		return added
	}
	switch cmp := id.Cmp(x.Last); {
	case cmp == 0:
		return added
	case cmp > 0:
		return invalidEntriesRead
	}
	if x.MaxDeleted.IsZero() || x.MaxDeleted.Cmp(x.First) < 0 {
		switch id.Cmp(x.First) {
		case -1:
			return added - int64(m.Size)
		case 0:
			return added - int64(m.Size) + 1
		}
	}
	return invalidEntriesRead
}

// advanceGroup moves g's last-delivered ID to id, an entry it delivers, keeping its
// entries-read counter when it can.
func advanceGroup(m *storage.Meta, g *storage.StreamGroup, id storage.StreamID) {
	if g.EntriesRead != invalidEntriesRead && !rangeHasTombstones(m, &id, nil) {
		g.EntriesRead++
	} else if m.X.EntriesAdded > 0 {
		g.EntriesRead = entriesReadAt(m, id)
	}
	g.LastID = id
}

// groupLag returns g's lag, ok false when it cannot be known.
func groupLag(m *storage.Meta, g *storage.StreamGroup) (int64, bool) {
	added := int64(m.X.EntriesAdded)
	switch {
	case added == 0:
		return 0, true
	case g.EntriesRead != invalidEntriesRead && !rangeHasTombstones(m, &g.LastID, nil):
		return added - g.EntriesRead, true
	}
	if read := entriesReadAt(m, g.LastID); read != invalidEntriesRead {
		return added - read, true
	}
	return 0, false
}

var xgroupSubs = map[string]clientSub{
	"create":         {-5, cmdXGroupCreate},
	"setid":          {-5, cmdXGroupSetID},
	"destroy":        {4, cmdXGroupDestroy},
	"createconsumer": {5, cmdXGroupCreateConsumer},
	"delconsumer":    {5, cmdXGroupDelConsumer},
	"help":           {2, func(c *Ctx) { writeHelp(c.W, xgroupHelp) }},
}

var xgroupHelp = []string{
	"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
	"HELP",
	"    Prints this help.",
}

func cmdXGroup(c *Ctx) { runSub(c, "xgroup", xgroupSubs) }

func subSyntaxError(c *Ctx) {
	c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%.128s'. Try %s HELP.",
		c.Arg(1), strings.ToUpper(c.Arg(0))))
}

// xgroupTarget is what the XGROUP subcommands other than HELP share: options parsed, the
// stream and the group looked up with Redis's errors.
type xgroupTarget struct {
	m           *storage.Meta
	g           *storage.StreamGroup
	mkstream    bool
	entriesRead int64
}

func xgroupLookup(c *Ctx, needGroup bool) (*xgroupTarget, bool) {
	sub := strings.ToLower(c.Arg(1))
	t := &xgroupTarget{entriesRead: invalidEntriesRead}
	for i := 5; i < len(c.Args); i++ {
		switch {
		case sub == "create" && strings.EqualFold(c.Arg(i), "mkstream"):
			t.mkstream = true
		case (sub == "create" || sub == "setid") && strings.EqualFold(c.Arg(i), "entriesread") && i+1 < len(c.Args):
			n, err := num.ParseInt(c.Args[i+1])
			if err != nil {
				c.W.Error(ErrNotInteger)
				return nil, false
			}
			if n < 0 && n != invalidEntriesRead {
				c.W.Error("ERR value for ENTRIESREAD must be positive or -1")
				return nil, false
			}
			t.entriesRead = n
			i++
		default:
			subSyntaxError(c)
			return nil, false
		}
	}
	m, ok := streamMeta(c, c.Args[2])
	if !ok {
		return nil, false
	}
	t.m = m
	if t.mkstream {
		return t, true
	}
	if m == nil {
		c.W.Error("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")
		return nil, false
	}
	g, err := c.Txn.StreamGroupOf(m, c.Args[3])
	if err != nil {
		c.Fail(err)
		return nil, false
	}
	if g == nil && needGroup {
		c.W.Error(fmt.Sprintf("NOGROUP No such consumer group '%s' for key name '%s'", c.Args[3], c.Args[2]))
		return nil, false
	}
	t.g = g
	return t, true
}

// XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n]
func cmdXGroupCreate(c *Ctx) {
	t, ok := xgroupLookup(c, false)
	if !ok {
		return
	}
	if len(c.Args) > 8 {
		subSyntaxError(c)
		return
	}
	var id storage.StreamID
	if c.Arg(4) == "$" {
		if t.m != nil {
			id = t.m.X.Last
		}
	} else if id, ok = streamIDArg(c, 4, 0, true); !ok {
		return
	}
	key := c.Args[2]
	m := t.m
	if m == nil {
		var err error
		if m, err = c.Txn.NewStream(); err != nil {
			c.Fail(err)
			return
		}
	}
	g, err := c.Txn.CreateStreamGroup(m, c.Args[3], id, t.entriesRead)
	if err != nil {
		c.Fail(err)
		return
	}
	if g == nil {
		c.W.Error("BUSYGROUP Consumer Group name already exists")
		return
	}
	if err := c.Txn.PutMeta(key, m); err != nil {
		c.Fail(err)
		return
	}
	streamEvent(c, "xgroup-create", key)
	c.W.OK()
}

// XGROUP SETID key group id|$ [ENTRIESREAD n]
func cmdXGroupSetID(c *Ctx) {
	if len(c.Args) != 5 && len(c.Args) != 7 {
		subSyntaxError(c)
		return
	}
	t, ok := xgroupLookup(c, true)
	if !ok {
		return
	}
	var id storage.StreamID
	if c.Arg(4) == "$" {
		id = t.m.X.Last
	} else if id, ok = streamIDArg(c, 4, 0, false); !ok {
		return
	}
	t.g.LastID, t.g.EntriesRead = id, t.entriesRead
	c.Txn.PutStreamGroup(t.m, t.g)
	streamEvent(c, "xgroup-setid", c.Args[2])
	c.W.OK()
}

// XGROUP DESTROY key group
func cmdXGroupDestroy(c *Ctx) {
	t, ok := xgroupLookup(c, false)
	if !ok {
		return
	}
	if t.g == nil {
		c.W.Int(0)
		return
	}
	if err := c.Txn.DestroyStreamGroup(t.m, t.g); err != nil {
		c.Fail(err)
		return
	}
	if err := c.Txn.PutMeta(c.Args[2], t.m); err != nil {
		c.Fail(err)
		return
	}
	streamEvent(c, "xgroup-destroy", c.Args[2])
	c.Signal(c.Args[2]) // clients blocked in XREADGROUP on the group get NOGROUP
	c.W.Int(1)
}

// XGROUP CREATECONSUMER key group consumer
func cmdXGroupCreateConsumer(c *Ctx) {
	t, ok := xgroupLookup(c, true)
	if !ok {
		return
	}
	_, created, err := c.Txn.CreateStreamConsumer(t.m, t.g, c.Args[4])
	if err != nil {
		c.Fail(err)
		return
	}
	if created {
		streamEvent(c, "xgroup-createconsumer", c.Args[2])
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

// XGROUP DELCONSUMER key group consumer
func cmdXGroupDelConsumer(c *Ctx) {
	t, ok := xgroupLookup(c, true)
	if !ok {
		return
	}
	cons, err := c.Txn.StreamConsumerOf(t.m, t.g, c.Args[4])
	if err != nil {
		c.Fail(err)
		return
	}
	if cons == nil {
		c.W.Int(0)
		return
	}
	if err := c.Txn.DeleteStreamConsumer(t.m, t.g, cons); err != nil {
		c.Fail(err)
		return
	}
	streamEvent(c, "xgroup-delconsumer", c.Args[2])
	c.W.Int(int64(cons.Pending))
}

// groupOf reads key's stream and its group name: m or g nil when missing.
func groupOf(c *Ctx, key, name []byte) (*storage.Meta, *storage.StreamGroup, bool) {
	m, ok := streamMeta(c, key)
	if !ok || m == nil {
		return nil, nil, ok
	}
	g, err := c.Txn.StreamGroupOf(m, name)
	if err != nil {
		c.Fail(err)
		return nil, nil, false
	}
	return m, g, true
}

// XACK key group id [id ...]
func cmdXAck(c *Ctx) {
	m, g, ok := groupOf(c, c.Args[1], c.Args[2])
	if !ok {
		return
	}
	if g == nil {
		c.W.Int(0)
		return
	}
	ids, ok := streamIDArgs(c, 3)
	if !ok {
		return
	}
	var n int64
	for _, id := range ids {
		pe, err := c.Txn.PendingOf(m, g, id)
		if err == nil && pe != nil {
			err = c.Txn.DeletePending(m, g, pe)
			n++
		}
		if err != nil {
			c.Fail(err)
			return
		}
	}
	if n > 0 {
		c.Txn.PutStreamGroup(m, g)
	}
	c.W.Int(n)
}

// XPENDING key group [[IDLE min-idle] start end count [consumer]]
func cmdXPending(c *Ctx) {
	n := len(c.Args)
	if n != 3 && (n < 6 || n > 9) {
		c.W.Error(ErrSyntax)
		return
	}
	var start, end storage.StreamID
	var count, minIdle int64
	var consumer []byte
	if n >= 6 {
		at := 3
		if strings.EqualFold(c.Arg(3), "idle") {
			v, err := num.ParseInt(c.Args[4])
			if err != nil {
				c.W.Error(ErrNotInteger)
				return
			}
			if n < 8 {
				c.W.Error(ErrSyntax)
				return
			}
			minIdle, at = v, 5
		}
		v, err := num.ParseInt(c.Args[at+2])
		if err != nil {
			c.W.Error(ErrNotInteger)
			return
		}
		count = max(v, 0)
		var ok bool
		if start, ok = rangeStart(c, at); !ok {
			return
		}
		if end, ok = rangeEnd(c, at+1); !ok {
			return
		}
		if at+3 < n {
			consumer = c.Args[at+3]
		}
	}
	m, g, ok := groupOf(c, c.Args[1], c.Args[2])
	if !ok {
		return
	}
	if g == nil {
		c.W.Error(fmt.Sprintf("NOGROUP No such key '%s' or consumer group '%s'", c.Args[1], c.Args[2]))
		return
	}
	if n == 3 {
		pendingSummary(c, m, g)
		return
	}
	if consumer != nil {
		cons, err := c.Txn.StreamConsumerOf(m, g, consumer)
		if err != nil {
			c.Fail(err)
			return
		}
		if cons == nil {
			c.W.Array(0)
			return
		}
	}
	now := c.Txn.Now()
	var out []*storage.PendingEntry
	if count > 0 {
		err := c.Txn.PendingRange(m, g, consumer, start, end, 0, func(pe *storage.PendingEntry) bool {
			if minIdle == 0 || now-pe.DeliveryTime >= minIdle {
				out = append(out, pe)
			}
			return int64(len(out)) < count
		})
		if err != nil {
			c.Fail(err)
			return
		}
	}
	c.W.Array(len(out))
	for _, pe := range out {
		c.W.Array(4)
		c.W.Bulk(pe.ID.Append(nil))
		c.W.Bulk(pe.Consumer)
		c.W.Int(max(now-pe.DeliveryTime, 0))
		c.W.Int(int64(pe.DeliveryCount))
	}
}

// pendingSummary is XPENDING key group: the count, the lowest and highest pending IDs and
// the pending count of each consumer that has some.
func pendingSummary(c *Ctx, m *storage.Meta, g *storage.StreamGroup) {
	if g.Pending == 0 {
		c.W.Array(4)
		c.W.Int(0)
		c.W.Null()
		c.W.Null()
		c.W.NullArray()
		return
	}
	first, last, err := c.Txn.PendingEdges(m, g)
	if err != nil {
		c.Fail(err)
		return
	}
	var cons []*storage.StreamConsumer
	err = c.Txn.StreamConsumers(m, g, func(sc *storage.StreamConsumer) bool {
		if sc.Pending > 0 {
			cons = append(cons, sc)
		}
		return true
	})
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Array(4)
	c.W.Int(int64(g.Pending))
	c.W.Bulk(first.Append(nil))
	c.W.Bulk(last.Append(nil))
	c.W.Array(len(cons))
	for _, sc := range cons {
		c.W.Array(2)
		c.W.Bulk(sc.Name)
		c.W.BulkInt(int64(sc.Pending))
	}
}
