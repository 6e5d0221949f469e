package replication

// Backlog keeps the last Size bytes of the replication stream, each at its offset. The zero
// value is not usable; make one with NewBacklog. A Backlog is not safe for concurrent use: its
// owner (the master's propagation path) serialises Append and ReadFrom.
type Backlog struct {
	buf   []byte // allocated on the first Append
	size  int
	start int64 // offset of the first byte kept (meaningful when hist > 0)
	end   int64 // offset just past the last byte appended
	hist  int   // bytes kept: min(size, end-start)
}

// NewBacklog returns an empty backlog of size bytes whose next byte has offset next.
func NewBacklog(size int, next int64) *Backlog {
	if size < 1 {
		size = 1
	}
	return &Backlog{size: size, start: next, end: next}
}

// Size is the capacity in bytes (repl-backlog-size).
func (b *Backlog) Size() int { return b.size }

// Active reports whether the ring has been allocated (repl_backlog_active).
func (b *Backlog) Active() bool { return b.buf != nil }

// First is the offset of the first byte kept (repl_backlog_first_byte_offset).
func (b *Backlog) First() int64 { return b.start }

// End is the offset the next appended byte gets.
func (b *Backlog) End() int64 { return b.end }

// HistLen is the number of bytes kept (repl_backlog_histlen).
func (b *Backlog) HistLen() int { return b.hist }

// Append adds p to the stream; the oldest bytes leave when the ring is full.
func (b *Backlog) Append(p []byte) {
	if b.buf == nil {
		b.buf = make([]byte, b.size)
	}
	if len(p) > b.size {
		b.end += int64(len(p) - b.size)
		p = p[len(p)-b.size:]
		b.hist = 0
		b.start = b.end
	}
	for len(p) > 0 {
		at := int(b.end % int64(b.size))
		n := copy(b.buf[at:], p)
		p = p[n:]
		b.end += int64(n)
		b.hist += n
	}
	if b.hist > b.size {
		b.hist = b.size
	}
	b.start = b.end - int64(b.hist)
}

// ReadFrom returns the bytes from offset to the end, in at most two slices that alias the
// ring (valid until the next Append), and ok false when offset is before the first byte kept
// or past the end: then the replica needs a full resynchronisation.
func (b *Backlog) ReadFrom(offset int64) (first, second []byte, ok bool) {
	if offset < b.start || offset > b.end {
		return nil, nil, false
	}
	n := int(b.end - offset)
	if n == 0 {
		return nil, nil, true
	}
	at := int(offset % int64(b.size))
	if at+n <= b.size {
		return b.buf[at : at+n], nil, true
	}
	return b.buf[at:], b.buf[:at+n-b.size], true
}

// Resize changes the capacity, keeping the newest bytes that fit (CONFIG SET
// repl-backlog-size).
func (b *Backlog) Resize(size int) {
	if size < 1 {
		size = 1
	}
	if size == b.size {
		return
	}
	keep := b.hist
	if keep > size {
		keep = size
	}
	from := b.end - int64(keep)
	first, second, _ := b.ReadFrom(from)
	nb := &Backlog{size: size, start: from, end: from}
	if b.buf != nil {
		nb.Append(first)
		nb.Append(second)
	}
	*b = *nb
}
