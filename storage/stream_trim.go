package storage

// StreamTrim is how XADD and XTRIM trim a stream: by length (MaxLen) or by lowest ID (MinID),
// exactly or approximately (whole nodes only), with at most Limit entries removed in whole
// nodes (0: no bound).
type StreamTrim struct {
	ByID   bool
	MaxLen uint64
	MinID  StreamID
	Approx bool
	Limit  int64
}

// StreamTrimmed trims stream m as Redis does and returns the number of entries removed. Whole
// nodes go first, from the oldest; an exact trim then removes the remaining entries of the node
// where it stops, one by one. The caller stores m.
func (t *Txn) StreamTrimmed(m *Meta, tr StreamTrim) (int64, error) {
	var deleted int64
	it := t.Iterate(streamNodeKey(nil, m.ID, StreamID{}), prefixEnd(DataKey(nil, m.ID, []byte{streamNode})), false)
	var n xnode
	for it.Next() {
		if !tr.ByID && m.Size <= tr.MaxLen {
			break
		}
		var err error
		if n, err = decodeXNode(it.Value()); err != nil {
			it.Close()
			return deleted, err
		}
		if m.isTail(n.Master) {
			n = tailRec(m)
		}
		entries := int64(n.Valid)
		if tr.Limit > 0 && deleted+entries > tr.Limit {
			break
		}
		var remove bool
		if tr.ByID {
			remove = n.Last.Cmp(tr.MinID) < 0
		} else {
			remove = m.Size-uint64(entries) >= tr.MaxLen
		}
		if remove && entries == 0 {
			continue // a node whose entries are all deleted already: nothing to trim, nothing written
		}
		if remove {
			if _, err := t.deleteEntries(m, &n, nil); err != nil {
				it.Close()
				return deleted, err
			}
			n.Valid = 0
			if err := t.putNode(m, &n); err != nil {
				it.Close()
				return deleted, err
			}
			m.Size -= uint64(entries)
			deleted += entries
			continue
		}
		if tr.Approx {
			break
		}
		var seen uint64
		gone, err := t.deleteEntries(m, &n, func(e StreamID) bool {
			if tr.ByID {
				return e.Cmp(tr.MinID) < 0
			}
			if m.Size-seen <= tr.MaxLen {
				return false
			}
			seen++
			return true
		})
		if err != nil {
			it.Close()
			return deleted, err
		}
		m.Size -= uint64(gone)
		n.Valid -= uint64(gone)
		deleted += gone
		if gone == 0 {
			break // nothing of this node goes: no write, as a trim that removes nothing changes nothing
		}
		if err := t.putNode(m, &n); err != nil {
			it.Close()
			return deleted, err
		}
		break
	}
	if err := it.Close(); err != nil {
		return deleted, err
	}
	if m.Size == 0 {
		m.X.First = StreamID{}
	} else if deleted > 0 {
		first, _, err := t.streamEdge(m, false)
		if err != nil {
			return deleted, err
		}
		m.X.First = first
	}
	return deleted, nil
}

// deleteEntries deletes the entries of node r of m, in order, while del (nil: always) returns
// true for them, and returns their number; the caller stores r's counters (putNode).
func (t *Txn) deleteEntries(m *Meta, r *xnode, del func(e StreamID) bool) (int64, error) {
	if r.Chunked {
		if del == nil {
			t.dropChunks(m, r)
			return int64(r.Valid), nil
		}
		return t.editChunks(m, r, func(e StreamID) (bool, bool) {
			d := del(e)
			return d, d
		})
	}
	var n int64
	var k []byte
	err := t.entryRecords(m, r.Master, r.Last, false, func(e StreamID, _ []byte) bool {
		if del != nil && !del(e) {
			return false
		}
		k = streamEntryKey(k[:0], m.ID, e)
		t.del(k)
		n++
		return true
	})
	return n, err
}
