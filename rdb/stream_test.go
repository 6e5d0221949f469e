package rdb

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// TestStreamDumpRoundTrip writes a stream of two nodes with a group through DumpWriter and
// reads it back: entries (fields like the master's and not, negative sequence deltas, large
// and integer-looking values), metadata and groups.
func TestStreamDumpRoundTrip(t *testing.T) {
	big := bytes.Repeat([]byte("v"), 5000)
	nodes := [][]StreamEntry{
		{{ID: StreamID{5, 3}, Fields: [][]byte{[]byte("f"), []byte("1")}},
			{ID: StreamID{6, 0}, Fields: [][]byte{[]byte("f"), []byte("-70000")}},
			{ID: StreamID{6, 1}, Fields: [][]byte{[]byte("g"), big, []byte("h"), []byte("007")}}},
		{{ID: StreamID{1 << 40, 0}, Fields: [][]byte{[]byte("x"), []byte("")}}},
	}
	tail := &StreamTail{Length: 4, LastID: StreamID{1 << 40, 0}, FirstID: StreamID{5, 3},
		MaxDeletedID: StreamID{5, 9}, EntriesAdded: 5, HasCounters: true,
		Groups: []StreamGroup{{Name: []byte("g"), LastID: StreamID{6, 0}, EntriesRead: -1,
			PEL:       []StreamNACK{{ID: StreamID{6, 0}, DeliveryTime: 1700000000000, DeliveryCount: 3}},
			Consumers: []StreamConsumer{{Name: []byte("alice"), SeenTime: 1700000000001, ActiveTime: -1, Pending: []StreamID{{6, 0}}}}}}}
	var buf bytes.Buffer
	d := NewDumpWriter(&buf)
	if err := d.Stream(uint64(len(nodes))); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if err := d.StreamNode(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err == nil {
		t.Fatal("Close before StreamTail succeeded")
	}
	if err := d.StreamTail(tail); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	v, err := ParseDump(buf.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		e, err := v.NextStreamEntry()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d-%d %q", e.ID.Ms, e.ID.Seq, e.Fields))
	}
	var want []string
	for _, n := range nodes {
		for _, e := range n {
			want = append(want, fmt.Sprintf("%d-%d %q", e.ID.Ms, e.ID.Seq, e.Fields))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("entries\ngot  %q\nwant %q", got, want)
	}
	tl, err := v.StreamTail()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", tl) != fmt.Sprintf("%+v", tail) {
		t.Fatalf("tail\ngot  %+v\nwant %+v", tl, tail)
	}
}
