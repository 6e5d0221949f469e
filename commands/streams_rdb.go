package commands

import (
	"errors"
	"fmt"
	"io"

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
	lim := storage.StreamLimits{MaxEntries: 100, MaxBytes: 4096}
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
		txn.StreamAppend(m, id, e.Fields, lim)
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
