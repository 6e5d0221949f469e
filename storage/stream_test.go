package storage

import (
	"fmt"
	"math/rand"
	"strconv"
	"testing"

	"github.com/syndtr/goleveldb/leveldb/util"
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
				FieldsHash: r(), MasterCount: r(), Chunked: i%2 == 0}}
		m := &Meta{Type: TypeStream, ID: r(), Size: r(), Expire: int64(r() >> 1), X: &x}
		b := encodeMeta(nil, m)
		var got Meta
		if err := decodeMeta(b, &got); err != nil || *got.X != x || got.ID != m.ID || got.Size != m.Size || got.Expire != m.Expire {
			t.Fatalf("round trip of %+v: %+v %v", x, got.X, err)
		}
		// Without its last byte, a chunked tail's record reads as a tail with records per entry.
		if err := decodeMeta(b[:len(b)-1], &got); err == nil && (!x.Tail.Chunked || got.X.Tail.Chunked) {
			t.Fatal("a truncated stream metadata record decoded")
		}
		if err := decodeMeta(append(b, 0), &got); err == nil {
			t.Fatal("a padded stream metadata record decoded")
		}
	}
}

// beginStream begins a write transaction on stream key, with its metadata (a new stream's when
// there is none).
func beginStream(t *testing.T, s *Store, key []byte) (*Txn, *Meta) {
	t.Helper()
	tx := s.Begin(0, [][]byte{key}, true)
	m, err := tx.StreamMetaOf(key)
	if err == nil && m == nil {
		m, err = tx.NewStream()
	}
	if err != nil {
		t.Fatal(err)
	}
	return tx, m
}

// checkStreamReads compares ranges of m, forward and reverse with a count, and point reads of
// entries with the live IDs want; next is above every ID added.
func checkStreamReads(t *testing.T, tx *Txn, m *Meta, want []StreamID, next uint64, rng *rand.Rand) {
	t.Helper()
	if m == nil {
		if len(want) != 0 {
			t.Fatalf("no stream, want %v", want)
		}
		return
	}
	for range 4 {
		a, b := StreamID{uint64(rng.Intn(int(next) + 1)), 0}, StreamID{uint64(rng.Intn(int(next) + 1)), 0}
		if a.Cmp(b) > 0 {
			a, b = b, a
		}
		count := int64(rng.Intn(4))
		rev := rng.Intn(2) == 0
		var exp []StreamID
		for _, id := range want {
			if id.Cmp(a) >= 0 && id.Cmp(b) <= 0 {
				exp = append(exp, id)
			}
		}
		if rev {
			for i, j := 0, len(exp)-1; i < j; i, j = i+1, j-1 {
				exp[i], exp[j] = exp[j], exp[i]
			}
		}
		if count > 0 && int64(len(exp)) > count {
			exp = exp[:count]
		}
		var got, gotReply []StreamID
		if err := tx.StreamRange(m, a, b, rev, count, func(id StreamID, fv [][]byte) bool {
			if w := modelFields(id); fmt.Sprintf("%q", fv) != fmt.Sprintf("%q", w) {
				t.Fatalf("entry %s has fields %q, want %q", id, fv, w)
			}
			got = append(got, id)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if err := tx.StreamRangeReply(m, a, b, rev, count, func(id StreamID, reply []byte) bool {
			if w := string(AppendStreamEntry(nil, id, modelFields(id))); string(reply) != w {
				t.Fatalf("entry %s reply %q, want %q", id, reply, w)
			}
			gotReply = append(gotReply, id)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(exp) || fmt.Sprint(gotReply) != fmt.Sprint(exp) {
			t.Fatalf("range [%s, %s] rev %v count %d: %v and %v, want %v", a, b, rev, count, got, gotReply, exp)
		}
	}
	for range 4 {
		id := StreamID{uint64(rng.Intn(int(next) + 1)), 0}
		live := false
		for _, w := range want {
			live = live || w == id
		}
		fv, ok, err := tx.StreamGet(m, id)
		if err != nil || ok != live || ok && fmt.Sprintf("%q", fv) != fmt.Sprintf("%q", modelFields(id)) {
			t.Fatalf("get %s: %q %v %v, live %v", id, fv, ok, err, live)
		}
	}
}

// checkChunked checks that stream m keeps its entries in chunks, with no record of their own
// (chunked false: the other way round), and returns the number of chunks.
func checkChunked(t *testing.T, s *Store, m *Meta, chunked bool) int {
	t.Helper()
	if m == nil {
		return 0
	}
	s.Flush()
	own, chunks := 0, 0
	it := s.db().NewIterator(util.BytesPrefix(DataKey(nil, m.ID, nil)), nil)
	defer it.Release()
	for it.Next() {
		switch it.Key()[DataPrefixLen] {
		case streamEntry:
			own++
		case streamChunk:
			chunks++
		}
	}
	if !chunked {
		own, chunks = chunks, own
	}
	if own != 0 || m.Size > 0 && chunks == 0 {
		t.Fatalf("%d entry records of their own, %d chunks, for %d entries", own, chunks, m.Size)
	}
	return chunks
}

// modelFields returns the fields and values TestStreamModel gives entry id: mostly one field
// named as the others', sometimes other names or an empty value, so that compact chunks hold
// entries of both kinds.
func modelFields(id StreamID) [][]byte {
	v := []byte(strconv.FormatUint(id.Ms, 10))
	switch id.Ms % 7 {
	case 0:
		return [][]byte{[]byte("g"), v, []byte("h"), {}}
	case 3:
		return [][]byte{[]byte("f"), {}}
	case 5:
		return [][]byte{[]byte("e"), v}
	}
	return [][]byte{[]byte("f"), v}
}

// TestStreamModel appends, deletes and trims a stream at random, against a model of Redis's
// node layout (nodes of at most 4 entries here), and checks the entries, the length, the first
// ID and the store's invariants after each step.
func TestStreamModel(t *testing.T) {
	for _, c := range []struct {
		lim, later StreamLimits
		untagged   bool // the nodes of the first half in untagged chunks (format 4)
	}{
		{StreamLimits{MaxEntries: 4, MaxBytes: 4096}, StreamLimits{MaxEntries: 4, MaxBytes: 4096}, false},
		{StreamLimits{MaxEntries: 30, MaxBytes: 4096}, StreamLimits{MaxEntries: 30, MaxBytes: 4096}, true},
		{StreamLimits{MaxEntries: 70, MaxBytes: 4096}, StreamLimits{MaxEntries: 70, MaxBytes: 4096}, false},
		{StreamLimits{MaxEntries: 4, MaxBytes: 0}, StreamLimits{MaxEntries: 4, MaxBytes: 0}, false},
		// nodes with records per entry (as a format-3 directory has them), then chunked nodes
		{StreamLimits{MaxEntries: 4, MaxBytes: 0}, StreamLimits{MaxEntries: 4, MaxBytes: 4096}, false},
		// closed nodes that grow again once stream-node-max-entries grows
		{StreamLimits{MaxEntries: 12, MaxBytes: 4096}, StreamLimits{MaxEntries: 30, MaxBytes: 4096}, false},
	} {
		t.Run(fmt.Sprintf("%d-entries-%d-then-%d-bytes-untagged-%v", c.lim.MaxEntries, c.lim.MaxBytes, c.later.MaxBytes, c.untagged), func(t *testing.T) {
			if c.untagged {
				streamTagNodes = false
				defer func() { streamTagNodes = true }()
			}
			streamModel(t, c.lim, c.later)
		})
	}
}

// streamModel runs TestStreamModel with node limits lim, then later from the middle on.
func streamModel(t *testing.T, lim, later StreamLimits) {
	s := listOpen(t)
	key := []byte("s")
	per := int(lim.MaxEntries)
	mixed := lim.MaxBytes != later.MaxBytes
	chunked := lim.MaxBytes > 0
	rng := rand.New(rand.NewSource(2))
	type node struct {
		ids  []StreamID
		live []bool
	}
	var nodes []*node
	next := uint64(1)
	maxChunks := 0
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
	for step := 0; step < 1500; step++ {
		if step == 750 {
			lim, per = later, int(later.MaxEntries)
			streamTagNodes = true
		}
		tx, m := beginStream(t, s, key)
		op := rng.Intn(10)
		switch {
		case op < 6:
			// a burst of entries in one transaction, which closes nodes begun in it
			for range 1 + rng.Intn(6) {
				id := StreamID{next, 0}
				next += uint64(1 + rng.Intn(3))
				if err := tx.StreamAppend(m, id, modelFields(id), lim); err != nil {
					t.Fatal(err)
				}
				if l := len(nodes); l == 0 || len(nodes[l-1].ids) >= per {
					nodes = append(nodes, &node{})
				}
				n := nodes[len(nodes)-1]
				n.ids, n.live = append(n.ids, id), append(n.live, true)
			}
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
		case op < 9 && rng.Intn(2) == 0:
			// an exact trim, by length or by lowest ID: the oldest entries go one by one
			live := liveIDs()
			tr := StreamTrim{MaxLen: uint64(rng.Intn(2 * per))}
			drop := 0
			if len(live) > int(tr.MaxLen) {
				drop = len(live) - int(tr.MaxLen)
			}
			if rng.Intn(2) == 0 {
				tr = StreamTrim{ByID: true, MinID: StreamID{uint64(rng.Intn(int(next) + 1)), 0}}
				drop = 0
				for drop < len(live) && live[drop].Cmp(tr.MinID) < 0 {
					drop++
				}
			}
			n, err := tx.StreamTrimmed(m, tr)
			if err != nil || n != int64(drop) {
				t.Fatalf("step %d: exact trim %+v removed %d (%v), want %d", step, tr, n, err, drop)
			}
			for _, id := range live[:drop] {
				for _, n := range nodes {
					for i := range n.ids {
						if n.ids[i] == id {
							n.live[i] = false
						}
					}
				}
			}
			dropEmpty()
		default:
			maxLen := uint64(rng.Intn(2 * per))
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
		want := liveIDs()
		checkStreamReads(t, rt, m, want, next, rng)
		if !mixed {
			maxChunks = max(maxChunks, checkChunked(t, s, m, chunked))
		}
		rt.Abort()
		if fmt.Sprint(got) != fmt.Sprint(want) || m.Size != uint64(len(want)) {
			t.Fatalf("step %d: entries %v (size %d), want %v", step, got, m.Size, want)
		}
		if len(want) > 0 && m.X.First != want[0] || m.X.Nodes != uint64(len(nodes)) {
			t.Fatalf("step %d: first %s, %d nodes; want %v, %d nodes", step, m.X.First, m.X.Nodes, want, len(nodes))
		}
		if step%40 == 0 {
			if err := CheckInvariants(s); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		}
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
	if chunked && !mixed && maxChunks < 2 {
		t.Fatalf("no step saw more than %d chunks", maxChunks)
	}
}

// TestStreamAppendAfterMerge checks a closed node that becomes the tail again (its successor's
// entries all deleted) and grows under a larger stream-node-max-entries: the entries added
// after its chunks were merged are read back in order.
func TestStreamAppendAfterMerge(t *testing.T) {
	s := listOpen(t)
	key := []byte("s")
	fv := [][]byte{[]byte("f"), []byte("v")}
	step := func(fn func(tx *Txn, m *Meta)) {
		tx, m := beginStream(t, s, key)
		fn(tx, m)
		if err := tx.PutMeta(key, m); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	var want []StreamID
	add := func(lim StreamLimits, from, to uint64) {
		for ms := from; ms <= to; ms++ {
			step(func(tx *Txn, m *Meta) {
				if err := tx.StreamAppend(m, StreamID{ms, 0}, fv, lim); err != nil {
					t.Fatal(err)
				}
			})
			want = append(want, StreamID{ms, 0})
		}
	}
	add(StreamLimits{MaxEntries: 12, MaxBytes: 4096}, 1, 13) // node 1-12 closes, 13 begins the next
	step(func(tx *Txn, m *Meta) {
		if ok, err := tx.StreamDelete(m, StreamID{13, 0}); err != nil || !ok {
			t.Fatalf("delete: %v %v", ok, err)
		}
		if m.X.Tail.Master != (StreamID{1, 0}) || m.X.Nodes != 1 {
			t.Fatalf("tail %+v, %d nodes", m.X.Tail, m.X.Nodes)
		}
	})
	want = want[:12]
	add(StreamLimits{MaxEntries: 30, MaxBytes: 4096}, 20, 32)
	rt := s.Begin(0, [][]byte{key}, false)
	m, _ := rt.StreamMetaOf(key)
	var got []StreamID
	err := rt.StreamRange(m, StreamID{}, MaxStreamID, false, 0, func(e StreamID, _ [][]byte) bool {
		got = append(got, e)
		return true
	})
	rt.Abort()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || m.X.Nodes != 1 {
		t.Fatalf("entries %v (%d nodes), want %v", got, m.X.Nodes, want)
	}
	if err := CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}

// TestCompactChunkDamage reads a compact chunk back, then every truncation of it and every
// single-byte change: each read ends in the chunk's entries or an error, never a panic or an
// entry outside the node.
func TestCompactChunkDamage(t *testing.T) {
	master := StreamID{1000, 0}
	var c []byte
	var first [][]byte
	var want []StreamID
	for i := uint64(0); i < 6; i++ {
		id := StreamID{master.Ms + i*7, i % 2}
		fv := modelFields(id)
		c = appendCompact(c, master, id, fv, first)
		if first == nil {
			first = [][]byte{fv[0]}
		}
		want = append(want, id)
	}
	p, err := compactToPacked(nil, master, c)
	if err != nil {
		t.Fatal(err)
	}
	var got []StreamID
	for q := p; len(q) > 0; {
		id, resp, rest, ok := nextPacked(q)
		if !ok {
			t.Fatal("packed form unreadable")
		}
		if w := string(AppendStreamEntry(nil, id, modelFields(id))); string(resp) != w {
			t.Fatalf("entry %s: %q, want %q", id, resp, w)
		}
		got, q = append(got, id), rest
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
	check := func(b []byte) {
		out, err := compactToPacked(nil, master, b)
		if err != nil {
			return
		}
		for q := out; len(q) > 0; {
			id, _, rest, ok := nextPacked(q)
			if !ok || id.Cmp(master) < 0 {
				t.Fatalf("damaged chunk %x read as %x", b, out)
			}
			q = rest
		}
	}
	for n := range c {
		check(c[:n])
	}
	for i := range c {
		for _, v := range []byte{0, 0x7f, 0x80, 0xff} {
			b := append([]byte(nil), c...)
			b[i] = v
			check(b)
		}
	}
	if _, err := compactFirst(c[:3], nil); err == nil {
		t.Fatal("a truncated first entry gave field names")
	}
}
