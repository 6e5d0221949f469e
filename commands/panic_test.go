package commands_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/internal/testutil"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHandlerPanicIsRecovered registers a command whose handler stages a write, starts a reply
// and panics, and runs it on a server, alone and inside MULTI/EXEC: the panic is logged with
// the command's name, the client gets an error, the staged write is dropped (outside EXEC), the
// key's lock is released and the server keeps serving.
func TestHandlerPanicIsRecovered(t *testing.T) {
	var logged lockedBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	defer slog.SetDefault(old)
	remove := commands.RegisterForTest(&commands.Command{Name: "test-panic", Arity: 2,
		Flags: commands.FlagWrite, FirstKey: 1, LastKey: 1, Step: 1,
		Handler: func(c *commands.Ctx) {
			if err := c.Txn.SetString(c.Args[1], []byte("half-done"), 0); err != nil {
				c.Fail(err)
				return
			}
			c.W.Array(2)
			c.W.BulkString("partial")
			panic("deliberate test panic")
		}})
	defer remove()

	inst := testutil.StartStrata(t)
	c := testutil.Connect(t, inst.Addr)
	do := func(want string, args ...string) {
		t.Helper()
		r, err := c.Do(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if got := r.String(); got != want {
			t.Fatalf("%v: got %s, want %s", args, got, want)
		}
	}
	const answer = "(error) ERR internal error while running 'test-panic'"
	do(answer, "TEST-PANIC", "k")
	do("PONG", "PING")
	do("(nil)", "GET", "k")       // the staged write was dropped
	do("OK", "SET", "k", "v")     // the key's lock was released
	do(answer, "test-panic", "k") // again, on a key that exists
	do(`"v"`, "GET", "k")
	do("OK", "MULTI")
	do("QUEUED", "TEST-PANIC", "k")
	do("QUEUED", "SET", "k2", "w")
	do("1) "+answer+"\n2) OK", "EXEC")
	do(`"w"`, "GET", "k2")
	// Inside EXEC, RunIn leaves what the panicking handler staged in EXEC's batch (k now
	// holds "half-done"): not checked here, reported as a known gap.
	other := testutil.Connect(t, inst.Addr)
	if r, err := other.Do("PING"); err != nil || r.Str != "PONG" {
		t.Fatalf("another client: %v %v", r, err)
	}
	log := logged.String()
	if n := strings.Count(log, "command panicked"); n != 3 || !strings.Contains(log, "command=test-panic") ||
		!strings.Contains(log, "deliberate test panic") {
		t.Errorf("want three panics logged with the command name and the panic value; log:\n%s", log)
	}
}
