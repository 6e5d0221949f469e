package glob

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestGlobMatchCases(t *testing.T) {
	cases := []struct {
		pat, s string
		want   bool
	}{
		// "*" matches "" only through KEYS's and SCAN's match-all shortcut, as in Redis.
		{"*", "", false}, {"*", "anything", true}, {"", "", true}, {"", "a", false},
		{"h?llo", "hello", true}, {"h?llo", "hllo", false}, {"h*llo", "hllo", true},
		{"h*llo", "heeeello", true}, {"h[ae]llo", "hallo", true}, {"h[ae]llo", "hillo", false},
		{"h[^e]llo", "hallo", true}, {"h[^e]llo", "hello", false}, {"h[a-b]llo", "hbllo", true},
		{"h[b-a]llo", "hallo", true}, {"h[a-]llo", "h-llo", false}, {"h[a-]llo", "hallo", false},
		{`h\*llo`, "h*llo", true}, {`h\*llo`, "hello", false}, {`h[\]]llo`, "h]llo", true},
		{"h[", "h", false}, {"h[", "h[", false}, {"h[l", "hl", true}, {"h[^", "hx", true},
		{`a\`, `a\`, true}, {`\`, `\`, true}, {`a\\b`, `a\b`, true},
		{"a*b*c", "abbbc", true}, {"a*b*c", "ab", false}, {"**a", "a", true}, {"*?", "", false},
		// A ']' right after '[' closes an empty class, as in Redis.
		{"[]]", "]", false}, {"[]", "]", false}, {"[^]", "x", true}, {"[^]]", "x]", true},
		// C chars are signed: \x80..\xff sort below NUL in a range.
		{"[a-\xff]", "b", false}, {"[a-\xff]", "\x00", true}, {"[\x80-\xff]", "\x90", true},
		{"[\x80-\xff]", "a", false},
	}
	for _, c := range cases {
		if got := Match([]byte(c.pat), []byte(c.s), false); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pat, c.s, got, c.want)
		}
	}
	if !Match([]byte("H[A-C]LLO"), []byte("hbllo"), true) {
		t.Error("nocase range")
	}
}

func TestGlobNestingLimit(t *testing.T) {
	s := bytes.Repeat([]byte("a"), 3000)
	start := time.Now()
	if Match(bytes.Repeat([]byte("a*"), 1100), s, false) {
		t.Error("a pattern nesting deeper than 1000 stars matched")
	}
	if !Match(bytes.Repeat([]byte("a*"), 900), s, false) {
		t.Error("a pattern nesting 900 stars did not match")
	}
	// Pathological backtracking is cut short as in Redis (skipLongerMatches).
	if Match([]byte(strings.Repeat("*a", 30)+"b"), s, false) {
		t.Error("matched")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}
