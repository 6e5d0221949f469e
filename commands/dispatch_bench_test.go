package commands

import (
	"fmt"
	"testing"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

type benchEnv struct{ cfg *config.Config }

func (e benchEnv) Config() *config.Config { return e.cfg }

// benchCtx returns a dispatcher context over a fresh store, as the server builds one per command.
func benchCtx(b testing.TB) (*Ctx, func(args ...[]byte)) {
	st, err := storage.Open(storage.Options{Dir: b.TempDir(), DisableBackgrnd: true, KeyCache: 64 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	client := &Client{Proto: 2, Authed: true}
	w := &resp.Writer{Proto: 2}
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
	args := [][]byte{cmd, nil, val} // the server passes the parsed request's slice
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args[1] = keys[i&1023]
		run(args...)
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
	args := [][]byte{[]byte("GET"), nil}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args[1] = keys[i&1023]
		run(args...)
	}
}

// BenchmarkDispatchMSET measures redis-benchmark's MSET: ten pairs, all on one key.
func BenchmarkDispatchMSET(b *testing.B) {
	_, run := benchCtx(b)
	args := [][]byte{[]byte("MSET")}
	for range 10 {
		args = append(args, []byte("key:__rand_int__"), []byte("xxx"))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(args...)
	}
}

// BenchmarkDispatchLPUSHLPOP measures an LPUSH and an LPOP of one list.
func BenchmarkDispatchLPUSHLPOP(b *testing.B) {
	_, run := benchCtx(b)
	push, pop, key, val := []byte("LPUSH"), []byte("LPOP"), []byte("mylist"), []byte("xxx")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(push, key, val)
		run(pop, key)
	}
}

// BenchmarkDispatchLRANGE100 measures LRANGE mylist 0 99 on a list of 600 elements.
func BenchmarkDispatchLRANGE100(b *testing.B) {
	_, run := benchCtx(b)
	key := []byte("mylist")
	for range 600 {
		run([]byte("LPUSH"), key, []byte("xxx"))
	}
	cmd, from, to := []byte("LRANGE"), []byte("0"), []byte("99")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(cmd, key, from, to)
	}
}

// BenchmarkDispatchFlushEvery measures SET and INCR through the dispatcher with the store's
// pending commits written to LevelDB (Store.Flush, as the server does before it sends replies)
// after every command, as without pipelining, or after every 16, as redis-benchmark -P 16.
func BenchmarkDispatchFlushEvery(b *testing.B) {
	for _, name := range []string{"SET", "INCR"} {
		for _, every := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/%d", name, every), func(b *testing.B) {
				c, run := benchCtx(b)
				keys := make([][]byte, 1024)
				for i := range keys {
					keys[i] = []byte(fmt.Sprintf("key:%06d", i))
				}
				args := [][]byte{[]byte(name), nil}
				if name == "SET" {
					args = append(args, []byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"))
				}
				run([]byte("PING"))
				st := c.Store
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					args[1] = keys[i&1023]
					run(args...)
					if (i+1)%every == 0 {
						if err := st.Flush(); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
