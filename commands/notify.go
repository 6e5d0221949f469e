package commands

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/num"
)

// Keyspace events.
//
// Redis calls notifyKeyspaceEvent and signalModifiedKey from inside each write command. Strata
// records the same events from outside the handlers: EnableKeyEvents wraps the handler of every
// write command listed in notifiers with a function that, while the server's KeyEvents say that
// notifications are on or that some client WATCHes keys, looks at the command's reply (and, where
// the reply does not tell, at the keys before and after the handler, in the command's own
// transaction) and appends the events Redis 7.0 emits to Ctx.Events. When both are off the
// wrapper costs one atomic load.
//
// The server publishes the events after the command commits (__keyspace@<db>__:<key> and
// __keyevent@<db>__:<event>, filtered by the notify-keyspace-events classes), and uses their keys
// to fail the EXEC of clients that WATCH them, before the commit (Ctx.OnWrite).

// Event is one keyspace event.
type Event struct {
	Class uint32 // config.Notify* class
	Name  string // "set", "del", "lpush", ...
	DB    int
	Key   []byte
}

// KeyEvents is a server's switch for event recording: the enabled notification classes and the
// number of WATCHed keys, in one word so that a write command tests both with one atomic load.
type KeyEvents struct {
	state atomic.Uint64 // low 32 bits: notification classes; high 32 bits: watched keys

	// Flush, when set, is called by FLUSHDB, FLUSHALL and SWAPDB while clients watch keys,
	// before the command changes anything, inside its exclusive transaction, with the
	// databases the command empties or swaps (swap: the two databases of SWAPDB).
	Flush func(c *Ctx, dbs []int, swap bool)
	// Touch, when set, marks the clients that watch key in db as failed. Scripts call it for
	// their declared keys before they run (they commit their writes themselves).
	Touch func(db int, key []byte)
}

// Active reports whether write commands should record their events.
func (k *KeyEvents) Active() bool { return k != nil && k.state.Load() != 0 }

// Classes returns the enabled notification classes.
func (k *KeyEvents) Classes() uint32 { return uint32(k.state.Load()) }

// Watching reports whether some client watches keys.
func (k *KeyEvents) Watching() bool { return k.state.Load()>>32 != 0 }

// SetClasses replaces the enabled notification classes.
func (k *KeyEvents) SetClasses(f uint32) {
	for {
		old := k.state.Load()
		if k.state.CompareAndSwap(old, old&^0xffffffff|uint64(f)) {
			return
		}
	}
}

// AddWatches changes the count of watched keys by n.
func (k *KeyEvents) AddWatches(n int) { k.state.Add(uint64(int64(n) << 32)) }

func init() {
	// Both directives change at run time, as in Redis; the check answers Redis's texts.
	for _, name := range []string{"notify-keyspace-events", "client-output-buffer-limit"} {
		configMutable[name] = func(v string) string {
			if err := config.Default().Set(name, []string{v}); err != nil {
				if inner := errors.Unwrap(err); inner != nil {
					return inner.Error()
				}
				return err.Error()
			}
			return ""
		}
	}
}

var keyEventsOnce sync.Once

// EnableKeyEvents wraps the handlers of the write commands that record keyspace events. A
// server calls it before it runs any command; it runs once per process.
func EnableKeyEvents() {
	keyEventsOnce.Do(func() {
		for name, fn := range notifiers {
			cmd := table[name]
			if cmd == nil {
				continue
			}
			cmd.Handler = wrapNotify(cmd.Handler, fn)
		}
	})
}

// notifier is what an event function sees: the command, where its reply starts, and what it
// recorded before the handler ran.
type notifier struct {
	c      *Ctx
	start  int
	writes int    // the transaction's staged writes before the handler
	pre    []bool // per key argument: live before the handler (pre functions fill it)
}

type notifySpec struct {
	pre  func(n *notifier) // optional: inside the transaction, before the handler
	post func(n *notifier)
}

func wrapNotify(h func(*Ctx), spec notifySpec) func(*Ctx) {
	return func(c *Ctx) {
		if !c.KE.Active() {
			h(c)
			return
		}
		n := notifier{c: c, start: c.W.Len()}
		if c.Txn != nil {
			n.writes = c.Txn.Writes()
		}
		var absent []Event
		if c.Txn != nil && c.KE.Classes()&config.NotifyNew != 0 {
			absent = absentKeys(c)
		}
		if spec.pre != nil && c.Txn != nil {
			spec.pre(&n)
		}
		events := len(c.Events)
		h(c)
		if c.Blocked || n.failed() && !c.KeepWrites {
			return
		}
		c.Tracked = true
		spec.post(&n)
		if len(absent) > 0 {
			n.emitNew(absent, events)
		}
	}
}

// absentKeys returns the keys a command may create that do not exist before it runs: its
// declared keys, and the destination of MOVE and COPY ... DB in the other database.
func absentKeys(c *Ctx) []Event {
	var out []Event
	add := func(db int, key []byte) {
		for _, e := range out {
			if e.DB == db && bytes.Equal(e.Key, key) {
				return
			}
		}
		if m, err := c.Txn.GetMetaIn(db, key); err == nil && m == nil {
			out = append(out, Event{Class: config.NotifyNew, Name: "new", DB: db, Key: key})
		}
	}
	for _, k := range c.Cmd.KeysOf(c.Args) {
		add(c.Client.DB, k)
	}
	switch c.Cmd.Name {
	case "move":
		if db, err := num.ParseInt(c.Args[2]); err == nil && db >= 0 && db < int64(c.Store.Databases()) {
			add(int(db), c.Args[1])
		}
	case "copy":
		for i := 3; i+1 < len(c.Args); i++ {
			if strings.EqualFold(string(c.Args[i]), "db") {
				if db, err := num.ParseInt(c.Args[i+1]); err == nil && db >= 0 && db < int64(c.Store.Databases()) {
					add(int(db), c.Args[2])
				}
			}
		}
	}
	return out
}

// emitNew inserts a "new" event for each key in absent that the command created (the command's
// events start at from), where Redis emits it: when the key is added, before the command's own
// event for the key; RENAME and MOVE add the key before any of their events.
func (n *notifier) emitNew(absent []Event, from int) {
	c := n.c
	first := c.Cmd.Name == "rename" || c.Cmd.Name == "renamenx" || c.Cmd.Name == "move"
	at := from
	for _, ev := range absent {
		if m, err := c.Txn.GetMetaIn(ev.DB, ev.Key); err != nil || m == nil {
			continue
		}
		pos := len(c.Events)
		if first {
			pos = at
		} else {
			for i := from; i < len(c.Events); i++ {
				if c.Events[i].DB == ev.DB && bytes.Equal(c.Events[i].Key, ev.Key) {
					pos = i
					break
				}
			}
		}
		c.Events = slices.Insert(c.Events, pos, ev)
		at++
	}
}

func (n *notifier) reply() []byte { return n.c.W.Bytes()[n.start:] }

func (n *notifier) failed() bool {
	r := n.reply()
	return len(r) == 0 || r[0] == '-'
}

// null reports a null reply, or an empty array.
func (n *notifier) null() bool {
	r := n.reply()
	return bytes.HasPrefix(r, []byte("$-1\r")) || bytes.HasPrefix(r, []byte("*-1\r")) ||
		bytes.HasPrefix(r, []byte("_\r")) || bytes.HasPrefix(r, []byte("*0\r"))
}

// int returns an integer reply.
func (n *notifier) int() int64 {
	r := n.reply()
	if len(r) < 3 || r[0] != ':' {
		return 0
	}
	end := bytes.IndexByte(r, '\r')
	if end < 0 {
		return 0
	}
	v, _ := num.ParseInt(r[1:end])
	return v
}

// wrote reports whether the handler staged writes.
func (n *notifier) wrote() bool { return n.c.Txn != nil && n.c.Txn.Writes() > n.writes }

// exists reports whether key is live now, in the command's transaction.
func (n *notifier) exists(key []byte) bool {
	if n.c.Txn == nil {
		return false
	}
	m, err := n.c.Txn.GetMeta(key)
	return err == nil && m != nil
}

func (n *notifier) emit(class uint32, name string, key []byte) {
	n.c.Events = append(n.c.Events, Event{Class: class, Name: name, DB: n.c.Client.DB, Key: key})
}

// emitDel emits "del" when key, which existed, is gone (a collection emptied by a evRemoval).
func (n *notifier) emitDel(key []byte) {
	if !n.exists(key) {
		n.emit(config.NotifyGeneric, "del", key)
	}
}
