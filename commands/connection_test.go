package commands

import (
	"strings"
	"testing"
	"time"
)

// TestClientLineLayout checks CLIENT LIST's field order against Redis 7.0.15's (with 7.2's
// lib-name and lib-ver appended).
func TestClientLineLayout(t *testing.T) {
	now := time.Now()
	ci := ClientInfo{Client: Client{ID: 7, DB: 2, Proto: 3, Name: "n", Addr: "127.0.0.1:5", LAddr: "127.0.0.1:6",
		LibName: "go-redis", LibVer: "9"}, FD: 9, Created: now.Add(-5 * time.Second), LastActive: now.Add(-2 * time.Second),
		LastCmd: "get", Flags: "N"}
	line := clientLine(&ci, now)
	var keys []string
	for _, f := range strings.Fields(line) {
		k, _, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("field %q has no '='", f)
		}
		keys = append(keys, k)
	}
	want := "id addr laddr fd name age idle flags db sub psub ssub multi qbuf qbuf-free argv-mem multi-mem " +
		"rbs rbp obl oll omem tot-mem events cmd user redir resp lib-name lib-ver"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("fields:\n got %s\nwant %s", got, want)
	}
	for _, f := range []string{"id=7 ", "fd=9 ", "name=n ", "age=5 ", "idle=2 ", "db=2 ", "cmd=get ", "user=default ", "resp=3 ", "lib-name=go-redis "} {
		if !strings.Contains(line, f) {
			t.Errorf("line lacks %q: %s", f, line)
		}
	}
}

func TestValidClientName(t *testing.T) {
	for name, ok := range map[string]bool{"": true, "abc": true, "a-b_c.9~!": true, "a b": false, "a\nb": false, "\x7f": false, "é": false} {
		if validClientName([]byte(name)) != ok {
			t.Errorf("validClientName(%q) = %v", name, !ok)
		}
	}
}

func TestCheckPassword(t *testing.T) {
	cases := []struct {
		user, pass, require string
		ok                  bool
	}{
		{"default", "x", "", true},
		{"default", "secret", "secret", true},
		{"default", "wrong", "secret", false},
		{"other", "secret", "secret", false},
		{"other", "", "", false},
		{"DEFAULT", "secret", "secret", false},
	}
	for _, c := range cases {
		if got := checkPassword([]byte(c.user), []byte(c.pass), c.require); got != c.ok {
			t.Errorf("checkPassword(%q, %q, requirepass %q) = %v", c.user, c.pass, c.require, got)
		}
	}
}
