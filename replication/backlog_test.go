package replication

import (
	"bytes"
	"fmt"
	"testing"
)

func readAll(t *testing.T, b *Backlog, from int64) ([]byte, bool) {
	t.Helper()
	x, y, ok := b.ReadFrom(from)
	return append(append([]byte(nil), x...), y...), ok
}

// TestBacklogRing appends a stream in pieces of varied sizes (some larger than the ring) and
// checks after each that exactly the newest bytes are kept, each at its offset.
func TestBacklogRing(t *testing.T) {
	var stream []byte
	b := NewBacklog(10, 0)
	if b.Active() {
		t.Fatal("backlog allocated before the first append")
	}
	for i, n := range []int{3, 4, 5, 10, 1, 23, 9, 2} {
		piece := bytes.Repeat([]byte{byte('a' + i)}, n)
		piece[0] = byte('A' + i)
		stream = append(stream, piece...)
		b.Append(piece)
		end := int64(len(stream))
		kept := min(len(stream), 10)
		if b.End() != end || b.HistLen() != kept || b.First() != end-int64(kept) {
			t.Fatalf("after %d bytes: end %d hist %d first %d", len(stream), b.End(), b.HistLen(), b.First())
		}
		for from := b.First(); from <= end; from++ {
			got, ok := readAll(t, b, from)
			if !ok || !bytes.Equal(got, stream[from:]) {
				t.Fatalf("read from %d of %d: %q %v, want %q", from, end, got, ok, stream[from:])
			}
		}
		if _, ok := readAll(t, b, b.First()-1); ok && b.First() > 0 {
			t.Fatalf("read from %d, before the first byte kept, succeeded", b.First()-1)
		}
		if _, ok := readAll(t, b, end+1); ok {
			t.Fatal("read past the end succeeded")
		}
	}
}

func TestBacklogResize(t *testing.T) {
	for _, size := range []int{4, 10, 16, 40} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			b := NewBacklog(16, 100)
			stream := []byte("0123456789abcdefghijklmnop")
			b.Append(stream)
			b.Resize(size)
			kept := min(16, size)
			if b.Size() != size || b.HistLen() != kept || b.End() != 100+int64(len(stream)) {
				t.Fatalf("size %d hist %d end %d", b.Size(), b.HistLen(), b.End())
			}
			got, ok := readAll(t, b, b.First())
			if !ok || string(got) != string(stream[len(stream)-kept:]) {
				t.Fatalf("kept %q", got)
			}
			b.Append([]byte("XYZ"))
			got, _ = readAll(t, b, b.End()-3)
			if string(got) != "XYZ" {
				t.Fatalf("after resize, appended %q", got)
			}
		})
	}
}

// TestIDsContinue follows a promotion: the old master's replicas continue against the new
// master's second ID up to the promotion offset, and not past it.
func TestIDsContinue(t *testing.T) {
	ids := NewIDs()
	if len(ids.ID) != 40 || ids.ID2 != NoID || ids.SecondOffset != -1 {
		t.Fatalf("fresh ids %+v", ids)
	}
	old := ids.ID
	ids.Offset = 1000
	if !ids.Continues(old, 1001) || ids.Continues(old, 1002) || ids.Continues(NoID, 0) {
		t.Fatal("continuation on the current id")
	}
	ids.Shift()
	if ids.ID == old || ids.ID2 != old || ids.SecondOffset != 1001 {
		t.Fatalf("after shift %+v", ids)
	}
	ids.Offset = 1500
	if !ids.Continues(old, 1001) || ids.Continues(old, 1002) {
		t.Fatal("continuation on the second id must end at the promotion offset")
	}
	if !ids.Continues(ids.ID, 1400) {
		t.Fatal("continuation on the new id")
	}
}
