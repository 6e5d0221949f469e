package commands

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strata-db/strata/internal/cmddoc"
	"github.com/strata-db/strata/internal/resp"
)

// TestCommandTableConsistency walks the whole command table and checks what COMMAND, the
// dispatcher and the key locking rely on.
func TestCommandTableConsistency(t *testing.T) {
	all := All()
	if len(all) == 0 {
		t.Fatal("empty command table")
	}
	seen := map[string]bool{}
	for _, cmd := range all {
		name := cmd.Name
		if name == "" || name != strings.ToLower(name) {
			t.Errorf("%q: command names must be lower case", name)
		}
		if seen[name] {
			t.Errorf("%s: registered twice", name)
		}
		seen[name] = true
		if Lookup([]byte(strings.ToUpper(name))) != cmd {
			t.Errorf("%s: Lookup of the upper-case name does not find it", name)
		}
		if cmd.Arity == 0 {
			t.Errorf("%s: arity 0", name)
		}
		if cmd.Handler == nil {
			t.Errorf("%s: no handler", name)
		}
		hasKeys := cmd.FirstKey > 0 || cmd.Keys != nil
		w, r := cmd.Flags&FlagWrite != 0, cmd.Flags&FlagReadonly != 0
		if w && r {
			t.Errorf("%s: both write and readonly", name)
		}
		if hasKeys && !w && !r {
			t.Errorf("%s: has keys but is neither write nor readonly", name)
		}
		minArgs := cmd.Arity
		if minArgs < 0 {
			minArgs = -minArgs
		}
		// Container commands (OBJECT ENCODING key, ...) may declare the key position of their
		// keyed subcommands; KeysOf skips it when the call is shorter.
		container := len(cmd.Sub) > 0
		switch {
		case cmd.FirstKey < 0:
			t.Errorf("%s: negative first key %d", name, cmd.FirstKey)
		case cmd.FirstKey == 0:
			if cmd.Keys == nil && (cmd.LastKey != 0 || cmd.Step != 0) {
				t.Errorf("%s: no first key but last key %d, step %d", name, cmd.LastKey, cmd.Step)
			}
		default:
			if cmd.FirstKey >= minArgs && cmd.Keys == nil && !container {
				t.Errorf("%s: first key %d beyond the %d arguments arity %d guarantees", name, cmd.FirstKey, minArgs, cmd.Arity)
			}
			if cmd.Step < 1 {
				t.Errorf("%s: step %d, want >= 1", name, cmd.Step)
			}
			switch last := cmd.LastKey; {
			case last == 0:
				t.Errorf("%s: first key %d but last key 0", name, cmd.FirstKey)
			case last > 0 && last < cmd.FirstKey:
				t.Errorf("%s: last key %d before first key %d", name, last, cmd.FirstKey)
			case last > 0 && last >= minArgs && cmd.Keys == nil && !container:
				t.Errorf("%s: last key %d beyond the %d arguments arity %d guarantees", name, last, minArgs, cmd.Arity)
			case last < 0 && cmd.Arity > 0 && cmd.Arity+last < cmd.FirstKey:
				t.Errorf("%s: last key %d falls before first key %d for arity %d", name, last, cmd.FirstKey, cmd.Arity)
			}
		}
		// Key extraction must not panic on the smallest valid call, and must find keys for a
		// command that declares a fixed key position.
		args := make([][]byte, max(minArgs, 1))
		args[0] = []byte(name)
		for i := 1; i < len(args); i++ {
			args[i] = []byte("1")
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: KeysOf(%d args) panicked: %v", name, len(args), r)
				}
			}()
			keys := cmd.KeysOf(args)
			if cmd.Keys == nil && cmd.FirstKey > 0 && len(keys) == 0 && !container {
				t.Errorf("%s: no keys found in a %d-argument call", name, len(args))
			}
		}()
		for _, s := range cmd.Sub {
			if s != strings.ToLower(s) || strings.ContainsAny(s, " |") {
				t.Errorf("%s: bad subcommand name %q", name, s)
			}
		}
	}
	for _, name := range []string{"hello", "auth", "quit"} {
		if cmd := Lookup([]byte(name)); cmd == nil || cmd.Flags&FlagNoAuth == 0 {
			t.Errorf("%s must exist and carry no_auth", name)
		}
	}
}

// TestCommandReplyShape checks the ten-element COMMAND entry in both protocols.
func TestCommandReplyShape(t *testing.T) {
	for _, proto := range []int{2, 3} {
		w := &resp.Writer{Proto: proto}
		writeCommandInfo(w, Lookup([]byte("get")))
		got := string(w.Bytes())
		set := "*"
		if proto == 3 {
			set = "~"
		}
		m := func(n int) string { return fmt.Sprintf("*%d", 2*n) } // a map header
		if proto == 3 {
			m = func(n int) string { return fmt.Sprintf("%%%d", n) }
		}
		keySpec := set + "1\r\n" + m(3) + "\r\n$5\r\nflags\r\n" + set + "2\r\n+RO\r\n+access\r\n" +
			"$12\r\nbegin_search\r\n" + m(2) + "\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n" + m(1) + "\r\n$5\r\nindex\r\n:1\r\n" +
			"$9\r\nfind_keys\r\n" + m(2) + "\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n" + m(3) + "\r\n" +
			"$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n"
		want := "*10\r\n$3\r\nget\r\n:2\r\n" + set + "2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n" +
			set + "3\r\n+@read\r\n+@string\r\n+@fast\r\n" + set + "0\r\n" + keySpec + set + "0\r\n"
		if got != want {
			t.Errorf("RESP%d COMMAND INFO get:\n got %q\nwant %q", proto, got, want)
		}
	}
}

// TestCommandMetaCoversContainers checks that every subcommand of the container commands
// Strata implements is described (arity and flags for COMMAND).
func TestCommandMetaCoversContainers(t *testing.T) {
	for _, name := range []string{"client", "config", "command"} {
		cmd := Lookup([]byte(name))
		if cmd == nil {
			t.Fatalf("%s not registered", name)
		}
		for _, s := range cmd.Sub {
			m, ok := cmddoc.Redis[name+"|"+s]
			if !ok || m.Arity == 0 {
				t.Errorf("%s|%s: no metadata", name, s)
			}
		}
	}
	if got := fmt.Sprint(len(cmddoc.Redis) > 300); got != "true" {
		t.Errorf("metadata table has %d entries", len(cmddoc.Redis))
	}
}
