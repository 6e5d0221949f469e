package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
)

// Chunked stream nodes
//
// A node's entries live in chunks, one record each (sub-key streamChunk, the node's master ID,
// the chunk's number). While the node is the tail, where XADD appends, the entry added k-th to
// it goes in chunk k/chunkLen (8 entries, 32 in a tagged node, whose tail chunks are compact:
// stream_compact.go), so that an XADD rewrites a chunk of a few hundred bytes, as a list push
// rewrites its node. When the next node starts, the closed node's
// chunks are merged into its chunk 0 (unless that would pass streamPackMax), so that XRANGE of a
// closed node is one point read, which the data cache serves. A chunk holds its live entries in
// order, each as its ID (16 bytes), then the length and bytes of its reply in RESP: the array of
// the ID and of the fields and values that XRANGE answers, the same bytes in RESP2 and RESP3, so
// that the reply is a copy. XDEL rewrites the chunk without the entry, and a chunk left empty
// goes.
//
// A chunked node's record holds its counters, a layout byte, the master ID of the node that
// follows (zero while it is the tail) and the number of entries added before its chunks were
// merged (chunks below that number are in chunk 0). The next-node ID is a hint: when that node
// has gone, the reader seeks the next one instead. Nodes of a data directory written before
// chunks existed, and nodes begun while stream-node-max-bytes was 0 or above streamChunkedMax
// (whose chunks could grow without bound), keep one record per entry (sub-key streamEntry), and
// are read as they are; their record is the counters alone.

const (
	streamChunkLen   = 8        // entries per chunk of the tail node, untagged
	taggedChunkLen   = 32       // entries per chunk of the tail node, tagged (stream_compact.go)
	streamPackMax    = 32 << 10 // the largest chunk 0 a node's chunks are merged into
	streamChunkedMax = 64 << 10 // the largest stream-node-max-bytes whose nodes are chunked
)

// streamChunkedLen is the length of a chunked node's record.
const streamChunkedLen = streamNodeLen + 1 + 16 + 8

// The layouts of a chunked node, in its record and in the metadata's tail: chunks of packed
// entries, or chunks tagged packed or compact (stream_compact.go), which new nodes use.
const (
	layoutChunked = 1
	layoutTagged  = 2
)

// chunkLen is the number of entries in each chunk of tail node n.
func (n *StreamNode) chunkLen() uint64 {
	if n.Tagged {
		return taggedChunkLen
	}
	return streamChunkLen
}

func (n *StreamNode) layout() byte {
	if n.Tagged {
		return layoutTagged
	}
	return layoutChunked
}

// xnode is a node as stored: its counters and, chunked, the next node's master ID and the
// entries merged into chunk 0.
type xnode struct {
	StreamNode
	next   StreamID
	merged uint64
}

func decodeXNode(v []byte) (xnode, error) {
	var r xnode
	switch {
	case len(v) == streamNodeLen:
	case len(v) == streamChunkedLen && (v[streamNodeLen] == layoutChunked || v[streamNodeLen] == layoutTagged):
		r.Chunked, r.Tagged = true, v[streamNodeLen] == layoutTagged
		r.next = readStreamID(v[streamNodeLen+1:])
		r.merged = binary.BigEndian.Uint64(v[streamNodeLen+17:])
	default:
		return r, fmt.Errorf("%w: stream node record of %d bytes", errCorrupt, len(v))
	}
	r.decode(v)
	return r, nil
}

func (r *xnode) encode(dst []byte) []byte {
	dst = r.StreamNode.encode(dst)
	if r.Chunked {
		dst = append(dst, r.layout())
		dst = appendStreamID(dst, r.next)
		dst = binary.BigEndian.AppendUint64(dst, r.merged)
	}
	return dst
}

func streamChunkKey(dst []byte, id uint64, master StreamID, k uint64) []byte {
	dst = DataKey(dst, id, nil)
	dst = append(dst, streamChunk)
	dst = appendStreamID(dst, master)
	return binary.BigEndian.AppendUint32(dst, uint32(k))
}

// chunkIDs appends to dst the numbers of the chunks node r may have, in order: chunk 0, then
// those after the merged ones.
func (r *xnode) chunkIDs(dst []uint64) []uint64 {
	per := r.chunkLen()
	n := (r.Total + per - 1) / per
	k := uint64(0)
	if r.merged > 0 {
		dst = append(dst, 0)
		k = max(1, r.merged/per) // a chunk the merge ended inside holds only later entries
	}
	for ; k < n; k++ {
		dst = append(dst, k)
	}
	return dst
}

// nextPacked splits the first entry off a packed payload: its ID, its reply and the rest; ok
// is false at the end or on damage.
func nextPacked(p []byte) (id StreamID, resp, rest []byte, ok bool) {
	if len(p) < 17 {
		return id, nil, nil, false
	}
	id = readStreamID(p)
	n, w := binary.Uvarint(p[16:])
	if w <= 0 || uint64(len(p)-16-w) < n {
		return id, nil, nil, false
	}
	s := 16 + w
	return id, p[s : s+int(n)], p[s+int(n):], true
}

func appendPacked(dst []byte, id StreamID, resp []byte) []byte {
	dst = appendStreamID(dst, id)
	dst = binary.AppendUvarint(dst, uint64(len(resp)))
	return append(dst, resp...)
}

// AppendStreamEntry appends the reply of entry e with fields and values fv: an array of its ID
// and of the fields and values, the same in RESP2 and RESP3.
func AppendStreamEntry(dst []byte, e StreamID, fv [][]byte) []byte {
	dst = appendEntryHead(dst, e, len(fv))
	for _, f := range fv {
		dst = appendBulk(dst, f)
	}
	return dst
}

// appendEncodedEntry is AppendStreamEntry for fields and values in their record's encoding
// (EncodeStreamFields).
func appendEncodedEntry(dst []byte, e StreamID, enc []byte) ([]byte, error) {
	n, err := StreamFieldCount(enc)
	if err != nil {
		return dst, fmt.Errorf("%w: stream entry %s", err, e)
	}
	dst = appendEntryHead(dst, e, n)
	for len(enc) > 0 {
		var f []byte
		f, enc, _ = NextStreamField(enc)
		dst = appendBulk(dst, f)
	}
	return dst, nil
}

func appendEntryHead(dst []byte, e StreamID, n int) []byte {
	var idb [41]byte
	ids := e.Append(idb[:0])
	dst = append(dst, "*2\r\n$"...)
	dst = appendSmall(dst, len(ids))
	dst = append(dst, "\r\n"...)
	dst = append(dst, ids...)
	dst = append(dst, "\r\n*"...)
	dst = appendSmall(dst, n)
	return append(dst, "\r\n"...)
}

func appendBulk(dst, f []byte) []byte {
	dst = append(dst, '$')
	dst = appendSmall(dst, len(f))
	dst = append(dst, "\r\n"...)
	dst = append(dst, f...)
	return append(dst, "\r\n"...)
}

// appendSmall appends n in decimal, with a fast path for the short lengths of most fields.
func appendSmall(dst []byte, n int) []byte {
	switch {
	case n < 10:
		return append(dst, byte('0'+n))
	case n < 100:
		return append(dst, byte('0'+n/10), byte('0'+n%10))
	}
	return strconv.AppendInt(dst, int64(n), 10)
}

// respNumber reads "<c><digits>\r\n" at the head of b.
func respNumber(b []byte, c byte) (int, []byte, bool) {
	if len(b) < 4 || b[0] != c {
		return 0, nil, false
	}
	i := bytes.IndexByte(b, '\r')
	if i < 2 || i+1 >= len(b) || b[i+1] != '\n' {
		return 0, nil, false
	}
	n, err := strconv.Atoi(string(b[1:i]))
	if err != nil || n < 0 {
		return 0, nil, false
	}
	return n, b[i+2:], true
}

// respBulk reads a bulk string at the head of b.
func respBulk(b []byte) ([]byte, []byte, bool) {
	n, b, ok := respNumber(b, '$')
	if !ok || len(b) < n+2 || b[n] != '\r' || b[n+1] != '\n' {
		return nil, nil, false
	}
	return b[:n], b[n+2:], true
}

// entryFields splits an entry's reply (AppendStreamEntry) into its fields and values, aliasing
// resp.
func entryFields(resp []byte, dst [][]byte) ([][]byte, error) {
	two, b, ok := respNumber(resp, '*')
	if ok && two == 2 {
		_, b, ok = respBulk(b)
	}
	var n int
	if ok {
		n, b, ok = respNumber(b, '*')
	}
	for i := 0; ok && i < n; i++ {
		var f []byte
		if f, b, ok = respBulk(b); ok {
			dst = append(dst, f)
		}
	}
	if !ok || two != 2 || len(b) != 0 {
		return dst, fmt.Errorf("%w: packed stream entry", errCorrupt)
	}
	return dst, nil
}

// tailRec is the tail node of m.
func tailRec(m *Meta) xnode { return xnode{StreamNode: m.X.Tail} }

func (m *Meta) isTail(master StreamID) bool {
	return m.X.Tail.Total > 0 && m.X.Tail.Master == master
}

// nodeAt reads the node record with master ID master; the tail comes from m.
func (t *Txn) nodeAt(m *Meta, master StreamID) (xnode, bool, error) {
	if m.isTail(master) {
		return tailRec(m), true, nil
	}
	var kb [DataPrefixLen + 17]byte
	v, ok, err := t.get(streamNodeKey(kb[:0], m.ID, master))
	if err != nil || !ok {
		return xnode{}, false, err
	}
	r, err := decodeXNode(v)
	return r, err == nil, err
}

// seekNode returns the first node from master on (rev: the last up to master).
func (t *Txn) seekNode(m *Meta, master StreamID, rev bool) (xnode, bool, error) {
	lo := streamNodeKey(nil, m.ID, StreamID{})
	hi := prefixEnd(DataKey(nil, m.ID, []byte{streamNode}))
	if rev {
		if next, ok := master.Incr(); ok {
			hi = streamNodeKey(nil, m.ID, next)
		}
	} else {
		lo = streamNodeKey(nil, m.ID, master)
	}
	it := t.Iterate(lo, hi, rev)
	if !it.Next() {
		return xnode{}, false, it.Close()
	}
	master = readStreamID(it.Key()[DataPrefixLen+1:])
	if m.isTail(master) {
		return tailRec(m), true, it.Close()
	}
	r, err := decodeXNode(it.Value())
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return r, err == nil, err
}

// nodeHolding returns the node that holds ID e if any entry of m does: the one with the
// greatest master ID not above e.
func (t *Txn) nodeHolding(m *Meta, e StreamID) (xnode, bool, error) {
	if m.X.Tail.Total > 0 && e.Cmp(m.X.Tail.Master) >= 0 {
		return tailRec(m), true, nil
	}
	if r, ok, err := t.nodeAt(m, e); err != nil || ok {
		return r, ok, err
	}
	return t.seekNode(m, e, true)
}

// nodeAfter returns the node after r.
func (t *Txn) nodeAfter(m *Meta, r *xnode) (xnode, bool, error) {
	if m.isTail(r.Master) {
		return xnode{}, false, nil
	}
	if !r.next.IsZero() {
		if n, ok, err := t.nodeAt(m, r.next); err != nil || ok {
			return n, ok, err
		}
	}
	next, ok := r.Master.Incr()
	if !ok {
		return xnode{}, false, nil
	}
	return t.seekNode(m, next, false)
}

// nodeBefore returns the node before r.
func (t *Txn) nodeBefore(m *Meta, r *xnode) (xnode, bool, error) {
	prev, ok := r.Master.Decr()
	if !ok {
		return xnode{}, false, nil
	}
	return t.seekNode(m, prev, true)
}

// entryVisit receives an entry of a range walk: its reply (resp, from a chunk) or its own
// record's encoding (enc); it returns false to stop.
type entryVisit func(e StreamID, resp, enc []byte) bool

// walkStream calls visit for the entries of m with IDs in [start, end], in order (rev: from end
// down), until it returns false.
func (t *Txn) walkStream(m *Meta, start, end StreamID, rev bool, visit entryVisit) error {
	if start.Cmp(end) > 0 || m.Size == 0 {
		return nil
	}
	if start.Cmp(m.X.First) < 0 {
		start = m.X.First // no entry is below it
	}
	var r xnode
	var ok bool
	var err error
	if rev {
		r, ok, err = t.nodeHolding(m, end)
	} else if r, ok, err = t.nodeHolding(m, start); err == nil && !ok {
		r, ok, err = t.seekNode(m, start, false) // start is below every node
	} else if err == nil && r.Last.Cmp(start) < 0 {
		r, ok, err = t.nodeAfter(m, &r)
	}
	for err == nil && ok {
		var more bool
		if more, err = t.walkNode(m, &r, start, end, rev, visit); err != nil || !more {
			break
		}
		if rev {
			if r.Master.Cmp(start) <= 0 {
				break
			}
			r, ok, err = t.nodeBefore(m, &r)
		} else {
			if r.Last.Cmp(end) >= 0 {
				break
			}
			r, ok, err = t.nodeAfter(m, &r)
		}
	}
	return err
}

// walkNode visits the entries of node r in [start, end]; more is false once visit stopped or
// the walk passed the range's far end.
func (t *Txn) walkNode(m *Meta, r *xnode, start, end StreamID, rev bool, visit entryVisit) (more bool, err error) {
	if !r.Chunked {
		lo, hi := start, end
		if lo.Cmp(r.Master) < 0 {
			lo = r.Master
		}
		if hi.Cmp(r.Last) > 0 {
			hi = r.Last
		}
		more = true
		err = t.entryRecords(m, lo, hi, rev, func(e StreamID, enc []byte) bool {
			more = visit(e, nil, enc)
			return more
		})
		return more, err
	}
	var idb [16]uint64
	ids := r.chunkIDs(idb[:0])
	var kb [DataPrefixLen + 21]byte
	for i := range ids {
		k := ids[i]
		if rev {
			k = ids[len(ids)-1-i]
		}
		c, ok, err := t.get(streamChunkKey(kb[:0], m.ID, r.Master, k))
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		if c, _, err = packedChunk(r, c); err != nil {
			return false, err
		}
		if more, err = walkChunk(c, start, end, rev, visit); err != nil || !more {
			return false, err
		}
	}
	return true, nil
}

// walkChunk visits the entries of chunk c in [start, end], as walkNode.
func walkChunk(c []byte, start, end StreamID, rev bool, visit entryVisit) (bool, error) {
	if !rev {
		for p := c; len(p) > 0; {
			id, resp, rest, ok := nextPacked(p)
			if !ok {
				return false, fmt.Errorf("%w: stream chunk", errCorrupt)
			}
			p = rest
			if id.Cmp(start) < 0 {
				continue
			}
			if id.Cmp(end) > 0 || !visit(id, resp, nil) {
				return false, nil
			}
		}
		return true, nil
	}
	var offs [128]int
	at := offs[:0]
	for off := 0; off < len(c); {
		_, _, rest, ok := nextPacked(c[off:])
		if !ok {
			return false, fmt.Errorf("%w: stream chunk", errCorrupt)
		}
		at = append(at, off)
		off = len(c) - len(rest)
	}
	for i := len(at) - 1; i >= 0; i-- {
		id, resp, _, _ := nextPacked(c[at[i]:])
		if id.Cmp(end) > 0 {
			continue
		}
		if id.Cmp(start) < 0 || !visit(id, resp, nil) {
			return false, nil
		}
	}
	return true, nil
}

// entryRecords calls fn for the own entry records of m in [lo, hi] (rev: from hi down) until
// it returns false.
func (t *Txn) entryRecords(m *Meta, lo, hi StreamID, rev bool, fn func(e StreamID, enc []byte) bool) error {
	if lo.Cmp(hi) > 0 {
		return nil
	}
	var lb, hb [DataPrefixLen + 17]byte
	from := streamEntryKey(lb[:0], m.ID, lo)
	var to []byte
	if next, ok := hi.Incr(); ok {
		to = streamEntryKey(hb[:0], m.ID, next)
	} else {
		to = prefixEnd(DataKey(nil, m.ID, []byte{streamEntry}))
	}
	it := t.Iterate(from, to, rev)
	for it.Next() {
		if !fn(readStreamID(it.Key()[DataPrefixLen+1:]), it.Value()) {
			break
		}
	}
	return it.Close()
}

// appendChunked adds entry e, the ord-th of the chunked tail node n of m, to its chunk. The
// chunk is staged (Txn.xpend) rather than written: the next append to it in the transaction
// (a stream restored whole) extends it in place, and the write waits until after the
// metadata's.
func (t *Txn) appendChunked(m *Meta, n *StreamNode, ord uint64, e StreamID, fv [][]byte) error {
	var kb [DataPrefixLen + 21]byte
	per := n.chunkLen()
	k := streamChunkKey(kb[:0], m.ID, n.Master, ord/per)
	var rec []byte
	switch {
	case ord%per == 0:
		t.flushChunk()
		rec = t.xbuf[:0]
		if n.Tagged {
			rec = append(rec, chunkCompact)
		}
	case t.xpend && bytes.Equal(k, t.xpendKey):
		rec = t.xbuf
	default:
		old, ok, err := t.get(k) // writes a staged chunk first
		if err != nil {
			return err
		}
		switch {
		case ok:
			rec = append(t.xbuf[:0], old...)
		case n.Tagged: // the chunk a merge ended inside begins again
			rec = append(t.xbuf[:0], chunkCompact)
		default:
			rec = t.xbuf[:0]
		}
	}
	if n.Tagged && len(rec) == 0 {
		return fmt.Errorf("%w: empty stream chunk", errCorrupt)
	}
	if n.Tagged && rec[0] == chunkCompact {
		var first [][]byte
		if len(rec) > 1 {
			var err error
			if first, err = compactFirst(rec[1:], t.xfields[:0]); err != nil {
				return err
			}
			t.xfields = first[:0]
		}
		t.xbuf = appendCompact(rec, n.Master, e, fv, first)
	} else {
		t.xscratch = AppendStreamEntry(t.xscratch[:0], e, fv)
		t.xbuf = appendPacked(rec, e, t.xscratch)
	}
	t.xpendKey = append(t.xpendKey[:0], k...)
	t.xpend = true
	return nil
}

// closeChunked writes the record of node n of m, closed as the node at next begins, after
// merging its chunks into chunk 0.
func (t *Txn) closeChunked(m *Meta, n *StreamNode, next StreamID) error {
	r := xnode{StreamNode: *n, next: next}
	var idb [16]uint64
	ids := r.chunkIDs(idb[:0])
	var kb [DataPrefixLen + 21]byte
	// The chunks are read without entering the key cache: all but chunk 0 go in this batch.
	all := t.xmerge[:0]
	if r.Tagged {
		all = append(all, chunkPacked)
	}
	t.nocache = true
	for _, k := range ids {
		c, ok, err := t.get(streamChunkKey(kb[:0], m.ID, r.Master, k)) // writes a staged chunk first
		if err == nil && ok {
			all, err = appendChunkPacked(all, &r, c)
		}
		if err != nil {
			t.nocache = false
			return err
		}
		if len(all) > streamPackMax {
			all = nil
			break
		}
	}
	t.nocache = false
	if all != nil {
		t.xmerge = all
		if r.Tagged && len(all) == 1 {
			all = nil // no entry is left to merge
		}
	}
	if all != nil {
		for _, k := range ids[1:] {
			t.del(streamChunkKey(kb[:0], m.ID, r.Master, k))
		}
		t.put(streamChunkKey(kb[:0], m.ID, r.Master, 0), all)
		r.merged = r.Total
	}
	var nb [streamChunkedLen]byte
	t.put(streamNodeKey(kb[:0], m.ID, r.Master), r.encode(nb[:0]))
	return nil
}

// flushChunk writes the staged stream chunk, if any.
func (t *Txn) flushChunk() {
	if t.xpend {
		t.xpend = false
		t.put(t.xpendKey, t.xbuf)
	}
}

// editChunks removes from chunked node r of m, walking its entries from the first, those drop
// reports to go, until it stops the walk; it returns their number and rewrites the chunks
// that changed, deleting those left empty. r's counters are the caller's.
func (t *Txn) editChunks(m *Meta, r *xnode, drop func(e StreamID) (gone, more bool)) (int64, error) {
	t.flushChunk()
	var n int64
	var kb [DataPrefixLen + 21]byte
	more := true
	var idb [16]uint64
	for _, i := range r.chunkIDs(idb[:0]) {
		if !more {
			break
		}
		k := streamChunkKey(kb[:0], m.ID, r.Master, i)
		c, ok, err := t.get(k)
		if err != nil {
			return n, err
		}
		if !ok {
			continue
		}
		c, compact, err := packedChunk(r, c)
		if err != nil {
			return n, err
		}
		out, gone, stop, err := dropPacked(c, drop)
		if err != nil {
			return n, err
		}
		more = !stop
		if gone == 0 {
			continue
		}
		n += gone
		if len(out) == 0 {
			t.del(k)
			continue
		}
		if out, err = chunkRecord(r, out, compact); err != nil {
			return n, err
		}
		t.put(k, out)
	}
	return n, nil
}

// dropChunks deletes every chunk of node r of m.
func (t *Txn) dropChunks(m *Meta, r *xnode) {
	t.flushChunk() // its deletion must follow the staged write
	var kb [DataPrefixLen + 21]byte
	var idb [16]uint64
	for _, i := range r.chunkIDs(idb[:0]) {
		t.del(streamChunkKey(kb[:0], m.ID, r.Master, i))
	}
}

// dropPacked returns chunk c without the entries drop reports to go, walking from the first
// until drop stops the walk (stopped true), and their number; c itself is left as it is.
func dropPacked(c []byte, drop func(e StreamID) (gone, more bool)) (out []byte, n int64, stopped bool, err error) {
	p := c
	for len(p) > 0 {
		id, _, rest, ok := nextPacked(p)
		if !ok {
			return nil, 0, true, fmt.Errorf("%w: stream chunk", errCorrupt)
		}
		gone, more := drop(id)
		if gone {
			if out == nil {
				out = append(make([]byte, 0, len(c)), c[:len(c)-len(p)]...)
			}
			n++
		} else if out != nil {
			out = append(out, p[:len(p)-len(rest)]...)
		}
		p = rest
		if !more {
			stopped = true
			break
		}
	}
	if out == nil {
		return c, 0, stopped, nil
	}
	return append(out, p...), n, stopped, nil
}
