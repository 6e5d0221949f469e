package cursor

import (
	"bytes"
	"testing"
)

// TestIssueLookup: an issued cursor resumes strictly after its position; an unknown one resumes
// at its 4-byte prefix, never after the position it stood for; 0 starts from the beginning.
func TestIssueLookup(t *testing.T) {
	tab := NewTable()
	if p := tab.Lookup(0); !p.Inclusive || len(p.Key) != 0 {
		t.Fatalf("cursor 0: %+v", p)
	}
	cur := tab.Issue([]byte("user:1000"))
	if cur == 0 || cur >= 1<<63 {
		t.Fatalf("issued %d", cur)
	}
	p := tab.Lookup(cur)
	if p.Inclusive || string(p.Key) != "user:1000" || string(p.Start()) != "user:1000\x00" {
		t.Fatalf("lookup %+v start %q", p, p.Start())
	}
	// A table that never issued the cursor (after a restart) falls back to its prefix.
	p = NewTable().Lookup(cur)
	if !p.Inclusive || string(p.Key) != "user" || bytes.Compare(p.Start(), []byte("user:1000")) > 0 {
		t.Fatalf("unknown cursor: %+v", p)
	}
	if p := NewTable().Lookup(7); !p.Inclusive || len(p.Key) != 0 {
		t.Fatalf("made-up cursor: %+v", p)
	}
}

// TestEviction: past cursorMaxItems entries the oldest cursors are forgotten.
func TestEviction(t *testing.T) {
	tab := NewTable()
	first := tab.Issue([]byte("aaaa-first"))
	for i := 0; i < cursorMaxItems; i++ {
		tab.Issue([]byte("bbbb"))
	}
	if p := tab.Lookup(first); !p.Inclusive || string(p.Key) != "aaaa" {
		t.Fatalf("evicted cursor resumes at %+v", p)
	}
	if tab.lru.Len() != cursorMaxItems {
		t.Fatalf("table holds %d", tab.lru.Len())
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]uint64{"": 0, "0": 0, "42": 42, "+5": 5, "-1": 1<<64 - 1} {
		if got, ok := Parse([]byte(in)); !ok || got != want {
			t.Errorf("Parse(%q) = %d %v", in, got, ok)
		}
	}
	for _, in := range []string{"x", " 1", "1 ", "-", "18446744073709551616"} {
		if _, ok := Parse([]byte(in)); ok {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
}
