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
