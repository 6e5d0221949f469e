package commands

import (
	"fmt"
	"testing"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/storage"
)

type benchEnv struct{ cfg *config.Config }

func (e benchEnv) Config() *config.Config { return e.cfg }

// benchCtx returns a dispatcher context over a fresh store, as the server builds one per command.
func benchCtx(b *testing.B) (*Ctx, func(args ...[]byte)) {
	st, err := storage.Open(storage.Options{Dir: b.TempDir(), DisableBackgrnd: true, KeyCache: 64 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	client := &Client{Proto: 2, Authed: true}
	w := &Writer{Proto: 2}
	c := &Ctx{}
	env := benchEnv{config.Default()}
	run := func(args ...[]byte) {
		*c = Ctx{Args: args, Client: client, Store: st, W: w, Env: env}
		Dispatch(c, false)
		if w.Len() > 0 && w.Bytes()[0] == '-' {
			b.Fatalf("%s: %s", args[0], w.Bytes())
		}
		w.Reset()
	}
	return c, run
}

// BenchmarkDispatchSET measures SET through the dispatcher and storage, without the network.
func BenchmarkDispatchSET(b *testing.B) {
	_, run := benchCtx(b)
	keys := make([][]byte, 1024)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key:%06d", i))
	}
	cmd, val := []byte("SET"), []byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(cmd, keys[i&1023], val)
	}
}

// BenchmarkDispatchGET measures GET of an existing key through the dispatcher and storage.
func BenchmarkDispatchGET(b *testing.B) {
	_, run := benchCtx(b)
	keys := make([][]byte, 1024)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key:%06d", i))
		run([]byte("SET"), keys[i], []byte("value"))
	}
	cmd := []byte("GET")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(cmd, keys[i&1023])
	}
}
