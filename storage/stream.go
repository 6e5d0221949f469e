package storage

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// Streams
//
// A stream's entries are records under its object ID keyed by their ID as 16 big-endian bytes
// (sub-key streamEntry, ms(8), seq(8)), so XRANGE is one bounded iterator and XADD one put,
// whatever the stream's length. The metadata holds what Redis keeps in the stream object: the
// length, the last, first and largest deleted IDs, the number of entries ever added and of
// consumer groups (StreamMeta).
//
// Redis packs entries into listpack nodes of at most stream-node-max-entries entries and
// stream-node-max-bytes bytes, and approximate trimming (MAXLEN ~, MINID ~) removes whole nodes
// only. Strata keeps the same node boundaries as records (sub-key streamNode, master ID) that
// count a node's live and deleted entries and estimate its listpack size, so that approximate
// trims remove exactly the entries Redis removes. The tail node lives in the metadata, so that
// XADD reads and writes nothing but the metadata and the entry: its record is written when the
// node starts and again when the next node starts, and readers take the metadata's copy of it.
//
// Consumer groups, their pending-entries lists and consumers are records too (stream_group.go).

// Sub-key tags of a stream's records.
const (
	streamEntry    = 0x00 // ID(16) -> fields
	streamNode     = 0x01 // master ID(16) -> node counters
	streamGroup    = 0x02 // name -> group state
	streamPEL      = 0x03 // group ID(8) entry ID(16) -> delivery time, count, consumer
	streamConsumer = 0x04 // group ID(8) name -> consumer state
	streamOwned    = 0x05 // group ID(8) len(4) consumer entry ID(16): a consumer's pending entries
	streamChunk    = 0x06 // master ID(16) chunk(4) -> entries (stream_node.go)
)

// StreamID is a stream entry ID.
type StreamID struct{ Ms, Seq uint64 }

// MaxStreamID is the largest ID.
var MaxStreamID = StreamID{^uint64(0), ^uint64(0)}

// Cmp compares a and b.
func (a StreamID) Cmp(b StreamID) int {
	switch {
	case a.Ms < b.Ms:
		return -1
	case a.Ms > b.Ms:
		return 1
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// Incr returns the ID after id; ok is false for the largest ID.
func (a StreamID) Incr() (StreamID, bool) {
	switch {
	case a.Seq < ^uint64(0):
		a.Seq++
	case a.Ms < ^uint64(0):
		a.Ms, a.Seq = a.Ms+1, 0
	default:
		return StreamID{}, false
	}
	return a, true
}

// Decr returns the ID before id; ok is false for 0-0.
func (a StreamID) Decr() (StreamID, bool) {
	switch {
	case a.Seq > 0:
		a.Seq--
	case a.Ms > 0:
		a.Ms, a.Seq = a.Ms-1, ^uint64(0)
	default:
		return MaxStreamID, false
	}
	return a, true
}

// IsZero reports whether id is 0-0.
func (a StreamID) IsZero() bool { return a.Ms == 0 && a.Seq == 0 }

// String formats id as ms-seq.
func (a StreamID) String() string { return string(a.Append(nil)) }

// Append appends ms-seq to dst.
func (a StreamID) Append(dst []byte) []byte {
	dst = strconv.AppendUint(dst, a.Ms, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, a.Seq, 10)
}

func appendStreamID(dst []byte, id StreamID) []byte {
	dst = binary.BigEndian.AppendUint64(dst, id.Ms)
	return binary.BigEndian.AppendUint64(dst, id.Seq)
}

func readStreamID(b []byte) StreamID {
	return StreamID{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}
}

// StreamNode is one listpack node of Redis's layout: its master ID, its live and deleted
// entries, the last ID it holds (deleted or not), its estimated size and the hash of its master
// fields.
type StreamNode struct {
	Master      StreamID
	Valid       uint64
	Total       uint64
	Bytes       uint64
	Last        StreamID
	FieldsHash  uint64
	MasterCount uint64 // number of master fields
	Chunked     bool   // entries in chunks (stream_node.go), not in records of their own
	Tagged      bool   // chunked, each chunk tagged packed or compact (stream_compact.go)
}

const streamNodeLen = 16 + 8*3 + 16 + 8 + 8

func (n *StreamNode) encode(dst []byte) []byte {
	dst = appendStreamID(dst, n.Master)
	dst = binary.BigEndian.AppendUint64(dst, n.Valid)
	dst = binary.BigEndian.AppendUint64(dst, n.Total)
	dst = binary.BigEndian.AppendUint64(dst, n.Bytes)
	dst = appendStreamID(dst, n.Last)
	dst = binary.BigEndian.AppendUint64(dst, n.FieldsHash)
	return binary.BigEndian.AppendUint64(dst, n.MasterCount)
}

func (n *StreamNode) decode(b []byte) {
	n.Master = readStreamID(b)
	n.Valid = binary.BigEndian.Uint64(b[16:])
	n.Total = binary.BigEndian.Uint64(b[24:])
	n.Bytes = binary.BigEndian.Uint64(b[32:])
	n.Last = readStreamID(b[40:])
	n.FieldsHash = binary.BigEndian.Uint64(b[56:])
	n.MasterCount = binary.BigEndian.Uint64(b[64:])
}

// StreamMeta is the stream state held in a stream key's metadata.
type StreamMeta struct {
	Last, First, MaxDeleted StreamID
	EntriesAdded            uint64
	Groups                  uint64
	Nodes                   uint64     // listpack nodes (XINFO's radix-tree-keys)
	Tail                    StreamNode // the last node; Total 0 when the stream has none
}

// encode appends x in uvarints (the fields hash fixed), most of them one or two bytes.
func (x *StreamMeta) encode(dst []byte) []byte {
	for _, v := range [...]uint64{x.Last.Ms, x.Last.Seq, x.First.Ms, x.First.Seq, x.MaxDeleted.Ms,
		x.MaxDeleted.Seq, x.EntriesAdded, x.Groups, x.Nodes, x.Tail.Master.Ms, x.Tail.Master.Seq,
		x.Tail.Valid, x.Tail.Total, x.Tail.Bytes, x.Tail.Last.Ms, x.Tail.Last.Seq, x.Tail.MasterCount} {
		dst = binary.AppendUvarint(dst, v)
	}
	dst = binary.BigEndian.AppendUint64(dst, x.Tail.FieldsHash)
	if x.Tail.Chunked {
		dst = append(dst, x.Tail.layout())
	}
	return dst
}

// decode reads what encode wrote and reports whether b held exactly that.
func (x *StreamMeta) decode(b []byte) bool {
	ptrs := [...]*uint64{&x.Last.Ms, &x.Last.Seq, &x.First.Ms, &x.First.Seq, &x.MaxDeleted.Ms,
		&x.MaxDeleted.Seq, &x.EntriesAdded, &x.Groups, &x.Nodes, &x.Tail.Master.Ms, &x.Tail.Master.Seq,
		&x.Tail.Valid, &x.Tail.Total, &x.Tail.Bytes, &x.Tail.Last.Ms, &x.Tail.Last.Seq, &x.Tail.MasterCount}
	for _, p := range ptrs {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return false
		}
		*p, b = v, b[n:]
	}
	switch {
	case len(b) == 9 && (b[8] == layoutChunked || b[8] == layoutTagged):
		x.Tail.Chunked, x.Tail.Tagged = true, b[8] == layoutTagged
	case len(b) != 8:
		return false
	}
	x.Tail.FieldsHash = binary.BigEndian.Uint64(b)
	return true
}

func streamEntryKey(dst []byte, id uint64, e StreamID) []byte {
	dst = DataKey(dst, id, nil)
	dst = append(dst, streamEntry)
	return appendStreamID(dst, e)
}

func streamNodeKey(dst []byte, id uint64, master StreamID) []byte {
	dst = DataKey(dst, id, nil)
	dst = append(dst, streamNode)
	return appendStreamID(dst, master)
}

// StreamMetaOf returns key's stream metadata, nil if the key does not exist, ErrWrongType if it
// holds another type.
func (t *Txn) StreamMetaOf(key []byte) (*Meta, error) { return t.GetMetaOf(key, TypeStream) }

// NewStream returns the metadata of a new empty stream, not stored yet.
func (t *Txn) NewStream() (*Meta, error) {
	id, err := t.NewID()
	if err != nil {
		return nil, err
	}
	return &Meta{Type: TypeStream, ID: id, X: &StreamMeta{}}, nil
}

// StreamLimits are the node bounds of stream-node-max-entries and stream-node-max-bytes.
type StreamLimits struct{ MaxEntries, MaxBytes int64 }

// DefaultStreamLimits are Redis's defaults of stream-node-max-entries and -bytes.
var DefaultStreamLimits = StreamLimits{MaxEntries: 100, MaxBytes: 4096}

// SetStreamLimits sets the node bounds of the stream appends from now on.
func (s *Store) SetStreamLimits(l StreamLimits) { s.xlim.Store(&l) }

// StreamLimits returns the node bounds in force.
func (s *Store) StreamLimits() StreamLimits {
	if l := s.xlim.Load(); l != nil {
		return *l
	}
	return DefaultStreamLimits
}

const streamListpackMax = 1 << 30

// EncodeStreamFields encodes an entry's fields and values.
func EncodeStreamFields(dst []byte, fv [][]byte) []byte {
	for _, f := range fv {
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

// DecodeStreamFields splits an entry record into its fields and values, aliasing b.
func DecodeStreamFields(b []byte, dst [][]byte) ([][]byte, error) {
	for len(b) > 0 {
		f, rest, ok := NextStreamField(b)
		if !ok {
			return dst, errCorrupt
		}
		dst = append(dst, f)
		b = rest
	}
	return dst, nil
}

// streamTagNodes makes new chunked nodes tagged (stream_compact.go); tests clear it to write
// the untagged nodes of a format-4 directory.
var streamTagNodes = true

// StreamAppend adds an entry with ID e (greater than the stream's last ID) and fields fv to the
// stream m, placing it in Redis's node layout. The caller stores m.
func (t *Txn) StreamAppend(m *Meta, e StreamID, fv [][]byte, lim StreamLimits) error {
	x := m.X
	var size uint64
	for _, f := range fv {
		size += uint64(len(f))
	}
	maxBytes := uint64(lim.MaxBytes)
	if maxBytes == 0 || maxBytes > streamListpackMax {
		maxBytes = streamListpackMax
	}
	n := &x.Tail
	var kb [DataPrefixLen + 17]byte
	var nb [streamChunkedLen]byte
	if n.Total > 0 && (n.Bytes+size >= maxBytes || lim.MaxEntries > 0 && n.Total >= uint64(lim.MaxEntries)) {
		if n.Chunked { // the old tail, final
			if err := t.closeChunked(m, n, e); err != nil {
				return err
			}
		} else {
			t.put(streamNodeKey(kb[:0], m.ID, n.Master), n.encode(nb[:0]))
		}
		n.Total = 0
	}
	created := n.Total == 0
	h := fieldsHash(fv)
	nf := uint64(len(fv) / 2)
	if n.Total == 0 {
		x.Nodes++
		chunked := lim.MaxBytes > 0 && lim.MaxBytes <= streamChunkedMax
		*n = StreamNode{Master: e, FieldsHash: h, MasterCount: nf, Chunked: chunked, Tagged: chunked && streamTagNodes}
		n.Bytes = 6 + 1 + lpIntSize(1) + lpIntSize(0) + lpIntSize(int64(nf)) + lpIntSize(0)
		for i := 0; i < len(fv); i += 2 {
			n.Bytes += lpStrSize(fv[i])
		}
	}
	same := h == n.FieldsHash && nf == n.MasterCount
	msd, seqd := int64(e.Ms-n.Master.Ms), int64(e.Seq-n.Master.Seq)
	add := lpIntSize(0) + lpIntSize(msd) + lpIntSize(seqd)
	elems := int64(3)
	for i, f := range fv {
		if i%2 == 1 || !same {
			add += lpStrSize(f)
			elems++
		}
	}
	if !same {
		add += lpIntSize(int64(nf))
		elems++
	}
	add += lpIntSize(elems)
	n.Bytes += add
	ord := n.Total
	n.Valid++
	n.Total++
	n.Last = e
	if created {
		r := xnode{StreamNode: *n}
		t.put(streamNodeKey(kb[:0], m.ID, n.Master), r.encode(nb[:0]))
	}
	if n.Chunked {
		if err := t.appendChunked(m, n, ord, e, fv); err != nil {
			return err
		}
	} else {
		var vb [64]byte
		t.put(streamEntryKey(kb[:0], m.ID, e), EncodeStreamFields(vb[:0], fv))
	}
	if m.Size == 0 {
		x.First = e
	}
	m.Size++
	x.Last = e
	x.EntriesAdded++
	return nil
}

// fieldsHash is the FNV-1a hash of an entry's field names, each preceded by its length.
func fieldsHash(fv [][]byte) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := 0; i < len(fv); i += 2 {
		n := uint32(len(fv[i]))
		for _, c := range [4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)} {
			h = (h ^ uint64(c)) * prime
		}
		for _, c := range fv[i] {
			h = (h ^ uint64(c)) * prime
		}
	}
	return h
}

// lpIntSize estimates the bytes a listpack spends on integer v with its back-length.
func lpIntSize(v int64) uint64 {
	switch {
	case v >= 0 && v <= 127:
		return 2
	case v >= -4096 && v <= 4095:
		return 3
	case v >= -1<<15 && v < 1<<15:
		return 4
	case v >= -1<<23 && v < 1<<23:
		return 5
	case v >= -1<<31 && v < 1<<31:
		return 6
	}
	return 10
}

// lpInteger reports whether a listpack stores s as an integer (a canonical int64) and which.
func lpInteger(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	d := s
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || d[0] == '0' && (len(d) > 1 || len(s) > 1) {
		return 0, len(s) == 1 && s[0] == '0'
	}
	var v uint64
	for _, c := range d {
		if c < '0' || c > '9' || v > (1<<63)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	switch {
	case s[0] == '-' && v <= 1<<63:
		return -int64(v), true
	case s[0] != '-' && v < 1<<63:
		return int64(v), true
	}
	return 0, false
}

// lpStrSize estimates the bytes a listpack spends on string s with its back-length.
func lpStrSize(s []byte) uint64 {
	if v, ok := lpInteger(s); ok {
		return lpIntSize(v)
	}
	l := uint64(len(s))
	var enc uint64
	switch {
	case l < 64:
		enc = 1 + l
	case l < 4096:
		enc = 2 + l
	default:
		enc = 5 + l
	}
	switch {
	case enc < 128:
		return enc + 1
	case enc < 16384:
		return enc + 2
	case enc < 2097152:
		return enc + 3
	}
	return enc + 5
}

// StreamRange calls fn for the entries with IDs in [start, end] of stream m, in order (reverse:
// from end down), until fn returns false or count entries (0: no bound) were seen. fields is
// valid during the call only.
func (t *Txn) StreamRange(m *Meta, start, end StreamID, rev bool, count int64, fn func(e StreamID, fields [][]byte) bool) error {
	var fv [][]byte
	var derr error
	var seen int64
	err := t.walkStream(m, start, end, rev, func(e StreamID, resp, enc []byte) bool {
		if resp != nil {
			fv, derr = entryFields(resp, fv[:0])
		} else {
			fv, derr = DecodeStreamFields(enc, fv[:0])
		}
		if derr != nil {
			derr = fmt.Errorf("%w: stream entry %s", derr, e)
			return false
		}
		seen++
		return fn(e, fv) && (count <= 0 || seen < count)
	})
	if derr != nil {
		return derr
	}
	return err
}

// StreamRangeReply is StreamRange handing fn each entry's reply (AppendStreamEntry), so that
// XRANGE writes it as it is. reply is valid until fn returns.
func (t *Txn) StreamRangeReply(m *Meta, start, end StreamID, rev bool, count int64, fn func(e StreamID, reply []byte) bool) error {
	var scratch []byte
	var derr error
	var seen int64
	err := t.walkStream(m, start, end, rev, func(e StreamID, resp, enc []byte) bool {
		if resp == nil {
			if scratch, derr = appendEncodedEntry(scratch[:0], e, enc); derr != nil {
				return false
			}
			resp = scratch
		}
		seen++
		return fn(e, resp) && (count <= 0 || seen < count)
	})
	if derr != nil {
		return derr
	}
	return err
}

// StreamFieldCount returns the number of fields and values of an entry's encoding, after
// checking that NextStreamField can read them all.
func StreamFieldCount(enc []byte) (int, error) {
	n := 0
	for ; len(enc) > 0; n++ {
		var ok bool
		if _, enc, ok = NextStreamField(enc); !ok {
			return 0, errCorrupt
		}
	}
	return n, nil
}

// NextStreamField returns the first field or value of an entry's encoding and the rest of it;
// ok is false when enc is empty or damaged.
func NextStreamField(enc []byte) (f, rest []byte, ok bool) {
	n, w := binary.Uvarint(enc)
	if w <= 0 || uint64(len(enc)-w) < n {
		return nil, nil, false
	}
	return enc[w : w+int(n)], enc[w+int(n):], true
}

// StreamGet returns the fields of entry e of stream m, ok false when it does not exist.
func (t *Txn) StreamGet(m *Meta, e StreamID) ([][]byte, bool, error) {
	r, ok, err := t.nodeHolding(m, e)
	if err != nil || !ok {
		return nil, false, err
	}
	if !r.Chunked {
		v, ok, err := t.get(streamEntryKey(nil, m.ID, e))
		if err != nil || !ok {
			return nil, false, err
		}
		fv, err := DecodeStreamFields(append([]byte(nil), v...), nil)
		return fv, err == nil, err
	}
	var fv [][]byte
	var ferr error
	found := false
	if _, err := t.walkNode(m, &r, e, e, false, func(_ StreamID, resp, _ []byte) bool {
		fv, ferr = entryFields(append([]byte(nil), resp...), nil)
		found = true
		return false
	}); err != nil {
		return nil, false, err
	}
	return fv, found && ferr == nil, ferr
}

// streamEdge returns the first (or last) entry ID of m, ok false when it has none.
func (t *Txn) streamEdge(m *Meta, last bool) (StreamID, bool, error) {
	var got StreamID
	found := false
	err := t.walkStream(m, StreamID{}, MaxStreamID, last, func(e StreamID, _, _ []byte) bool {
		got, found = e, true
		return false
	})
	return got, found, err
}

// StreamFirstEntry returns the ID of the first entry of m, ok false when the stream is empty.
func (t *Txn) StreamFirstEntry(m *Meta) (StreamID, bool, error) { return t.streamEdge(m, false) }

// StreamLastEntry returns the ID of the last entry of m (not the last ID ever added), ok false
// when the stream is empty.
func (t *Txn) StreamLastEntry(m *Meta) (StreamID, bool, error) { return t.streamEdge(m, true) }

// putNode stores node r of m, or deletes it when it holds no live entry; the tail in m follows,
// and when the tail goes, the node before it becomes the tail, with its entries in records of
// their own again.
func (t *Txn) putNode(m *Meta, r *xnode) error {
	k := streamNodeKey(nil, m.ID, r.Master)
	isTail := m.isTail(r.Master)
	if r.Valid > 0 {
		if isTail {
			m.X.Tail = r.StreamNode
		}
		t.put(k, r.encode(nil))
		return nil
	}
	t.del(k)
	m.X.Nodes--
	if !isTail {
		return nil
	}
	m.X.Tail = StreamNode{}
	prev, ok, err := t.nodeBefore(m, r)
	if err != nil || !ok {
		return err
	}
	m.X.Tail = prev.StreamNode // appends go on in its chunks, or its own records
	return nil
}

// StreamDelete deletes entry e of stream m and reports whether it existed. The caller stores m.
func (t *Txn) StreamDelete(m *Meta, e StreamID) (bool, error) {
	r, ok, err := t.nodeHolding(m, e)
	if err != nil || !ok {
		return false, err
	}
	if r.Chunked {
		n, err := t.editChunks(m, &r, func(id StreamID) (bool, bool) { return id == e, id.Cmp(e) < 0 })
		if err != nil || n == 0 {
			return false, err
		}
	} else {
		k := streamEntryKey(nil, m.ID, e)
		if _, own, err := t.get(k); err != nil || !own {
			return false, err
		}
		t.del(k)
	}
	r.Valid--
	if err := t.putNode(m, &r); err != nil {
		return false, err
	}
	m.Size--
	if e.Cmp(m.X.MaxDeleted) > 0 {
		m.X.MaxDeleted = e
	}
	return true, t.fixFirst(m, e)
}

// fixFirst recomputes m's first ID once entries up to e may have gone.
func (t *Txn) fixFirst(m *Meta, e StreamID) error {
	if m.Size == 0 {
		m.X.First = StreamID{}
		return nil
	}
	if e.Cmp(m.X.First) < 0 {
		return nil
	}
	first, _, err := t.streamEdge(m, false)
	m.X.First = first
	return err
}
