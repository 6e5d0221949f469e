package storage

import (
	"encoding/binary"
	"errors"
	"math"
)

// Record tags: the first byte of every LevelDB key.
const (
	tagSystem  = '!'
	tagMeta    = 'm'
	tagData    = 'd'
	tagExpire  = 'e'
	tagGarbage = 'g'
)

// FormatVersion is the on-disk layout version written on first open. Version 1 stored a list
// element per record; opening such a directory converts its lists to nodes (listconvert.go).
// Version 3 added packed hashes, sets and sorted sets (packed.go); version 4 stream entries in
// chunks (stream_node.go). A version-2 or -3 directory is read as it is, its collections and
// stream nodes keeping the records they have.
const FormatVersion = 4

// formatUnpacked is the format version before packed collections, formatUnchunked the one
// before stream chunks.
const (
	formatUnpacked  = 2
	formatUnchunked = 3
)

// metaVersion is the version byte at the head of every metadata value.
const metaVersion = 1

// Type is the Redis type of a key. The numbers are stored on disk and never change.
type Type byte

// The types a key can hold.
const (
	TypeNone   Type = 0
	TypeString Type = 1
	TypeList   Type = 2
	TypeHash   Type = 3
	TypeSet    Type = 4
	TypeZSet   Type = 5
	TypeStream Type = 6
)

// String returns the name TYPE answers for t.
func (t Type) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeList:
		return "list"
	case TypeHash:
		return "hash"
	case TypeSet:
		return "set"
	case TypeZSet:
		return "zset"
	case TypeStream:
		return "stream"
	}
	return "none"
}

// IsCollection reports whether values of type t live in sub-keys under an object ID.
func (t Type) IsCollection() bool { return t >= TypeList && t <= TypeStream }

// String encodings, stored in the metadata; the numbers never change.
const (
	EncInline   = 0 // the value follows in the metadata record
	EncValueLog = 1 // the metadata holds a pointer into a value-log file
)

// ListMiddle is where a new list's head and tail counters start.
const ListMiddle = uint64(1) << 62

// Meta is the decoded metadata record of one user key.
type Meta struct {
	Type   Type
	Expire int64 // unix milliseconds, 0 for none

	// Enc is a string's encoding: EncInline (Value holds the bytes) or another encoding
	// whose Value is a reference to the bytes stored elsewhere. For a hash, set or sorted set
	// it is EncRecords or EncPacked (packed.go).
	Enc byte
	// Value is a string's value. It may point into a buffer the caller does not own.
	Value []byte

	// ID, Size, Head, Tail, Last and First describe a collection. Head, Tail, Last and First
	// are used by lists only: elements occupy indexes [Head, Tail) in nodes, of which the
	// first (the head node) is stored under the key First and the last under the key Last
	// (listnode.go).
	ID    uint64
	Size  uint64
	Head  uint64
	Tail  uint64
	Last  uint64
	First uint64

	// legacy marks a list of format version 1, one element per record, which Open converts.
	legacy bool

	// X is a stream's state (stream.go); nil for the other types.
	X *StreamMeta
}

var errCorrupt = errors.New("storage: corrupt record")

const metaHeader = 1 + 1 + 8 // version, type, expire

// encodeMeta appends the metadata encoding of m to dst.
func encodeMeta(dst []byte, m *Meta) []byte {
	dst = append(dst, metaVersion, byte(m.Type))
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.Expire))
	switch {
	case m.Type == TypeString:
		dst = append(dst, m.Enc)
		dst = append(dst, m.Value...)
	case m.Type == TypeList:
		dst = binary.BigEndian.AppendUint64(dst, m.ID)
		dst = binary.BigEndian.AppendUint64(dst, m.Size)
		dst = binary.BigEndian.AppendUint64(dst, m.Head)
		dst = binary.BigEndian.AppendUint64(dst, m.Tail)
		dst = binary.BigEndian.AppendUint64(dst, m.Last)
		if m.First != m.Head {
			dst = binary.BigEndian.AppendUint64(dst, m.First)
		}
	case m.Type == TypeStream:
		dst = binary.BigEndian.AppendUint64(dst, m.ID)
		dst = binary.BigEndian.AppendUint64(dst, m.Size)
		dst = m.X.encode(dst)
	default:
		dst = binary.BigEndian.AppendUint64(dst, m.ID)
		dst = binary.BigEndian.AppendUint64(dst, m.Size)
		if m.Enc != EncRecords {
			dst = append(dst, m.Enc)
		}
	}
	return dst
}

// decodeMeta decodes a metadata value. A string's Value aliases b.
func decodeMeta(b []byte, m *Meta) error { return decodeMetaOf(b, m, true) }

// decodeMetaOf is decodeMeta; without stream, a stream's state (m.X) is left out, for a
// reader that needs only the key's type, object and expiry.
func decodeMetaOf(b []byte, m *Meta, stream bool) error { return decodeMetaX(b, m, stream, nil) }

// decodeMetaX is decodeMetaOf decoding a stream's state into x (nil: a new one).
func decodeMetaX(b []byte, m *Meta, stream bool, x *StreamMeta) error {
	if len(b) < metaHeader || b[0] != metaVersion {
		return errCorrupt
	}
	*m = Meta{Type: Type(b[1]), Expire: int64(binary.BigEndian.Uint64(b[2:10]))}
	rest := b[metaHeader:]
	switch {
	case m.Type == TypeString:
		if len(rest) < 1 {
			return errCorrupt
		}
		m.Enc, m.Value = rest[0], rest[1:]
	case m.Type == TypeList:
		// 32 bytes: format 1, without Last; 40: First equals Head; 48: First follows.
		if len(rest) != 32 && len(rest) != 40 && len(rest) != 48 {
			return errCorrupt
		}
		m.ID = binary.BigEndian.Uint64(rest)
		m.Size = binary.BigEndian.Uint64(rest[8:])
		m.Head = binary.BigEndian.Uint64(rest[16:])
		m.Tail = binary.BigEndian.Uint64(rest[24:])
		m.First = m.Head
		if m.legacy = len(rest) == 32; !m.legacy {
			m.Last = binary.BigEndian.Uint64(rest[32:])
		}
		if len(rest) == 48 {
			if m.First = binary.BigEndian.Uint64(rest[40:]); m.First == m.Head {
				return errCorrupt // written as 40 bytes: one encoding per metadata
			}
		}
	case m.Type == TypeStream:
		if len(rest) < 16 {
			return errCorrupt
		}
		m.ID = binary.BigEndian.Uint64(rest)
		m.Size = binary.BigEndian.Uint64(rest[8:])
		if !stream {
			break
		}
		if x == nil {
			x = new(StreamMeta)
		}
		*x = StreamMeta{}
		m.X = x
		if !m.X.decode(rest[16:]) {
			return errCorrupt
		}
	case m.Type.IsCollection():
		if len(rest) != 16 && (len(rest) != 17 || rest[16] != EncPacked) {
			return errCorrupt
		}
		m.ID = binary.BigEndian.Uint64(rest)
		m.Size = binary.BigEndian.Uint64(rest[8:])
		if len(rest) == 17 {
			m.Enc = rest[16]
		}
	default:
		return errCorrupt
	}
	return nil
}

// metaKey returns the LevelDB key of user key k in physical keyspace phys.
func metaKey(dst []byte, phys uint32, k []byte) []byte {
	dst = append(dst, tagMeta)
	dst = binary.BigEndian.AppendUint32(dst, phys)
	return append(dst, k...)
}

// metaPrefix returns the prefix shared by every metadata key of phys.
func metaPrefix(phys uint32) []byte { return metaKey(nil, phys, nil) }

// DataKey returns the LevelDB key of sub-key sub of collection id.
func DataKey(dst []byte, id uint64, sub []byte) []byte {
	dst = append(dst, tagData)
	dst = binary.BigEndian.AppendUint64(dst, id)
	return append(dst, sub...)
}

// DataPrefixLen is the length of the prefix DataKey puts before the sub-key.
const DataPrefixLen = 9

// expireKey returns the expiry-index key of user key k.
func expireKey(dst []byte, at int64, phys uint32, k []byte) []byte {
	dst = append(dst, tagExpire)
	dst = binary.BigEndian.AppendUint64(dst, uint64(at))
	dst = binary.BigEndian.AppendUint32(dst, phys)
	return append(dst, k...)
}

// decodeExpireKey splits an expiry-index key.
func decodeExpireKey(b []byte) (at int64, phys uint32, k []byte, ok bool) {
	if len(b) < 13 || b[0] != tagExpire {
		return 0, 0, nil, false
	}
	return int64(binary.BigEndian.Uint64(b[1:9])), binary.BigEndian.Uint32(b[9:13]), b[13:], true
}

// Garbage kinds.
const (
	garbageObject = 1 // payload: object ID (8)
	garbageDB     = 2 // payload: physical keyspace (4)
)

func garbageKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{tagGarbage}, seq)
}

// prefixEnd returns the smallest key greater than every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// EncodeScore returns 8 bytes whose byte order is the numeric order of f:
// the IEEE-754 bits with the sign bit set for positives and all bits flipped for negatives.
// -0 is stored as +0 so the two compare equal, as they do in Redis.
func EncodeScore(dst []byte, f float64) []byte {
	if f == 0 {
		f = 0
	}
	u := math.Float64bits(f)
	if u&(1<<63) != 0 {
		u = ^u
	} else {
		u |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(dst, u)
}

// DecodeScore inverts EncodeScore.
func DecodeScore(b []byte) float64 {
	u := binary.BigEndian.Uint64(b)
	if u&(1<<63) != 0 {
		u &^= 1 << 63
	} else {
		u = ^u
	}
	return math.Float64frombits(u)
}
