package rdb

import (
	"fmt"
	"io"
	"strconv"
)

// RecordKind says what a Record holds.
type RecordKind int

// The records of an RDB file, in the order they may appear.
const (
	// RecordAux is an auxiliary field (Aux, AuxValue): redis-ver, ctime, ...
	RecordAux RecordKind = iota
	// RecordSelectDB switches the database of the keys that follow (DB).
	RecordSelectDB
	// RecordResizeDB is a size hint for the current database (DBSize,
	// ExpiresSize).
	RecordResizeDB
	// RecordSlotInfo is a cluster slot size hint (Slot, DBSize,
	// ExpiresSize).
	RecordSlotInfo
	// RecordFunction is a function library (Payload: its source code).
	RecordFunction
	// RecordModuleAux is module data outside the keyspace (Module), read
	// and skipped: the caller decides whether its absence matters.
	RecordModuleAux
	// RecordKey is a key (DB, Key, ExpireAt, Idle, Freq) and its Value.
	RecordKey
)

// Record is one record of an RDB file. Only the fields its Kind names are
// set.
type Record struct {
	Kind RecordKind

	Aux, AuxValue []byte
	Payload       []byte
	Module        string

	DB                  int
	Slot                uint64
	DBSize, ExpiresSize uint64

	Key []byte
	// ExpireAt is the key's expiry in Unix milliseconds, -1 for none.
	ExpireAt int64
	// Idle is the LRU idle time in seconds, -1 when absent.
	Idle int64
	// Freq is the LFU frequency, -1 when absent.
	Freq  int
	Value *Value
}

// Reader reads an RDB file record by record. It holds one element (or one
// packed blob) in memory at a time.
type Reader struct {
	in      *input
	version int
	db      int
	value   *Value
	done    bool
	err     error
}

// NewReader reads and checks the file header ("REDIS" and a four-digit
// version from 1 to opts.MaxVersion). A nil opts means the defaults.
func NewReader(r io.Reader, opts *Options) (*Reader, error) {
	in := newStreamInput(r, opts.maxElementLen())
	var h [9]byte
	if err := in.readFull(h[:]); err != nil {
		return nil, fmt.Errorf("%w: no RDB header", ErrCorrupt)
	}
	if string(h[:5]) != "REDIS" {
		return nil, corrupt("wrong signature %q", h[:5])
	}
	v, err := strconv.Atoi(string(h[5:]))
	if err != nil || h[5] < '0' || h[5] > '9' {
		return nil, corrupt("wrong version %q", h[5:])
	}
	if v < 1 || v > opts.maxVersion() {
		return nil, fmt.Errorf("%w: %d", ErrVersion, v)
	}
	return &Reader{in: in, version: v}, nil
}

// Version returns the file's RDB version.
func (r *Reader) Version() int { return r.version }

// Offset returns the number of bytes read so far, for progress reports.
func (r *Reader) Offset() int64 { return r.in.offset() }

// Next returns the next record, or io.EOF after the end-of-file opcode and
// a matching checksum. A key's Value must be read (or abandoned) before the
// next call, which skips whatever of it is left. Any other error is final.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
	}
	return rec, err
}

func (r *Reader) next() (*Record, error) {
	if r.done {
		return nil, io.EOF
	}
	if r.value != nil {
		if err := r.value.drain(); err != nil {
			return nil, err
		}
		r.value = nil
	}
	in := r.in
	expireAt, idle, freq := int64(-1), int64(-1), -1
	for {
		op, err := in.readByte()
		if err != nil {
			return nil, err
		}
		switch op {
		case opEOF:
			return nil, r.readTrailer()
		case opSelectDB:
			db, err := in.readLength()
			if err != nil {
				return nil, err
			}
			if db > 1<<31-1 {
				return nil, corrupt("database number %d out of range", db)
			}
			r.db = int(db)
			return &Record{Kind: RecordSelectDB, DB: r.db}, nil
		case opResizeDB, opSlotInfo:
			rec := &Record{Kind: RecordResizeDB, DB: r.db}
			if op == opSlotInfo {
				rec.Kind = RecordSlotInfo
				if rec.Slot, err = in.readLength(); err != nil {
					return nil, err
				}
			}
			if rec.DBSize, err = in.readLength(); err != nil {
				return nil, err
			}
			if rec.ExpiresSize, err = in.readLength(); err != nil {
				return nil, err
			}
			return rec, nil
		case opAux:
			k, err := in.readString()
			if err != nil {
				return nil, err
			}
			v, err := in.readString()
			if err != nil {
				return nil, err
			}
			return &Record{Kind: RecordAux, Aux: k, AuxValue: v}, nil
		case opFunction2:
			p, err := in.readString()
			if err != nil {
				return nil, err
			}
			return &Record{Kind: RecordFunction, Payload: p}, nil
		case opFunctionPreGA:
			return nil, unsupported("pre-release function records (Redis 7.0 release candidates)")
		case opModuleAux:
			name, err := r.skipModuleAux()
			if err != nil {
				return nil, err
			}
			return &Record{Kind: RecordModuleAux, Module: name}, nil
		case opExpireTime:
			s, err := in.readUint32LE()
			if err != nil {
				return nil, err
			}
			expireAt = int64(int32(s)) * 1000
		case opExpireTimeMS:
			if expireAt, err = in.readMillis(); err != nil {
				return nil, err
			}
		case opIdle:
			n, err := in.readLength()
			if err != nil {
				return nil, err
			}
			idle = int64(n & (1<<63 - 1))
		case opFreq:
			c, err := in.readByte()
			if err != nil {
				return nil, err
			}
			freq = int(c)
		default:
			if op >= 200 {
				return nil, corrupt("unknown opcode %d", op)
			}
			return r.readKey(op, expireAt, idle, freq)
		}
	}
}

func (r *Reader) readKey(t byte, expireAt, idle int64, freq int) (*Record, error) {
	key, err := r.in.readString()
	if err != nil {
		return nil, err
	}
	v, err := newValue(t, r.in)
	if err != nil {
		return nil, fmt.Errorf("key %q: %w", key, err)
	}
	r.value = v
	return &Record{Kind: RecordKey, DB: r.db, Key: key, ExpireAt: expireAt, Idle: idle, Freq: freq, Value: v}, nil
}

// readTrailer checks the CRC-64 after the EOF opcode (version 5 and
// later); a zero checksum means the writer disabled it.
func (r *Reader) readTrailer() error {
	r.done = true
	if r.version < 5 {
		return io.EOF
	}
	sum := r.in.checksum()
	want, err := r.in.readUint64LE()
	if err != nil {
		return err
	}
	if want != 0 && want != sum {
		return fmt.Errorf("%w: file says %016x, data has %016x", ErrChecksum, want, sum)
	}
	return io.EOF
}

// Module value opcodes: the self-describing encoding of module data.
const (
	moduleOpEOF    = 0
	moduleOpSInt   = 1
	moduleOpUInt   = 2
	moduleOpFloat  = 3
	moduleOpDouble = 4
	moduleOpString = 5
)

// skipModuleAux reads past a module aux record and returns the module's
// name.
func (r *Reader) skipModuleAux() (string, error) {
	in := r.in
	id, err := in.readLength()
	if err != nil {
		return "", err
	}
	when, err := in.readLength()
	if err != nil {
		return "", err
	}
	if when != moduleOpUInt {
		return "", corrupt("module aux record without its when field")
	}
	if _, err := in.readLength(); err != nil {
		return "", err
	}
	if err := skipModuleOps(in); err != nil {
		return "", err
	}
	return moduleName(id), nil
}

// skipModuleOps reads past module data: typed opcodes up to the EOF one.
func skipModuleOps(in *input) error {
	for {
		op, err := in.readLength()
		if err != nil {
			return err
		}
		switch op {
		case moduleOpEOF:
			return nil
		case moduleOpSInt, moduleOpUInt:
			_, err = in.readLength()
		case moduleOpFloat:
			err = in.skip(4)
		case moduleOpDouble:
			err = in.skip(8)
		case moduleOpString:
			err = skipString(in)
		default:
			return corrupt("unknown module opcode %d", op)
		}
		if err != nil {
			return err
		}
	}
}

// skipString reads past a string in any encoding.
func skipString(in *input) error {
	n, enc, err := in.readLen()
	if err != nil {
		return err
	}
	if !enc {
		return in.skip(n)
	}
	return skipEncodedString(in, n)
}

func skipEncodedString(in *input, enc uint64) error {
	switch enc {
	case 0, 1, 2:
		return in.skip(1 << enc)
	case 3:
		clen, err := in.readLength()
		if err == nil {
			_, err = in.readLength()
		}
		if err == nil {
			err = in.skip(clen)
		}
		return err
	}
	return corrupt("unknown string encoding %d", enc)
}

// moduleName decodes the nine-character module type name from a module ID
// (six bits a character, above a ten-bit encoding version).
func moduleName(id uint64) string {
	const cset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var name [9]byte
	id >>= 10
	for j := 8; j >= 0; j-- {
		name[j] = cset[id&63]
		id >>= 6
	}
	return string(name[:])
}
