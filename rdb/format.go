package rdb

import (
	"errors"
	"fmt"
	"hash/crc64"
)

// Object types: the byte before a key (or at the start of a DUMP payload)
// that names the value's type and encoding. The numbers are the file
// format's and never change.
const (
	TypeString              = 0
	TypeList                = 1
	TypeSet                 = 2
	TypeZSet                = 3
	TypeHash                = 4
	TypeZSet2               = 5
	TypeModulePreGA         = 6
	TypeModule2             = 7
	TypeHashZipmap          = 9
	TypeListZiplist         = 10
	TypeSetIntset           = 11
	TypeZSetZiplist         = 12
	TypeHashZiplist         = 13
	TypeListQuicklist       = 14
	TypeStreamListpacks     = 15
	TypeHashListpack        = 16
	TypeZSetListpack        = 17
	TypeListQuicklist2      = 18
	TypeStreamListpacks2    = 19
	TypeSetListpack         = 20
	TypeStreamListpacks3    = 21
	TypeHashMetadataPreGA   = 22
	TypeHashListpackExPreGA = 23
	TypeHashMetadata        = 24
	TypeHashListpackEx      = 25
)

// File opcodes: bytes in a key's type position that introduce a record
// other than a key.
const (
	opSlotInfo      = 244
	opFunction2     = 245
	opFunctionPreGA = 246
	opModuleAux     = 247
	opIdle          = 248
	opFreq          = 249
	opAux           = 250
	opResizeDB      = 251
	opExpireTimeMS  = 252
	opExpireTime    = 253
	opSelectDB      = 254
	opEOF           = 255
)

// Quicklist 2 node containers.
const (
	containerPlain  = 1
	containerPacked = 2
)

// Version numbers: MaxVersion is the newest RDB version the reader accepts
// (Redis 7.4 and 8.x write 12); DumpVersion is the version the writers stamp,
// the newest one Redis 6.2 loads, with encodings every later Redis loads.
const (
	MaxVersion  = 12
	DumpVersion = 9
)

// Kind is a value's data type, independent of its encoding.
type Kind int

// The kinds of value an RDB holds.
const (
	KindString Kind = iota
	KindList
	KindSet
	KindZSet
	KindHash
	// KindStream and KindModule values are recognised and skipped, not
	// decoded: their Next fails with ErrUnsupported.
	KindStream
	KindModule
)

var kindNames = [...]string{"string", "list", "set", "zset", "hash", "stream", "module"}

// String returns the type's name as the TYPE command reports it.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Errors the codec returns. Corrupt input always wraps ErrCorrupt, so a
// caller can answer "Bad data format" without looking further.
var (
	// ErrCorrupt reports input that does not follow the format.
	ErrCorrupt = errors.New("rdb: corrupt data")
	// ErrUnsupported reports a valid record the codec does not decode
	// (streams, module values, pre-release function records).
	ErrUnsupported = errors.New("rdb: unsupported")
	// ErrEmptyKey reports a value that held no element; Redis skips such
	// keys when it loads a file and refuses them in RESTORE.
	ErrEmptyKey = errors.New("rdb: empty key")
	// ErrChecksum reports a CRC-64 that does not match the data.
	ErrChecksum = errors.New("rdb: checksum mismatch")
	// ErrVersion reports an RDB version outside what the reader accepts.
	ErrVersion = errors.New("rdb: unsupported RDB version")
	// ErrTooLarge reports a length above Options.MaxElementLen.
	ErrTooLarge = errors.New("rdb: element too large")
)

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// Options bound what a reader accepts. The zero value of each field means
// its default.
type Options struct {
	// MaxVersion is the newest RDB version accepted (default MaxVersion).
	MaxVersion int
	// MaxElementLen bounds one string, element or packed blob
	// (default 512 MiB, Redis's proto-max-bulk-len).
	MaxElementLen int64
	// AliasString lets ParseDump return a raw string value as a slice of the payload itself
	// instead of a copy, for a caller that writes it away before the payload's memory is reused
	// (RESTORE of a value bound for the value log).
	AliasString bool
}

const defaultMaxElementLen = 512 << 20

func (o *Options) maxVersion() int {
	if o == nil || o.MaxVersion <= 0 {
		return MaxVersion
	}
	return o.MaxVersion
}

func (o *Options) maxElementLen() int64 {
	if o == nil || o.MaxElementLen <= 0 {
		return defaultMaxElementLen
	}
	return o.MaxElementLen
}

// crcTable is the CRC-64 Jones polynomial (0xad93d23594c935a9) in reflected
// form, the checksum of RDB files and DUMP payloads.
var crcTable = crc64.MakeTable(0x95ac9329ac4bc9b5)

// crcUpdate extends the checksum crc (initial value 0, no final xor) with p.
// The standard library's Update inverts before and after, which the two
// inversions here cancel.
func crcUpdate(crc uint64, p []byte) uint64 {
	return ^crc64.Update(^crc, crcTable, p)
}

// Checksum returns the CRC-64 that RDB files and DUMP payloads carry.
func Checksum(p []byte) uint64 { return crcUpdate(0, p) }
