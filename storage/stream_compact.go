package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Tagged chunks
//
// In a node of layout layoutTagged, every chunk record begins with a tag: chunkPacked, the
// packed form of stream_node.go (ID, then the entry's reply in RESP), or chunkCompact, the form
// XADD writes while the node is the tail. A compact entry is its ID as two uvarints (the
// milliseconds above the node's master ID, the sequence), a uvarint header (the number of
// fields and values, shifted left once, with bit 0 set when the field names are those of the
// chunk's first entry) and its strings, each a uvarint length and its bytes: the values alone
// when the names are the first entry's. An entry of one short field and value takes about ten
// bytes instead of some sixty in packed form, so an XADD rewrites, stages, caches and journals
// a chunk a sixth of the size. The node's chunks are packed into chunk 0 when it closes, so a
// closed node still answers XRANGE with a copy; a reader of a compact chunk (the tail's) builds
// its packed form first.

const (
	chunkPacked  = 0
	chunkCompact = 1
)

// appendCompact appends entry e of the node with master ID master, fields and values fv, in
// compact form; first holds the field names of the chunk's first entry (nil for the first).
func appendCompact(dst []byte, master, e StreamID, fv, first [][]byte) []byte {
	same := first != nil && len(first)*2 == len(fv)
	for i := 0; same && i < len(first); i++ {
		same = bytes.Equal(first[i], fv[2*i])
	}
	dst = binary.AppendUvarint(dst, e.Ms-master.Ms)
	dst = binary.AppendUvarint(dst, e.Seq)
	hdr := uint64(len(fv)) << 1
	if same {
		hdr |= 1
	}
	dst = binary.AppendUvarint(dst, hdr)
	for i, f := range fv {
		if same && i%2 == 0 {
			continue
		}
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

// compactReader reads the entries of a compact chunk (without its tag) in order.
type compactReader struct {
	master StreamID
	p      []byte
	first  [][]byte // the field names of the chunk's first entry
	fv     [][]byte // the entry read last; its strings alias the chunk
	n      int
}

// next reads the next entry into r.fv; ok is false at the end, err set on damage.
func (r *compactReader) next() (e StreamID, ok bool, err error) {
	if len(r.p) == 0 {
		return e, false, nil
	}
	msd, seq, items, same, p, err := compactHead(r.p)
	if err != nil {
		return e, false, err
	}
	if same && (r.n == 0 || uint64(len(r.first))*2 != items) || msd > ^uint64(0)-r.master.Ms {
		return e, false, errCompact
	}
	r.fv = r.fv[:0]
	for i := 0; i < int(items); i++ {
		if same && i%2 == 0 {
			r.fv = append(r.fv, r.first[i/2])
			continue
		}
		var f []byte
		if f, p, ok = compactString(p); !ok {
			return e, false, errCompact
		}
		r.fv = append(r.fv, f)
	}
	if r.n == 0 {
		for i := 0; i < int(items); i += 2 {
			r.first = append(r.first, r.fv[i])
		}
	}
	r.n++
	r.p = p
	return StreamID{r.master.Ms + msd, seq}, true, nil
}

var errCompact = fmt.Errorf("%w: compact stream chunk", errCorrupt)

// compactHead reads the head of the compact entry at the start of p: its ID's offsets, the
// number of its fields and values, whether its names are the chunk's first entry's, and the
// bytes after the head.
func compactHead(p []byte) (msd, seq, items uint64, same bool, rest []byte, err error) {
	var v [3]uint64
	for i := range v {
		x, w := binary.Uvarint(p)
		if w <= 0 {
			return 0, 0, 0, false, nil, errCompact
		}
		v[i], p = x, p[w:]
	}
	items, same = v[2]>>1, v[2]&1 == 1
	stored := items // strings that follow: each takes at least its length byte
	if same {
		stored /= 2
	}
	if items == 0 || items%2 != 0 || stored > uint64(len(p)) {
		return 0, 0, 0, false, nil, errCompact
	}
	return v[0], v[1], items, same, p, nil
}

// compactString splits the string (uvarint length, bytes) at the start of p off the rest.
func compactString(p []byte) (s, rest []byte, ok bool) {
	l, w := binary.Uvarint(p)
	if w <= 0 || l > uint64(len(p)-w) {
		return nil, nil, false
	}
	return p[w : w+int(l)], p[w+int(l):], true
}

// compactFirst returns the field names of the first entry of compact chunk c (without its
// tag), appended to dst. It is the reader's first step without building the fields, since
// XADD calls it for every append.
func compactFirst(c []byte, dst [][]byte) ([][]byte, error) {
	_, _, items, same, p, err := compactHead(c)
	if err != nil || same {
		return nil, errCompact
	}
	for i := uint64(0); i < items; i++ {
		var f []byte
		var ok bool
		if f, p, ok = compactString(p); !ok {
			return nil, errCompact
		}
		if i%2 == 0 {
			dst = append(dst, f)
		}
	}
	return dst, nil
}

// compactToPacked appends the packed form of compact chunk c (without its tag) of the node
// with master ID master to dst.
func compactToPacked(dst []byte, master StreamID, c []byte) ([]byte, error) {
	r := compactReader{master: master, p: c}
	var rb [256]byte
	for {
		e, ok, err := r.next()
		if err != nil || !ok {
			return dst, err
		}
		resp := AppendStreamEntry(rb[:0], e, r.fv)
		dst = appendPacked(dst, e, resp)
	}
}

// packedToCompact appends the compact form of packed entries p of the node with master ID
// master to dst.
func packedToCompact(dst []byte, master StreamID, p []byte) ([]byte, error) {
	var first, fv [][]byte
	for len(p) > 0 {
		e, resp, rest, ok := nextPacked(p)
		if !ok {
			return dst, fmt.Errorf("%w: stream chunk", errCorrupt)
		}
		var err error
		if fv, err = entryFields(resp, fv[:0]); err != nil {
			return dst, err
		}
		dst = appendCompact(dst, master, e, fv, first)
		if first == nil {
			for i := 0; i < len(fv); i += 2 {
				first = append(first, append([]byte(nil), fv[i]...))
			}
		}
		p = rest
	}
	return dst, nil
}

// packedChunk returns chunk record c of node r in packed form (without a tag), and whether it
// was compact; the packed form of a compact chunk is a new slice.
func packedChunk(r *xnode, c []byte) (packed []byte, compact bool, err error) {
	switch {
	case !r.Tagged:
		return c, false, nil
	case len(c) > 0 && c[0] == chunkPacked:
		return c[1:], false, nil
	}
	p, err := appendChunkPacked(make([]byte, 0, len(c)*6), r, c)
	return p, true, err
}

// chunkRecord returns the record of a chunk of node r holding packed entries p, in compact
// form when compact (and r is tagged).
func chunkRecord(r *xnode, p []byte, compact bool) ([]byte, error) {
	if !r.Tagged {
		return p, nil
	}
	if !compact {
		return append([]byte{chunkPacked}, p...), nil
	}
	return packedToCompact([]byte{chunkCompact}, r.Master, p)
}

// appendChunkPacked appends the entries of chunk record c of node r to dst in packed form.
func appendChunkPacked(dst []byte, r *xnode, c []byte) ([]byte, error) {
	if !r.Tagged {
		return append(dst, c...), nil
	}
	if len(c) == 0 {
		return dst, fmt.Errorf("%w: empty stream chunk", errCorrupt)
	}
	switch c[0] {
	case chunkPacked:
		return append(dst, c[1:]...), nil
	case chunkCompact:
		return compactToPacked(dst, r.Master, c[1:])
	}
	return dst, fmt.Errorf("%w: stream chunk tag %d", errCorrupt, c[0])
}
