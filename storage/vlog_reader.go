package storage

import (
	"fmt"
	"hash"
	"hash/crc32"
	"io"
)

// ValueReader reads one value-log value from its file in the caller's pieces, so that sending
// a value of any size (a full synchronisation's RDB, an export) holds no more of it in memory
// than the caller's buffer. The checksum the pointer carries is computed on the way and
// checked once the last byte is read: when it does not match, the read that reaches the end
// returns no bytes and an error wrapping ErrValueLog.
//
// The reader holds a reference to its file, which keeps the file open even if the collector
// moves the value and deletes the file meanwhile (the file is closed once its last reference
// goes, vfile.release); a record is never overwritten in place, so the bytes stay those the
// pointer was taken with. Close releases the reference.
type ValueReader struct {
	f    *vfile
	sr   *io.SectionReader
	p    vptr
	sum  hash.Hash32
	read int64
	err  error
}

// StringReader returns a reader over the bytes of string m, which holds a value-log pointer
// (m.Enc is EncValueLog); the caller closes it. A transaction of a Snapshot may hand it to
// another goroutine: it needs neither the transaction nor the snapshot once open.
func (t *Txn) StringReader(m *Meta) (*ValueReader, error) {
	if m.Type != TypeString || m.Enc != EncValueLog {
		return nil, fmt.Errorf("storage: StringReader of a value not in the value log (type %s, encoding %d)", m.Type, m.Enc)
	}
	p, err := decodeVPtr(m.Value)
	if err != nil {
		return nil, err
	}
	return t.s.vlog.openReader(p)
}

func (l *valueLog) openReader(p vptr) (*ValueReader, error) {
	f := l.acquire(p.file)
	if f == nil {
		return nil, fmt.Errorf("%w: file %s is missing", ErrValueLog, vlogFileName(p.file))
	}
	if p.off+p.n > f.size.Load() {
		f.release()
		return nil, fmt.Errorf("%w: %d bytes at %d are past the end of %s", ErrValueLog, p.n, p.off, vlogFileName(p.file))
	}
	return &ValueReader{f: f, sr: io.NewSectionReader(f.f, p.off, p.n), p: p,
		sum: crc32.New(castagnoli)}, nil
}

// Len returns the length of the value.
func (r *ValueReader) Len() int64 { return r.p.n }

// Read reads the next bytes of the value.
func (r *ValueReader) Read(b []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.f == nil {
		return 0, fmt.Errorf("%w: read after Close", ErrValueLog)
	}
	n, err := r.sr.Read(b)
	r.sum.Write(b[:n])
	r.read += int64(n)
	switch {
	case err == io.EOF && r.read < r.p.n:
		err = fmt.Errorf("%w: %s ends %d bytes into a value of %d", ErrValueLog, vlogFileName(r.p.file), r.read, r.p.n)
	case err != nil && err != io.EOF:
		err = fmt.Errorf("%w: %s: %v", ErrValueLog, vlogFileName(r.p.file), err)
	case r.read == r.p.n && r.sum.Sum32() != r.p.crc:
		// The last piece is withheld, so that io.ReadFull, which drops an error that comes
		// with the bytes it asked for, reports it.
		n, err = 0, fmt.Errorf("%w: checksum mismatch for %d bytes at %d in %s", ErrValueLog, r.p.n, r.p.off, vlogFileName(r.p.file))
	case r.read == r.p.n:
		err = io.EOF
	}
	r.err = err
	return n, err
}

// Close releases the value's file.
func (r *ValueReader) Close() error {
	if r.f != nil {
		r.f.release()
		r.f = nil
	}
	return nil
}
