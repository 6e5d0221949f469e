package rdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// output buffers what a writer produces and keeps its CRC-64.
type output struct {
	w   io.Writer
	buf []byte
	crc uint64
	err error

	noCompress bool   // strings are written raw (rdbcompression no)
	piece      []byte // StringFrom's copy buffer (bigstring.go), made on first use
}

const outputBufSize = 64 << 10

func (o *output) write(p []byte) {
	if o.err != nil {
		return
	}
	if len(o.buf)+len(p) > outputBufSize {
		o.flush()
	}
	if len(p) > outputBufSize {
		o.crc = crcUpdate(o.crc, p)
		_, o.err = o.w.Write(p)
		return
	}
	o.buf = append(o.buf, p...)
}

func (o *output) byte(c byte) { o.write([]byte{c}) }

func (o *output) flush() {
	if o.err != nil || len(o.buf) == 0 {
		return
	}
	o.crc = crcUpdate(o.crc, o.buf)
	_, o.err = o.w.Write(o.buf)
	o.buf = o.buf[:0]
}

// sum returns the CRC-64 of everything written so far.
func (o *output) sum() uint64 { return crcUpdate(o.crc, o.buf) }

func (o *output) length(n uint64) {
	var b [9]byte
	o.write(b[:putLength(b[:], n)])
}

// str writes a string: as an integer when it is one's canonical decimal
// form that fits 32 bits, LZF-compressed when it is longer than 20 bytes
// and compression saves at least 4, raw otherwise.
func (o *output) str(s []byte) {
	if len(s) > 0 && len(s) <= 11 {
		if v, err := strconv.ParseInt(string(s), 10, 32); err == nil && strconv.FormatInt(v, 10) == string(s) {
			var b [5]byte
			switch {
			case v >= math.MinInt8 && v <= math.MaxInt8:
				o.write([]byte{0xc0, byte(v)})
			case v >= math.MinInt16 && v <= math.MaxInt16:
				b[0] = 0xc1
				binary.LittleEndian.PutUint16(b[1:], uint16(v))
				o.write(b[:3])
			default:
				b[0] = 0xc2
				binary.LittleEndian.PutUint32(b[1:], uint32(v))
				o.write(b[:5])
			}
			return
		}
	}
	if len(s) > 20 && !o.noCompress {
		if c := lzfCompress(s); c != nil {
			o.byte(0xc3)
			o.length(uint64(len(c)))
			o.length(uint64(len(s)))
			o.write(c)
			return
		}
	}
	o.length(uint64(len(s)))
	o.write(s)
}

func (o *output) uint64LE(v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	o.write(b[:])
}

// ValueWriter writes one value in the encodings every Redis from 6.2 on
// loads: a string (type 0), a list as a linked list (1), a set as a table
// (2), a sorted set with binary scores (5), a hash as a table (4). A value
// starts with String, or with List, Set, ZSet or Hash and its element count
// followed by exactly that many Member, ScoredMember or Field calls.
type ValueWriter struct {
	out  *output
	kind Kind
	left uint64 // elements still owed
	open bool   // a value has been started
	// tailOwed is set while a stream's metadata and groups are still to come (stream_write.go).
	tailOwed bool
	// start writes what precedes the object type (a file's key header).
	start func(t byte)
}

var errValueState = errors.New("rdb: writer call out of order")

func (vw *ValueWriter) begin(t byte, k Kind, n uint64) error {
	if vw.open && vw.left > 0 || vw.start == nil {
		return errValueState
	}
	if k != KindString && n == 0 {
		return fmt.Errorf("rdb: a %s needs at least one element", k)
	}
	vw.start(t)
	vw.start = nil
	vw.kind, vw.left, vw.open = k, n, true
	if k != KindString {
		vw.out.length(n)
	}
	return vw.out.err
}

// String writes a string value.
func (vw *ValueWriter) String(s []byte) error {
	if err := vw.begin(TypeString, KindString, 0); err != nil {
		return err
	}
	vw.out.str(s)
	return vw.out.err
}

// List starts a list of n elements.
func (vw *ValueWriter) List(n uint64) error { return vw.begin(TypeList, KindList, n) }

// Set starts a set of n members.
func (vw *ValueWriter) Set(n uint64) error { return vw.begin(TypeSet, KindSet, n) }

// ZSet starts a sorted set of n members.
func (vw *ValueWriter) ZSet(n uint64) error { return vw.begin(TypeZSet2, KindZSet, n) }

// Hash starts a hash of n fields.
func (vw *ValueWriter) Hash(n uint64) error { return vw.begin(TypeHash, KindHash, n) }

func (vw *ValueWriter) element(k Kind) error {
	if !vw.open || vw.left == 0 || vw.kind != k && !(k == KindList && vw.kind == KindSet) {
		return errValueState
	}
	vw.left--
	return nil
}

// Member writes the next list element or set member.
func (vw *ValueWriter) Member(m []byte) error {
	if err := vw.element(KindList); err != nil {
		return err
	}
	vw.out.str(m)
	return vw.out.err
}

// ScoredMember writes the next sorted set member and its score.
func (vw *ValueWriter) ScoredMember(m []byte, score float64) error {
	if math.IsNaN(score) {
		return errors.New("rdb: NaN score")
	}
	if err := vw.element(KindZSet); err != nil {
		return err
	}
	vw.out.str(m)
	vw.out.uint64LE(math.Float64bits(score))
	return vw.out.err
}

// Field writes the next hash field and its value.
func (vw *ValueWriter) Field(f, v []byte) error {
	if err := vw.element(KindHash); err != nil {
		return err
	}
	vw.out.str(f)
	vw.out.str(v)
	return vw.out.err
}

// complete reports whether the value started has all its elements.
func (vw *ValueWriter) complete() bool { return vw.open && vw.left == 0 && !vw.tailOwed }

// Writer writes an RDB file of version DumpVersion: header, aux fields,
// databases and keys, then the EOF opcode and the CRC-64. Keys stream:
// Key, then one value through the embedded ValueWriter.
type Writer struct {
	ValueWriter
	out    output
	closed bool
}

// NewWriter writes the file header to w and returns the writer.
func NewWriter(w io.Writer) (*Writer, error) {
	wr := &Writer{out: output{w: w}}
	wr.ValueWriter.out = &wr.out
	wr.ValueWriter.open = true
	wr.out.write([]byte(fmt.Sprintf("REDIS%04d", DumpVersion)))
	return wr, wr.out.err
}

// SetCompression turns the LZF compression of strings on (the default) or off, as Redis's
// rdbcompression does.
func (w *Writer) SetCompression(on bool) { w.out.noCompress = !on }

func (w *Writer) between() error {
	if w.closed || !w.complete() {
		return errValueState
	}
	return w.out.err
}

// Aux writes an auxiliary field such as redis-ver or ctime.
func (w *Writer) Aux(key, value string) error {
	if err := w.between(); err != nil {
		return err
	}
	w.out.byte(opAux)
	w.out.str([]byte(key))
	w.out.str([]byte(value))
	return w.out.err
}

// SelectDB starts database db.
func (w *Writer) SelectDB(db int) error {
	if err := w.between(); err != nil {
		return err
	}
	if db < 0 {
		return fmt.Errorf("rdb: database %d", db)
	}
	w.out.byte(opSelectDB)
	w.out.length(uint64(db))
	return w.out.err
}

// ResizeDB writes the size hint of the current database.
func (w *Writer) ResizeDB(keys, expires uint64) error {
	if err := w.between(); err != nil {
		return err
	}
	w.out.byte(opResizeDB)
	w.out.length(keys)
	w.out.length(expires)
	return w.out.err
}

// Function writes a function library's source code (a record Redis 7.0
// and later load).
func (w *Writer) Function(code []byte) error {
	if err := w.between(); err != nil {
		return err
	}
	w.out.byte(opFunction2)
	w.out.str(code)
	return w.out.err
}

// Key starts a key expiring at expireAt (Unix milliseconds, -1 for none);
// its value follows through String, List, Set, ZSet or Hash.
func (w *Writer) Key(key []byte, expireAt int64) error {
	if err := w.between(); err != nil {
		return err
	}
	key = append([]byte(nil), key...)
	w.open = false
	w.start = func(t byte) {
		if expireAt >= 0 {
			w.out.byte(opExpireTimeMS)
			w.out.uint64LE(uint64(expireAt))
		}
		w.out.byte(t)
		w.out.str(key)
	}
	return nil
}

// Close writes the EOF opcode and the checksum, and flushes. It does not
// close the underlying writer.
func (w *Writer) Close() error {
	if err := w.between(); err != nil {
		return err
	}
	w.closed = true
	w.out.byte(opEOF)
	w.out.uint64LE(w.out.sum())
	w.out.flush()
	return w.out.err
}
