package storage

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestStreamMetaRoundTrip checks that stream metadata survives encoding, large values included,
// and that truncated or padded records are refused.
func TestStreamMetaRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 200; i++ {
		r := func() uint64 { return rng.Uint64() >> uint(rng.Intn(64)) }
		x := StreamMeta{Last: StreamID{r(), r()}, First: StreamID{r(), r()}, MaxDeleted: StreamID{r(), r()},
			EntriesAdded: r(), Groups: r(), Nodes: r(),
			Tail: StreamNode{Master: StreamID{r(), r()}, Valid: r(), Total: r(), Bytes: r(), Last: StreamID{r(), r()},
				FieldsHash: r(), MasterCount: r()}}
		m := &Meta{Type: TypeStream, ID: r(), Size: r(), Expire: int64(r() >> 1), X: &x}
		b := encodeMeta(nil, m)
		var got Meta
		if err := decodeMeta(b, &got); err != nil || *got.X != x || got.ID != m.ID || got.Size != m.Size || got.Expire != m.Expire {
			t.Fatalf("round trip of %+v: %+v %v", x, got.X, err)
		}
		if err := decodeMeta(b[:len(b)-1], &got); err == nil {
			t.Fatal("a truncated stream metadata record decoded")
		}
		if err := decodeMeta(append(b, 0), &got); err == nil {
			t.Fatal("a padded stream metadata record decoded")
		}
	}
}

// TestStreamModel appends, deletes and trims a stream at random, against a model of Redis's
// node layout (nodes of at most 4 entries here), and checks the entries, the length, the first
// ID and the store's invariants after each step.
func TestStreamModel(t *testing.T) {
	s := listOpen(t)
	key := []byte("s")
	lim := StreamLimits{MaxEntries: 4, MaxBytes: 4096}
	rng := rand.New(rand.NewSource(2))
	type node struct {
		ids  []StreamID
		live []bool
	}
	var nodes []*node
	next := uint64(1)
	liveIDs := func() []StreamID {
		var out []StreamID
		for _, n := range nodes {
			for i, id := range n.ids {
				if n.live[i] {
					out = append(out, id)
				}
			}
		}
		return out
	}
	dropEmpty := func() {
		kept := nodes[:0]
		for _, n := range nodes {
			for _, l := range n.live {
				if l {
					kept = append(kept, n)
					break
				}
			}
		}
		nodes = kept
	}
	for step := 0; step < 400; step++ {
		tx := s.Begin(0, [][]byte{key}, true)
		m, err := tx.StreamMetaOf(key)
		if err == nil && m == nil {
			m, err = tx.NewStream()
		}
		if err != nil {
			t.Fatal(err)
		}
		op := rng.Intn(10)
		switch {
		case op < 6:
			id := StreamID{next, 0}
			next += uint64(1 + rng.Intn(3))
			tx.StreamAppend(m, id, [][]byte{[]byte("f"), []byte("v")}, lim)
			if l := len(nodes); l == 0 || len(nodes[l-1].ids) >= 4 {
				nodes = append(nodes, &node{})
			}
			n := nodes[len(nodes)-1]
			n.ids, n.live = append(n.ids, id), append(n.live, true)
		case op < 8:
			live := liveIDs()
			if len(live) == 0 {
				break
			}
			id := live[rng.Intn(len(live))]
			if ok, err := tx.StreamDelete(m, id); err != nil || !ok {
				t.Fatalf("step %d: delete %s: %v %v", step, id, ok, err)
			}
			for _, n := range nodes {
				for i := range n.ids {
					if n.ids[i] == id {
						n.live[i] = false
					}
				}
			}
			dropEmpty()
		default:
			maxLen := uint64(rng.Intn(8))
			n, err := tx.StreamTrimmed(m, StreamTrim{MaxLen: maxLen, Approx: true})
			if err != nil {
				t.Fatal(err)
			}
			var want int64
			size := uint64(len(liveIDs()))
			for len(nodes) > 0 && size > maxLen {
				c := 0
				for _, l := range nodes[0].live {
					if l {
						c++
					}
				}
				if size-uint64(c) < maxLen {
					break
				}
				size -= uint64(c)
				want += int64(c)
				nodes = nodes[1:]
			}
			if n != want {
				t.Fatalf("step %d: MAXLEN ~ %d trimmed %d, want %d", step, maxLen, n, want)
			}
		}
		if err := tx.PutMeta(key, m); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		rt := s.Begin(0, [][]byte{key}, false)
		m, _ = rt.StreamMetaOf(key)
		var got []StreamID
		if err := rt.StreamRange(m, StreamID{}, MaxStreamID, false, 0, func(id StreamID, _ [][]byte) bool {
			got = append(got, id)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		rt.Abort()
		want := liveIDs()
		if fmt.Sprint(got) != fmt.Sprint(want) || m.Size != uint64(len(want)) {
			t.Fatalf("step %d: entries %v (size %d), want %v", step, got, m.Size, want)
		}
		if len(want) > 0 && m.X.First != want[0] || m.X.Nodes != uint64(len(nodes)) {
			t.Fatalf("step %d: first %s, %d nodes; want %v, %d nodes", step, m.X.First, m.X.Nodes, want, len(nodes))
		}
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}
