package rdb

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"sort"
	"strconv"
	"testing"
)

// This file builds the packed encodings byte by byte from the format
// description, independently of the decoder, for the unit tests.

// rdbLen encodes a length.
func rdbLen(n uint64) []byte {
	switch {
	case n < 64:
		return []byte{byte(n)}
	case n < 1<<14:
		return []byte{0x40 | byte(n>>8), byte(n)}
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32([]byte{0x80}, uint32(n))
	}
	return binary.BigEndian.AppendUint64([]byte{0x81}, n)
}

// rdbStr encodes a raw string.
func rdbStr(s string) []byte { return append(rdbLen(uint64(len(s))), s...) }

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func u16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// lpEntry encodes one listpack entry: an int64 or a string.
func lpEntry(x any) []byte {
	var e []byte
	switch v := x.(type) {
	case int:
		switch {
		case v >= 0 && v <= 127:
			e = []byte{byte(v)}
		case v >= -4096 && v <= 4095:
			u := uint16(v) & 0x1fff
			e = []byte{0xc0 | byte(u>>8), byte(u)}
		case v >= math.MinInt16 && v <= math.MaxInt16:
			e = append([]byte{0xf1}, u16(uint16(v))...)
		case v >= -1<<23 && v < 1<<23:
			e = append([]byte{0xf2}, u32(uint32(v))[:3]...)
		case v >= math.MinInt32 && v <= math.MaxInt32:
			e = append([]byte{0xf3}, u32(uint32(v))...)
		default:
			e = append([]byte{0xf4}, u64(uint64(v))...)
		}
	case string:
		switch n := len(v); {
		case n < 64:
			e = append([]byte{0x80 | byte(n)}, v...)
		case n < 4096:
			e = append([]byte{0xe0 | byte(n>>8), byte(n)}, v...)
		default:
			e = append(append([]byte{0xf0}, u32(uint32(n))...), v...)
		}
	}
	return append(e, backlen(uint64(len(e)))...)
}

func lpBuild(xs ...any) []byte {
	body := []byte{}
	for _, x := range xs {
		body = append(body, lpEntry(x)...)
	}
	out := cat(u32(uint32(6+len(body)+1)), u16(uint16(len(xs))), body, []byte{0xff})
	return out
}

// zlBuild encodes a ziplist of int64s and strings.
func zlBuild(xs ...any) []byte {
	var body []byte
	prev, tail := 0, 10
	for _, x := range xs {
		var e []byte
		if prev < 254 {
			e = []byte{byte(prev)}
		} else {
			e = append([]byte{254}, u32(uint32(prev))...)
		}
		switch v := x.(type) {
		case int:
			switch {
			case v >= 0 && v <= 12:
				e = append(e, 0xf1+byte(v))
			case v >= math.MinInt8 && v <= math.MaxInt8:
				e = append(e, 0xfe, byte(v))
			case v >= math.MinInt16 && v <= math.MaxInt16:
				e = append(append(e, 0xc0), u16(uint16(v))...)
			case v >= -1<<23 && v < 1<<23:
				e = append(append(e, 0xf0), u32(uint32(v))[:3]...)
			case v >= math.MinInt32 && v <= math.MaxInt32:
				e = append(append(e, 0xd0), u32(uint32(v))...)
			default:
				e = append(append(e, 0xe0), u64(uint64(v))...)
			}
		case string:
			switch n := len(v); {
			case n < 64:
				e = append(e, byte(n))
			case n < 1<<14:
				e = append(e, 0x40|byte(n>>8), byte(n))
			default:
				e = binary.BigEndian.AppendUint32(append(e, 0x80), uint32(n))
			}
			e = append(e, v...)
		}
		tail = 10 + len(body)
		body = append(body, e...)
		prev = len(e)
	}
	return cat(u32(uint32(10+len(body)+1)), u32(uint32(tail)), u16(uint16(len(xs))), body, []byte{0xff})
}

func intsetBuild(width int, vs ...int64) []byte {
	out := cat(u32(uint32(width)), u32(uint32(len(vs))))
	for _, v := range vs {
		out = append(out, u64(uint64(v))[:width]...)
	}
	return out
}

func zipmapBuild(kv ...string) []byte {
	out := []byte{byte(len(kv) / 2)}
	l := func(n int) []byte {
		if n < 254 {
			return []byte{byte(n)}
		}
		return append([]byte{254}, u32(uint32(n))...)
	}
	for i := 0; i < len(kv); i += 2 {
		out = append(out, l(len(kv[i]))...)
		out = append(out, kv[i]...)
		out = append(out, l(len(kv[i+1]))...)
		out = append(out, 2) // two free bytes after the value
		out = append(out, kv[i+1]...)
		out = append(out, 'x', 'x')
	}
	return append(out, 0xff)
}

// payload wraps an object type and body in the DUMP footer.
func payload(t byte, body []byte, ver uint16) []byte {
	p := cat([]byte{t}, body, u16(ver))
	return append(p, u64(Checksum(p))...)
}

// canon renders a value's elements as sorted strings (lists keep their
// order), the form tests compare.
func canon(v *Value) ([]string, error) {
	var out []string
	for {
		e, err := v.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err
		}
		out = append(out, renderElement(v.Kind, e))
	}
	if v.Kind != KindList {
		sort.Strings(out)
	}
	return out, nil
}

func renderElement(k Kind, e Element) string {
	switch k {
	case KindZSet:
		return string(e.Member) + "=" + strconv.FormatFloat(e.Score, 'g', -1, 64)
	case KindHash:
		s := string(e.Member) + "=" + string(e.Value)
		if e.ExpireAt != 0 {
			s += "@" + strconv.FormatInt(e.ExpireAt, 10)
		}
		return s
	}
	return string(e.Member)
}

func mustCanon(t *testing.T, p []byte) (Kind, []string) {
	t.Helper()
	v, err := ParseDump(p, nil)
	if err != nil {
		t.Fatalf("ParseDump: %v", err)
	}
	got, err := canon(v)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return v.Kind, got
}
