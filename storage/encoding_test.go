package storage

import (
	"bytes"
	"reflect"
	"testing"
)

func TestMetaRoundTrip(t *testing.T) {
	cases := []Meta{
		{Type: TypeString, Value: []byte{}},
		{Type: TypeString, Expire: 1700000000123, Value: []byte("hello\x00world")},
		{Type: TypeList, ID: 7, Size: 3, Head: ListMiddle - 1, Tail: ListMiddle + 2, Last: ListMiddle - 1, First: ListMiddle - 1},
		{Type: TypeList, ID: 7, Size: 3, Head: ListMiddle - 1, Tail: ListMiddle + 2, Last: ListMiddle + 1, First: ListMiddle},
		{Type: TypeList, ID: 7, Size: 3, Head: ListMiddle - 1, Tail: ListMiddle + 2, Last: ListMiddle + 1, First: ListMiddle - 5},
		{Type: TypeHash, ID: 1 << 40, Size: 1_000_000, Expire: 42},
		{Type: TypeSet, ID: 1, Size: 0},
		{Type: TypeZSet, ID: ^uint64(0), Size: 9},
	}
	for _, m := range cases {
		var got Meta
		b := encodeMeta(nil, &m)
		if m.Type == TypeList && len(b) != metaHeader+40 && m.First == m.Head {
			t.Fatalf("%+v: a list whose head node is keyed by its start takes %d bytes, want the 40 of format 2", m, len(b)-metaHeader)
		}
		if err := decodeMeta(b, &got); err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("round trip: got %+v want %+v", got, m)
		}
	}
}

func TestDecodeMetaRejectsCorrupt(t *testing.T) {
	bad := [][]byte{nil, {metaVersion}, {99, 1, 0, 0, 0, 0, 0, 0, 0, 0},
		encodeMeta(nil, &Meta{Type: TypeList})[:20], {metaVersion, 9, 0, 0, 0, 0, 0, 0, 0, 0},
		append(encodeMeta(nil, &Meta{Type: TypeList, Head: 5, First: 5}), 0, 0, 0, 0, 0, 0, 0, 5)} // First == Head in 48 bytes
	for _, b := range bad {
		var m Meta
		if decodeMeta(b, &m) == nil {
			t.Fatalf("decodeMeta(%x) accepted corrupt input", b)
		}
	}
}

func FuzzDecodeMeta(f *testing.F) {
	f.Add(encodeMeta(nil, &Meta{Type: TypeString, Value: []byte("v")}))
	f.Add(encodeMeta(nil, &Meta{Type: TypeList, ID: 1, Size: 2, Head: 3, Tail: 5, First: 3}))
	f.Add(encodeMeta(nil, &Meta{Type: TypeList, ID: 1, Size: 2, Head: 3, Tail: 5, First: 4}))
	f.Add(encodeMeta(nil, &Meta{Type: TypeZSet, ID: 1, Size: 2}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Meta
		if decodeMeta(b, &m) != nil {
			return
		}
		again := encodeMeta(nil, &m)
		if !bytes.Equal(again, b) {
			t.Fatalf("decode/encode not stable: %x -> %x", b, again)
		}
	})
}

// TestMetaKeysDoNotCollide checks that a key is never a prefix-neighbour of another
// database's keys and that keys sort by user key within a database.
func TestMetaKeyOrder(t *testing.T) {
	a := metaKey(nil, 1, []byte("a"))
	ab := metaKey(nil, 1, []byte("ab"))
	b := metaKey(nil, 1, []byte("b"))
	other := metaKey(nil, 2, []byte(""))
	if !(bytes.Compare(a, ab) < 0 && bytes.Compare(ab, b) < 0 && bytes.Compare(b, other) < 0) {
		t.Fatal("metadata keys out of order")
	}
	if !bytes.HasPrefix(a, metaPrefix(1)) || bytes.HasPrefix(other, metaPrefix(1)) {
		t.Fatal("metaPrefix does not delimit a database")
	}
}

func TestExpireKeyRoundTrip(t *testing.T) {
	k := expireKey(nil, 1234567890123, 77, []byte("user\x00key"))
	at, phys, key, ok := decodeExpireKey(k)
	if !ok || at != 1234567890123 || phys != 77 || string(key) != "user\x00key" {
		t.Fatalf("got %d %d %q %v", at, phys, key, ok)
	}
	if bytes.Compare(expireKey(nil, 5, 9, []byte("z")), expireKey(nil, 6, 1, []byte("a"))) >= 0 {
		t.Fatal("expiry index not ordered by time")
	}
}

func FuzzDecodeExpireKey(f *testing.F) {
	f.Add(expireKey(nil, 1, 2, []byte("k")))
	f.Fuzz(func(t *testing.T, b []byte) {
		at, phys, k, ok := decodeExpireKey(b)
		if ok && !bytes.Equal(expireKey(nil, at, phys, k), b) {
			t.Fatalf("round trip failed for %x", b)
		}
	})
}

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct{ in, want []byte }{
		{[]byte("ab"), []byte("ac")},
		{[]byte{1, 0xff}, []byte{2}},
		{[]byte{0xff, 0xff}, nil},
	} {
		if got := prefixEnd(c.in); !bytes.Equal(got, c.want) {
			t.Fatalf("prefixEnd(%x) = %x want %x", c.in, got, c.want)
		}
	}
}
