package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Consumer groups
//
// A group is a record under the stream's object ID keyed by its name (sub-key streamGroup), so
// XINFO GROUPS lists groups in name order as Redis does; it holds a group ID that prefixes the
// group's other records, its last-delivered ID, its entries-read counter and the sizes of its
// pending-entries list and consumer set. Each pending entry is a record keyed by group ID and
// entry ID (streamPEL), so XPENDING and XAUTOCLAIM scan the list in ID order; each consumer is
// a record keyed by group ID and name (streamConsumer), and each consumer's pending entries are
// indexed by group ID, consumer and entry ID (streamOwned), so XPENDING ... consumer and
// XGROUP DELCONSUMER read that consumer's entries only.

// StreamGroup is one consumer group.
type StreamGroup struct {
	Name        []byte
	GID         uint64
	LastID      StreamID
	EntriesRead int64 // -1: unknown
	Pending     uint64
	Consumers   uint64
}

// StreamConsumer is one consumer of a group.
type StreamConsumer struct {
	Name     []byte
	SeenTime int64 // unix milliseconds
	Pending  uint64
}

// PendingEntry is an entry of a group's pending-entries list.
type PendingEntry struct {
	ID            StreamID
	Consumer      []byte
	DeliveryTime  int64
	DeliveryCount uint64
}

func groupKey(id uint64, name []byte) []byte {
	k := DataKey(nil, id, []byte{streamGroup})
	return append(k, name...)
}

func gidKey(id uint64, tag byte, gid uint64) []byte {
	k := DataKey(nil, id, []byte{tag})
	return binary.BigEndian.AppendUint64(k, gid)
}

func pelKey(id, gid uint64, e StreamID) []byte { return appendStreamID(gidKey(id, streamPEL, gid), e) }

func consumerKey(id, gid uint64, name []byte) []byte {
	return append(gidKey(id, streamConsumer, gid), name...)
}

func ownedPrefix(id, gid uint64, name []byte) []byte {
	k := binary.BigEndian.AppendUint32(gidKey(id, streamOwned, gid), uint32(len(name)))
	return append(k, name...)
}

func (g *StreamGroup) encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, g.GID)
	b = appendStreamID(b, g.LastID)
	b = binary.BigEndian.AppendUint64(b, uint64(g.EntriesRead))
	b = binary.BigEndian.AppendUint64(b, g.Pending)
	return binary.BigEndian.AppendUint64(b, g.Consumers)
}

func decodeGroup(name, v []byte) (*StreamGroup, error) {
	if len(v) != 48 {
		return nil, fmt.Errorf("%w: stream group %q", errCorrupt, name)
	}
	return &StreamGroup{Name: append([]byte(nil), name...), GID: binary.BigEndian.Uint64(v),
		LastID: readStreamID(v[8:]), EntriesRead: int64(binary.BigEndian.Uint64(v[24:])),
		Pending: binary.BigEndian.Uint64(v[32:]), Consumers: binary.BigEndian.Uint64(v[40:])}, nil
}

// StreamGroupOf returns group name of stream m, nil when there is none.
func (t *Txn) StreamGroupOf(m *Meta, name []byte) (*StreamGroup, error) {
	v, ok, err := t.get(groupKey(m.ID, name))
	if err != nil || !ok {
		return nil, err
	}
	return decodeGroup(name, v)
}

// PutStreamGroup stores g.
func (t *Txn) PutStreamGroup(m *Meta, g *StreamGroup) { t.put(groupKey(m.ID, g.Name), g.encode()) }

// CreateStreamGroup adds group name to m, returning nil when it exists already. The caller
// stores m.
func (t *Txn) CreateStreamGroup(m *Meta, name []byte, last StreamID, entriesRead int64) (*StreamGroup, error) {
	if g, err := t.StreamGroupOf(m, name); err != nil || g != nil {
		return nil, err
	}
	gid, err := t.NewID()
	if err != nil {
		return nil, err
	}
	g := &StreamGroup{Name: append([]byte(nil), name...), GID: gid, LastID: last, EntriesRead: entriesRead}
	t.PutStreamGroup(m, g)
	m.X.Groups++
	return g, nil
}

// StreamGroups calls fn for each group of m in name order.
func (t *Txn) StreamGroups(m *Meta, fn func(g *StreamGroup) bool) error {
	p := DataKey(nil, m.ID, []byte{streamGroup})
	it := t.Iterate(p, prefixEnd(p), false)
	for it.Next() {
		g, err := decodeGroup(it.Key()[len(p):], it.Value())
		if err != nil {
			it.Close()
			return err
		}
		if !fn(g) {
			break
		}
	}
	return it.Close()
}

// deletePrefix deletes every record under prefix p.
func (t *Txn) deletePrefix(p []byte) error {
	it := t.Iterate(p, prefixEnd(p), false)
	var keys [][]byte
	for it.Next() {
		keys = append(keys, append([]byte(nil), it.Key()...))
	}
	if err := it.Close(); err != nil {
		return err
	}
	for _, k := range keys {
		t.del(k)
	}
	return nil
}

// DestroyStreamGroup deletes group g of m with its consumers and pending entries. The caller
// stores m.
func (t *Txn) DestroyStreamGroup(m *Meta, g *StreamGroup) error {
	for _, tag := range []byte{streamPEL, streamConsumer, streamOwned} {
		if err := t.deletePrefix(gidKey(m.ID, tag, g.GID)); err != nil {
			return err
		}
	}
	t.del(groupKey(m.ID, g.Name))
	m.X.Groups--
	return nil
}

func decodeConsumer(name, v []byte) (*StreamConsumer, error) {
	if len(v) != 16 {
		return nil, fmt.Errorf("%w: stream consumer %q", errCorrupt, name)
	}
	return &StreamConsumer{Name: append([]byte(nil), name...), SeenTime: int64(binary.BigEndian.Uint64(v)),
		Pending: binary.BigEndian.Uint64(v[8:])}, nil
}

// StreamConsumerOf returns consumer name of g, nil when there is none.
func (t *Txn) StreamConsumerOf(m *Meta, g *StreamGroup, name []byte) (*StreamConsumer, error) {
	v, ok, err := t.get(consumerKey(m.ID, g.GID, name))
	if err != nil || !ok {
		return nil, err
	}
	return decodeConsumer(name, v)
}

// PutStreamConsumer stores c.
func (t *Txn) PutStreamConsumer(m *Meta, g *StreamGroup, c *StreamConsumer) {
	v := binary.BigEndian.AppendUint64(nil, uint64(c.SeenTime))
	v = binary.BigEndian.AppendUint64(v, c.Pending)
	t.put(consumerKey(m.ID, g.GID, c.Name), v)
}

// CreateStreamConsumer adds consumer name to g, seen now, and stores g; created is false (and
// c the existing consumer) when it exists already.
func (t *Txn) CreateStreamConsumer(m *Meta, g *StreamGroup, name []byte) (c *StreamConsumer, created bool, err error) {
	if c, err = t.StreamConsumerOf(m, g, name); err != nil || c != nil {
		return c, false, err
	}
	c = &StreamConsumer{Name: append([]byte(nil), name...), SeenTime: t.now}
	t.PutStreamConsumer(m, g, c)
	g.Consumers++
	t.PutStreamGroup(m, g)
	return c, true, nil
}

// StreamConsumers calls fn for each consumer of g in name order.
func (t *Txn) StreamConsumers(m *Meta, g *StreamGroup, fn func(c *StreamConsumer) bool) error {
	p := gidKey(m.ID, streamConsumer, g.GID)
	it := t.Iterate(p, prefixEnd(p), false)
	for it.Next() {
		c, err := decodeConsumer(it.Key()[len(p):], it.Value())
		if err != nil {
			it.Close()
			return err
		}
		if !fn(c) {
			break
		}
	}
	return it.Close()
}

// DeleteStreamConsumer deletes consumer c of g with its pending entries, and stores g.
func (t *Txn) DeleteStreamConsumer(m *Meta, g *StreamGroup, c *StreamConsumer) error {
	var ids []StreamID
	err := t.PendingRange(m, g, c.Name, StreamID{}, MaxStreamID, 0, func(pe *PendingEntry) bool {
		ids = append(ids, pe.ID)
		return true
	})
	if err != nil {
		return err
	}
	op := ownedPrefix(m.ID, g.GID, c.Name)
	for _, e := range ids {
		t.del(pelKey(m.ID, g.GID, e))
		t.del(appendStreamID(append([]byte(nil), op...), e))
	}
	g.Pending -= uint64(len(ids))
	g.Consumers--
	t.del(consumerKey(m.ID, g.GID, c.Name))
	t.PutStreamGroup(m, g)
	return nil
}

func decodePending(e StreamID, v []byte) (*PendingEntry, error) {
	if len(v) < 16 {
		return nil, fmt.Errorf("%w: pending entry %s", errCorrupt, e)
	}
	return &PendingEntry{ID: e, DeliveryTime: int64(binary.BigEndian.Uint64(v)),
		DeliveryCount: binary.BigEndian.Uint64(v[8:]), Consumer: append([]byte(nil), v[16:]...)}, nil
}

// PendingOf returns the pending entry e of g, nil when e is not pending.
func (t *Txn) PendingOf(m *Meta, g *StreamGroup, e StreamID) (*PendingEntry, error) {
	v, ok, err := t.get(pelKey(m.ID, g.GID, e))
	if err != nil || !ok {
		return nil, err
	}
	return decodePending(e, v)
}

// addConsumerPending changes the pending count of consumer name of g by delta.
func (t *Txn) addConsumerPending(m *Meta, g *StreamGroup, name []byte, delta int64) error {
	c, err := t.StreamConsumerOf(m, g, name)
	if err != nil || c == nil {
		return err
	}
	c.Pending = uint64(int64(c.Pending) + delta)
	t.PutStreamConsumer(m, g, c)
	return nil
}

// PutPending stores pe in g's pending list, owned by consumer owner (which exists); prev is
// its previous state (nil: it was not pending). The consumers' records follow at once; the
// caller stores g, whose pending count follows too.
func (t *Txn) PutPending(m *Meta, g *StreamGroup, owner []byte, pe, prev *PendingEntry) error {
	moved := prev == nil || !bytes.Equal(prev.Consumer, owner)
	if prev != nil && moved {
		t.del(appendStreamID(ownedPrefix(m.ID, g.GID, prev.Consumer), pe.ID))
		if err := t.addConsumerPending(m, g, prev.Consumer, -1); err != nil {
			return err
		}
	}
	if moved {
		t.put(appendStreamID(ownedPrefix(m.ID, g.GID, owner), pe.ID), nil)
		if err := t.addConsumerPending(m, g, owner, 1); err != nil {
			return err
		}
	}
	if prev == nil {
		g.Pending++
	}
	pe.Consumer = append([]byte(nil), owner...)
	v := binary.BigEndian.AppendUint64(nil, uint64(pe.DeliveryTime))
	v = binary.BigEndian.AppendUint64(v, pe.DeliveryCount)
	t.put(pelKey(m.ID, g.GID, pe.ID), append(v, owner...))
	return nil
}

// DeletePending removes pe from g's pending list and from its consumer's; the caller stores g.
func (t *Txn) DeletePending(m *Meta, g *StreamGroup, pe *PendingEntry) error {
	t.del(pelKey(m.ID, g.GID, pe.ID))
	t.del(appendStreamID(ownedPrefix(m.ID, g.GID, pe.Consumer), pe.ID))
	g.Pending--
	return t.addConsumerPending(m, g, pe.Consumer, -1)
}

// PendingEdges returns the lowest and highest IDs of g's pending list, which is not empty.
func (t *Txn) PendingEdges(m *Meta, g *StreamGroup) (first, last StreamID, err error) {
	p := gidKey(m.ID, streamPEL, g.GID)
	for i, rev := range []bool{false, true} {
		it := t.Iterate(p, prefixEnd(p), rev)
		if it.Next() {
			id := readStreamID(it.Key()[len(p):])
			if i == 0 {
				first = id
			} else {
				last = id
			}
		}
		if err = it.Close(); err != nil {
			return
		}
	}
	return
}

// PendingRange calls fn for the pending entries of g with IDs in [start, end], in order, of
// consumer owner only when it is not nil, until fn returns false or count (0: no bound) were
// seen.
func (t *Txn) PendingRange(m *Meta, g *StreamGroup, owner []byte, start, end StreamID, count int64, fn func(pe *PendingEntry) bool) error {
	if start.Cmp(end) > 0 {
		return nil
	}
	var p []byte
	if owner != nil {
		p = ownedPrefix(m.ID, g.GID, owner)
	} else {
		p = gidKey(m.ID, streamPEL, g.GID)
	}
	hi := prefixEnd(p)
	if next, ok := end.Incr(); ok {
		hi = appendStreamID(append([]byte(nil), p...), next)
	}
	it := t.Iterate(appendStreamID(append([]byte(nil), p...), start), hi, false)
	var seen int64
	for it.Next() {
		e := readStreamID(it.Key()[len(p):])
		v := it.Value()
		if owner != nil {
			var ok bool
			var err error
			if v, ok, err = t.get(pelKey(m.ID, g.GID, e)); err != nil || !ok {
				it.Close()
				if err == nil {
					err = fmt.Errorf("%w: consumer %q owns %s, which is not pending", errCorrupt, owner, e)
				}
				return err
			}
		}
		pe, err := decodePending(e, v)
		if err != nil {
			it.Close()
			return err
		}
		seen++
		if !fn(pe) || count > 0 && seen >= count {
			break
		}
	}
	return it.Close()
}
