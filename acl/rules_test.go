package acl

import (
	"strings"
	"testing"
)

func TestSplitAndMerge(t *testing.T) {
	args, ok := splitArgs(` ~a  "+get" '&b c' "x\x41\n" `)
	if !ok || strings.Join(args, "|") != "~a|+get|&b c|xA\n" {
		t.Errorf("splitArgs = %q, %v", args, ok)
	}
	if _, ok := splitArgs(`"open`); ok {
		t.Error("unbalanced quotes accepted")
	}
	merged, bad := mergeSelectorArgs([]string{"on", "(~a", "+get)", "(+set)", "off"})
	if bad != -1 || strings.Join(merged, "|") != "on|(~a +get)|(+set)|off" {
		t.Errorf("merge = %q, %d", merged, bad)
	}
	if _, bad := mergeSelectorArgs([]string{"on", "(~a", "+get"}); bad != 1 {
		t.Errorf("unclosed selector at %d, want 1", bad)
	}
}

// TestTable checks how NewTable builds the universe from specs: first spec of a name wins,
// subcommands follow their container, orphan subcommands are left out, ids follow name order.
func TestTable(t *testing.T) {
	tab := NewTable([]CommandSpec{
		{Name: "zeta", Categories: []string{"read"}},
		{Name: "alpha", Categories: []string{"write", "nosuch"}},
		{Name: "alpha|b", Arity: 3, Categories: []string{"admin"}},
		{Name: "alpha|a", Arity: -2},
		{Name: "zeta", Categories: []string{"admin"}},
		{Name: "orphan|x"},
	})
	var names []string
	tab.walk(func(e *Command) { names = append(names, e.name) })
	if got := strings.Join(names, " "); got != "alpha alpha|a alpha|b zeta" {
		t.Errorf("walk: %s", got)
	}
	if e := tab.lookup("ALPHA|B"); e == nil || e.id != 2 || e.Arity() != 3 || e.parent != tab.byName["alpha"] {
		t.Errorf("alpha|b: %+v", e)
	}
	if cmds, ok := tab.CategoryCommands("read"); !ok || strings.Join(cmds, " ") != "zeta" {
		t.Errorf("@read: %q %v", cmds, ok)
	}
	if _, ok := tab.CategoryCommands("nosuch"); ok {
		t.Error("unknown category accepted")
	}
	if tab.lookup("orphan|x") != nil || tab.lookup("zeta|x") != nil || tab.lookup("a|b|c") != nil {
		t.Error("lookup found an entry that is not there")
	}
	if e, ok := tab.Resolve("alpha", [][]byte{[]byte("alpha"), []byte("B")}); e.Name() != "alpha|b" || ok {
		t.Errorf("resolve alpha B (wrong arity): %s %v", e.Name(), ok)
	}
	if e, ok := tab.Resolve("alpha", [][]byte{[]byte("alpha"), []byte("c")}); e.Name() != "alpha" || !ok || !e.Container() {
		t.Errorf("resolve alpha c: %s %v", e.Name(), ok)
	}
	if tab.words != 1 || tab.n != 4 {
		t.Errorf("n %d words %d", tab.n, tab.words)
	}
}

func TestParseCount(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "7": 7, "12": 12, "-1": -1, "+1": -1, "01": -1, "": -1,
		"1x": -1, "9223372036854775807": 9223372036854775807, "9223372036854775808": -1, " 1": -1} {
		n, ok := parseCount([]byte(in))
		if !ok {
			n = -1
		}
		if n != want {
			t.Errorf("parseCount(%q) = %d, want %d", in, n, want)
		}
	}
}
