package commands

import "testing"

func TestLookupIsCaseInsensitiveAndDoesNotAllocate(t *testing.T) {
	for _, name := range []string{"get", "GET", "GeT"} {
		if c := Lookup([]byte(name)); c == nil || c.Name != "get" {
			t.Fatalf("Lookup(%q) = %v", name, c)
		}
	}
	if Lookup([]byte("nosuchcommand")) != nil {
		t.Fatal("unknown command found")
	}
	name := []byte("SET")
	if n := testing.AllocsPerRun(1000, func() { Lookup(name) }); n != 0 {
		t.Fatalf("Lookup allocates %.1f times per call", n)
	}
}

func TestUnknownCommandErrorText(t *testing.T) {
	got := UnknownCommandError([][]byte{[]byte("foo"), []byte("a"), []byte("b")})
	if want := "ERR unknown command 'foo', with args beginning with: 'a' 'b' "; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

// TestSetAllocatesOnce: SET of an existing key through the dispatcher allocates at most once
// (the key cache's copy of the new record): the old metadata is decoded into the transaction's
// own Meta. A pipelined server writes the pending group after a pass; so does this test, every
// 16 commands (the write's own allocations are averaged in).
func TestSetAllocatesOnce(t *testing.T) {
	c, run := benchCtx(t)
	keys := make([][]byte, 64)
	for i := range keys {
		keys[i] = []byte("key:" + string(rune('A'+i)))
		run([]byte("SET"), keys[i], []byte("before"))
	}
	args := [][]byte{[]byte("SET"), nil, []byte("after-value")}
	i := 0
	n := testing.AllocsPerRun(2000, func() {
		args[1] = keys[i%len(keys)]
		run(args...)
		if i++; i%16 == 0 {
			c.Store.Flush()
		}
	})
	if n > 1 {
		t.Fatalf("SET allocates %.2f times per command, want at most 1", n)
	}
}
