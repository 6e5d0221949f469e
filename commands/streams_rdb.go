package commands

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/storage"
)

// Streams in RDB values: RESTORE and the import tool read stream listpacks (object types 15,
// 19 and 21) into stream records; DUMP writes type 19 (streams_dump.go).

var errStreamOrder = fmt.Errorf("%w: stream entries out of order", rdb.ErrCorrupt)

func sid(id rdb.StreamID) storage.StreamID { return storage.StreamID{Ms: id.Ms, Seq: id.Seq} }

// restoreStream stores the stream value v as key's value.
func restoreStream(txn *storage.Txn, key []byte, v *rdb.Value, expireAt int64) (RestoreStats, error) {
	var st RestoreStats
	m, err := txn.NewStream()
	if err != nil {
		return st, err
	}
	m.Expire, st.ID = expireAt, m.ID
	lim := storage.DefaultStreamLimits
	for {
		e, err := v.NextStreamEntry()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st, err
		}
		id := sid(e.ID)
		if m.Size > 0 && id.Cmp(m.X.Last) <= 0 || id.IsZero() || len(e.Fields)%2 != 0 {
			return st, errStreamOrder
		}
		if err := txn.StreamAppend(m, id, e.Fields, lim); err != nil {
			return st, err
		}
		st.Elements++
	}
	tl, err := v.StreamTail()
	if err != nil {
		return st, err
	}
	x := m.X
	last := x.Last
	if tl.Length != m.Size || sid(tl.LastID).Cmp(last) < 0 {
		return st, fmt.Errorf("%w: stream metadata does not match its entries", rdb.ErrCorrupt)
	}
	x.Last = sid(tl.LastID)
	if tl.HasCounters {
		x.First, x.MaxDeleted, x.EntriesAdded = sid(tl.FirstID), sid(tl.MaxDeletedID), tl.EntriesAdded
	} else {
		x.MaxDeleted, x.EntriesAdded = storage.StreamID{}, m.Size
	}
	for _, rg := range tl.Groups {
		if err := restoreGroup(txn, m, &rg, tl.HasCounters); err != nil {
			return st, err
		}
	}
	return st, txn.PutMeta(key, m)
}

// restoreGroup stores one consumer group of a restored stream.
func restoreGroup(txn *storage.Txn, m *storage.Meta, rg *rdb.StreamGroup, counters bool) error {
	read := rg.EntriesRead
	if !counters {
		read = entriesReadAt(m, sid(rg.LastID))
	}
	g, err := txn.CreateStreamGroup(m, rg.Name, sid(rg.LastID), read)
	if err != nil {
		return err
	}
	if g == nil {
		return fmt.Errorf("%w: duplicate consumer group %q", rdb.ErrCorrupt, rg.Name)
	}
	nacks := make(map[storage.StreamID]rdb.StreamNACK, len(rg.PEL))
	for _, n := range rg.PEL {
		nacks[sid(n.ID)] = n
	}
	for _, rc := range rg.Consumers {
		c, created, err := txn.CreateStreamConsumer(m, g, rc.Name)
		if err != nil {
			return err
		}
		if !created {
			return fmt.Errorf("%w: duplicate consumer %q", rdb.ErrCorrupt, rc.Name)
		}
		c.SeenTime = rc.SeenTime
		txn.PutStreamConsumer(m, g, c)
		for _, id := range rc.Pending {
			n, ok := nacks[sid(id)]
			if !ok {
				return fmt.Errorf("%w: consumer %q owns an entry its group has not delivered", rdb.ErrCorrupt, rc.Name)
			}
			delete(nacks, sid(id))
			pe := &storage.PendingEntry{ID: sid(id), DeliveryTime: n.DeliveryTime, DeliveryCount: n.DeliveryCount}
			if err := txn.PutPending(m, g, rc.Name, pe, nil); err != nil {
				return err
			}
		}
	}
	if len(nacks) > 0 {
		return fmt.Errorf("%w: group %q has pending entries no consumer owns", rdb.ErrCorrupt, rg.Name)
	}
	txn.PutStreamGroup(m, g)
	return nil
}

// StreamSink receives a stream as DumpValue reads it: its number of nodes, each node's
// entries, then its metadata and groups. *rdb.ValueWriter is one.
type StreamSink interface {
	Stream(nodes uint64) error
	StreamNode(entries []rdb.StreamEntry) error
	StreamTail(tl *rdb.StreamTail) error
}

// dumpNodeEntries is the number of entries DUMP puts in one listpack node.
const dumpNodeEntries = 100

func rid(id storage.StreamID) rdb.StreamID { return rdb.StreamID{Ms: id.Ms, Seq: id.Seq} }

// dumpStream writes the stream m to w as type 19: its entries, 100 a node, then its metadata
// and consumer groups.
func dumpStream(txn *storage.Txn, m *storage.Meta, w StreamSink) error {
	nodes := (m.Size + dumpNodeEntries - 1) / dumpNodeEntries
	if err := w.Stream(nodes); err != nil {
		return err
	}
	var batch []rdb.StreamEntry
	var werr error
	written := uint64(0)
	flush := func() {
		if len(batch) > 0 && werr == nil {
			werr = w.StreamNode(batch)
			written++
		}
		batch = batch[:0]
	}
	err := txn.StreamRange(m, storage.StreamID{}, storage.MaxStreamID, false, 0, func(id storage.StreamID, fv [][]byte) bool {
		cp := make([][]byte, len(fv))
		for i, f := range fv {
			cp[i] = append([]byte(nil), f...)
		}
		batch = append(batch, rdb.StreamEntry{ID: rid(id), Fields: cp})
		if len(batch) == dumpNodeEntries {
			flush()
		}
		return werr == nil
	})
	flush()
	if err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	if written != nodes {
		return errSizeMismatch
	}
	x := m.X
	tl := &rdb.StreamTail{Length: m.Size, LastID: rid(x.Last), FirstID: rid(x.First),
		MaxDeletedID: rid(x.MaxDeleted), EntriesAdded: x.EntriesAdded}
	var groups []*storage.StreamGroup
	if err := txn.StreamGroups(m, func(g *storage.StreamGroup) bool { groups = append(groups, g); return true }); err != nil {
		return err
	}
	for _, g := range groups {
		rg, err := dumpGroup(txn, m, g)
		if err != nil {
			return err
		}
		tl.Groups = append(tl.Groups, rg)
	}
	return w.StreamTail(tl)
}

// dumpGroup reads group g whole: its pending entries and its consumers with theirs.
func dumpGroup(txn *storage.Txn, m *storage.Meta, g *storage.StreamGroup) (rdb.StreamGroup, error) {
	rg := rdb.StreamGroup{Name: g.Name, LastID: rid(g.LastID), EntriesRead: g.EntriesRead}
	err := txn.PendingRange(m, g, nil, storage.StreamID{}, storage.MaxStreamID, 0, func(pe *storage.PendingEntry) bool {
		rg.PEL = append(rg.PEL, rdb.StreamNACK{ID: rid(pe.ID), DeliveryTime: pe.DeliveryTime, DeliveryCount: pe.DeliveryCount})
		return true
	})
	if err != nil {
		return rg, err
	}
	var cons []*storage.StreamConsumer
	if err := txn.StreamConsumers(m, g, func(c *storage.StreamConsumer) bool { cons = append(cons, c); return true }); err != nil {
		return rg, err
	}
	for _, c := range cons {
		rc := rdb.StreamConsumer{Name: c.Name, SeenTime: c.SeenTime}
		err := txn.PendingRange(m, g, c.Name, storage.StreamID{}, storage.MaxStreamID, 0, func(pe *storage.PendingEntry) bool {
			rc.Pending = append(rc.Pending, rid(pe.ID))
			return true
		})
		if err != nil {
			return rg, err
		}
		rg.Consumers = append(rg.Consumers, rc)
	}
	return rg, nil
}

// redisTypeStream is Redis's object type number of streams, which DEBUG DIGEST mixes in.
const redisTypeStream = 6

// Stream, StreamNode and StreamTail digest a stream as Redis 7.0's DEBUG DIGEST does: the
// type, then each entry's ID as "ms.seq" and its fields and values, in order (groups are
// left out, as Redis leaves them out).
func (v *valueDigest) Stream(uint64) error { v.d.mixUint32(redisTypeStream); return nil }

func (v *valueDigest) StreamNode(entries []rdb.StreamEntry) error {
	for _, e := range entries {
		v.buf = strconv.AppendUint(v.buf[:0], e.ID.Ms, 10)
		v.buf = append(v.buf, '.')
		v.buf = strconv.AppendUint(v.buf, e.ID.Seq, 10)
		v.d.mix(v.buf)
		for _, f := range e.Fields {
			v.d.mix(f)
		}
	}
	return nil
}

func (v *valueDigest) StreamTail(*rdb.StreamTail) error { return nil }
