package commands

import (
	"testing"

	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// testStore opens a store of four databases, without background work, for the command tests;
// it is closed when the test ends.
func testStore(t testing.TB) *storage.Store {
	t.Helper()
	s, err := storage.Open(storage.Options{Dir: t.TempDir(), Databases: 4, DisableBackgrnd: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// runCommand runs one command through the dispatcher as a client of protocol proto in database
// db and returns the raw reply.
func runCommand(s *storage.Store, proto, db int, args ...string) []byte {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	c := &Ctx{Args: bargs, Client: &Client{DB: db, Proto: proto}, Store: s, W: &resp.Writer{Proto: proto}}
	Dispatch(c, false)
	return c.W.Bytes()
}

// dispatchAs runs one command through the dispatcher for client cl with env and the keyspace
// events switch ke (either may be nil) and returns its context, reply and events included.
func dispatchAs(s *storage.Store, cl *Client, env Env, ke *KeyEvents, args ...string) *Ctx {
	bargs := make([][]byte, len(args))
	for i, a := range args {
		bargs[i] = []byte(a)
	}
	c := &Ctx{Args: bargs, Client: cl, Store: s, W: &resp.Writer{Proto: cl.Proto}, Env: env, KE: ke}
	Dispatch(c, false)
	return c
}

// The external tests (package commands_test) use the same two.
var (
	TestStore  = testStore
	RunCommand = runCommand
)

// replyOf runs one command in database 0 and returns its raw reply as a string.
func replyOf(s *storage.Store, proto int, args ...string) string {
	return string(runCommand(s, proto, 0, args...))
}
