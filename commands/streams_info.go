package commands

import (
	"fmt"
	"strings"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

// XINFO STREAM, GROUPS, CONSUMERS and HELP.

var xinfoSubs = map[string]clientSub{
	"stream":    {-3, cmdXInfoStream},
	"groups":    {3, cmdXInfoGroups},
	"consumers": {4, cmdXInfoConsumers},
	"help":      {2, func(c *Ctx) { writeHelp(c.W, xinfoHelp) }},
}

var xinfoHelp = []string{
	"XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CONSUMERS <key> <groupname>",
	"    Show consumers of <groupname>.",
	"GROUPS <key>",
	"    Show the stream consumer groups.",
	"STREAM <key> [FULL [COUNT <count>]",
	"    Show information about the stream.",
	"HELP",
	"    Prints this help.",
}

func cmdXInfo(c *Ctx) { runSub(c, "xinfo", xinfoSubs) }

// xinfoStream reads the stream at argument 2, answering "no such key" and WRONGTYPE.
func xinfoStream(c *Ctx) (*storage.Meta, bool) {
	m, ok := streamMeta(c, c.Args[2])
	if ok && m == nil {
		c.W.Error(ErrNoSuchKey)
		return nil, false
	}
	return m, ok
}

// writeLag writes g's lag, or a null when it cannot be known.
func writeLag(c *Ctx, m *storage.Meta, g *storage.StreamGroup) {
	if lag, ok := groupLag(m, g); ok {
		c.W.Int(lag)
	} else {
		c.W.Null()
	}
}

func writeEntriesRead(c *Ctx, g *storage.StreamGroup) {
	if g.EntriesRead != invalidEntriesRead {
		c.W.Int(g.EntriesRead)
	} else {
		c.W.Null()
	}
}

// XINFO STREAM key [FULL [COUNT count]]
func cmdXInfoStream(c *Ctx) {
	full, count := false, int64(10)
	if opts := c.Args[3:]; len(opts) > 0 {
		if len(opts) != 1 && len(opts) != 3 || !strings.EqualFold(string(opts[0]), "full") ||
			len(opts) == 3 && !strings.EqualFold(string(opts[1]), "count") {
			subSyntaxError(c)
			return
		}
		full = true
		if len(opts) == 3 {
			n, err := num.ParseInt(opts[2])
			if err != nil {
				c.W.Error(ErrNotInteger)
				return
			}
			if n < 0 {
				n = 10
			}
			count = n
		}
	}
	m, ok := xinfoStream(c)
	if !ok {
		return
	}
	at := c.W.Len()
	if err := writeStreamInfo(c, m, full, count); err != nil {
		c.W.Truncate(at)
		c.Fail(err)
	}
}

func writeStreamInfo(c *Ctx, m *storage.Meta, full bool, count int64) error {
	x := m.X
	if full {
		c.W.Map(9)
	} else {
		c.W.Map(10)
	}
	c.W.BulkString("length")
	c.W.Int(int64(m.Size))
	c.W.BulkString("radix-tree-keys")
	c.W.Int(int64(x.Nodes))
	c.W.BulkString("radix-tree-nodes")
	c.W.Int(int64(2*x.Nodes + 1))
	for _, f := range []struct {
		name string
		id   storage.StreamID
	}{{"last-generated-id", x.Last}, {"max-deleted-entry-id", x.MaxDeleted}} {
		c.W.BulkString(f.name)
		c.W.Bulk(f.id.Append(nil))
	}
	c.W.BulkString("entries-added")
	c.W.Int(int64(x.EntriesAdded))
	c.W.BulkString("recorded-first-entry-id")
	c.W.Bulk(x.First.Append(nil))
	if !full {
		c.W.BulkString("groups")
		c.W.Int(int64(x.Groups))
		for _, edge := range []struct {
			name string
			rev  bool
		}{{"first-entry", false}, {"last-entry", true}} {
			c.W.BulkString(edge.name)
			found := false
			err := c.Txn.StreamRangeReply(m, storage.StreamID{}, storage.MaxStreamID, edge.rev, 1, func(_ storage.StreamID, reply []byte) bool {
				c.W.Raw(reply)
				found = true
				return false
			})
			if err != nil {
				return err
			}
			if !found {
				c.W.Null()
			}
		}
		return nil
	}
	c.W.BulkString("entries")
	if err := writeEntries(c, m, storage.StreamID{}, storage.MaxStreamID, false, count); err != nil {
		return err
	}
	c.W.BulkString("groups")
	var groups []*storage.StreamGroup
	if err := c.Txn.StreamGroups(m, func(g *storage.StreamGroup) bool { groups = append(groups, g); return true }); err != nil {
		return err
	}
	c.W.Array(len(groups))
	for _, g := range groups {
		if err := writeGroupFull(c, m, g, count); err != nil {
			return err
		}
	}
	return nil
}

// writeGroupFull writes one group of XINFO STREAM FULL: its state, its first count pending
// entries and its consumers with theirs.
func writeGroupFull(c *Ctx, m *storage.Meta, g *storage.StreamGroup, count int64) error {
	c.W.Map(7)
	c.W.BulkString("name")
	c.W.Bulk(g.Name)
	c.W.BulkString("last-delivered-id")
	c.W.Bulk(g.LastID.Append(nil))
	c.W.BulkString("entries-read")
	writeEntriesRead(c, g)
	c.W.BulkString("lag")
	writeLag(c, m, g)
	c.W.BulkString("pel-count")
	c.W.Int(int64(g.Pending))
	c.W.BulkString("pending")
	if err := writePendingFull(c, m, g, nil, count); err != nil {
		return err
	}
	c.W.BulkString("consumers")
	var cons []*storage.StreamConsumer
	if err := c.Txn.StreamConsumers(m, g, func(sc *storage.StreamConsumer) bool { cons = append(cons, sc); return true }); err != nil {
		return err
	}
	c.W.Array(len(cons))
	for _, sc := range cons {
		c.W.Map(4)
		c.W.BulkString("name")
		c.W.Bulk(sc.Name)
		c.W.BulkString("seen-time")
		c.W.Int(sc.SeenTime)
		c.W.BulkString("pel-count")
		c.W.Int(int64(sc.Pending))
		c.W.BulkString("pending")
		err := writePendingFull(c, m, g, sc.Name, count)
		if err != nil {
			return err
		}
	}
	return nil
}

// writePendingFull writes the first count (0: all) pending entries of g, of consumer owner
// only when it is not nil, as XINFO STREAM FULL does: ID, consumer (for the group's list),
// delivery time and count.
func writePendingFull(c *Ctx, m *storage.Meta, g *storage.StreamGroup, owner []byte, count int64) error {
	return withBody(c, func() (int, error) {
		n := 0
		err := c.Txn.PendingRange(m, g, owner, storage.StreamID{}, storage.MaxStreamID, count, func(pe *storage.PendingEntry) bool {
			if owner == nil {
				c.W.Array(4)
				c.W.Bulk(pe.ID.Append(nil))
				c.W.Bulk(pe.Consumer)
			} else {
				c.W.Array(3)
				c.W.Bulk(pe.ID.Append(nil))
			}
			c.W.Int(pe.DeliveryTime)
			c.W.Int(int64(pe.DeliveryCount))
			n++
			return true
		})
		return n, err
	})
}

// XINFO GROUPS key
func cmdXInfoGroups(c *Ctx) {
	m, ok := xinfoStream(c)
	if !ok {
		return
	}
	var groups []*storage.StreamGroup
	if err := c.Txn.StreamGroups(m, func(g *storage.StreamGroup) bool { groups = append(groups, g); return true }); err != nil {
		c.Fail(err)
		return
	}
	c.W.Array(len(groups))
	for _, g := range groups {
		c.W.Map(6)
		c.W.BulkString("name")
		c.W.Bulk(g.Name)
		c.W.BulkString("consumers")
		c.W.Int(int64(g.Consumers))
		c.W.BulkString("pending")
		c.W.Int(int64(g.Pending))
		c.W.BulkString("last-delivered-id")
		c.W.Bulk(g.LastID.Append(nil))
		c.W.BulkString("entries-read")
		writeEntriesRead(c, g)
		c.W.BulkString("lag")
		writeLag(c, m, g)
	}
}

// XINFO CONSUMERS key group
func cmdXInfoConsumers(c *Ctx) {
	m, ok := xinfoStream(c)
	if !ok {
		return
	}
	g, err := c.Txn.StreamGroupOf(m, c.Args[3])
	if err != nil {
		c.Fail(err)
		return
	}
	if g == nil {
		c.W.Error(fmt.Sprintf("NOGROUP No such consumer group '%s' for key name '%s'", c.Args[3], c.Args[2]))
		return
	}
	var cons []*storage.StreamConsumer
	if err := c.Txn.StreamConsumers(m, g, func(sc *storage.StreamConsumer) bool { cons = append(cons, sc); return true }); err != nil {
		c.Fail(err)
		return
	}
	now := c.Txn.Now()
	c.W.Array(len(cons))
	for _, sc := range cons {
		c.W.Map(3)
		c.W.BulkString("name")
		c.W.Bulk(sc.Name)
		c.W.BulkString("pending")
		c.W.Int(int64(sc.Pending))
		c.W.BulkString("idle")
		c.W.Int(max(now-sc.SeenTime, 0))
	}
}
