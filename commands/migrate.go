package commands

import (
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/strata-db/strata/internal/outconn"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

func init() {
	register(&Command{Name: "migrate", Arity: -6, Flags: FlagWrite, FirstKey: 3, LastKey: 3, Step: 1,
		Keys: func(args [][]byte) [][]byte {
			first, num := migrateKeyRange(args)
			return args[first : first+num]
		},
		Handler: cmdMigrate})
}

// migrateKeyRange returns the index of MIGRATE's first key argument and the number of keys:
// the key argument, or everything after KEYS when the key argument is empty. Options that
// take values (AUTH, AUTH2) are skipped, so a password spelled "keys" is not the keyword.
func migrateKeyRange(args [][]byte) (first, num int) {
	if len(args) < 4 {
		return len(args), 0
	}
	for i := 6; i < len(args); i++ {
		switch strings.ToLower(string(args[i])) {
		case "keys":
			if len(args[3]) > 0 {
				return 3, 1
			}
			return i + 1, len(args) - i - 1
		case "auth":
			i++
		case "auth2":
			i += 2
		}
	}
	return 3, 1
}

// migrateChunk is the size of the pieces MIGRATE writes, each within the timeout.
const migrateChunk = 64 << 10

// migrateConns caches MIGRATE's connections to its targets.
var migrateConns = outconn.NewCache(10*time.Second, 64, 1024)

// MigrateCachedSockets returns the number of idle cached MIGRATE connections, for INFO.
func MigrateCachedSockets() int { return migrateConns.Len() }

// cmdMigrate implements MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
// [AUTH password | AUTH2 username password] [KEYS key ...] as Redis 7.0 does: it sends AUTH,
// SELECT (unless the cached connection has the database selected) and one RESTORE per live key
// with its remaining TTL in one write, reads one reply line per command, and deletes the keys
// the target acknowledged unless COPY. A failed first attempt on a cached connection that did
// not time out is retried once on a new one. When MIGRATE answers an error, its transaction is
// dropped, so keys the target acknowledged before a failure stay here too (they are then on
// both sides, never on neither).
func cmdMigrate(c *Ctx) {
	var copyKeys, replace, auth bool
	var user, pass []byte
	first, num := 3, 1
options:
	for j := 6; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		switch strings.ToLower(c.Arg(j)) {
		case "copy":
			copyKeys = true
		case "replace":
			replace = true
		case "auth":
			if more < 1 {
				c.W.Error(ErrSyntax)
				return
			}
			j++
			auth, pass = true, c.Args[j]
		case "auth2":
			if more < 2 {
				c.W.Error(ErrSyntax)
				return
			}
			auth, user, pass = true, c.Args[j+1], c.Args[j+2]
			j += 2
		case "keys":
			if len(c.Args[3]) != 0 {
				c.W.Error(ErrMigrateKeys)
				return
			}
			first, num = j+1, len(c.Args)-j-1
			break options
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	timeoutMS, ok := c.Int(5)
	if !ok {
		return
	}
	db, ok := c.Int(4)
	if !ok {
		return
	}
	if timeoutMS <= 0 {
		timeoutMS = 1000
	}
	timeout := time.Duration(min(timeoutMS, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond

	// The keys that exist, and the RESTORE commands that carry them.
	var keys [][]byte
	var metas []*storage.Meta
	for _, k := range c.Args[first : first+num] {
		m, err := c.Txn.GetMeta(k)
		if err != nil {
			c.Fail(err)
			return
		}
		if m != nil {
			keys, metas = append(keys, k), append(metas, m)
		}
	}
	if len(keys) == 0 {
		c.W.Status("NOKEY")
		return
	}
	restores := resp.NewWriter(nil, 2)
	defer restores.Release()
	now := c.Txn.Now()
	for i, k := range keys {
		var ttl int64
		if metas[i].Expire != 0 {
			ttl = max(metas[i].Expire-now, 1)
		}
		p, err := dumpPayload(c.Txn, metas[i])
		if err != nil {
			c.Fail(err)
			return
		}
		if replace {
			restores.Array(5)
		} else {
			restores.Array(4)
		}
		restores.BulkString("RESTORE")
		restores.Bulk(k)
		restores.BulkInt(ttl)
		restores.Bulk(p)
		if replace {
			restores.BulkString("REPLACE")
		}
	}

	name := net.JoinHostPort(c.Arg(1), c.Arg(2))
	for retry := true; ; retry = false {
		mc, err := migrateConns.Take(name, timeout)
		if errors.Is(err, syscall.ECONNREFUSED) && retry {
			continue
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			// A refused connection shows in Redis as a failed write after the connect: its
			// non-blocking connect completes, the write fails, the retry fails the same way.
			c.W.Error(fmt.Sprintf(ErrMigrateIO, "writing"))
			return
		}
		if err != nil {
			c.W.Error(ErrMigrateConnect)
			return
		}
		ok, targetErr, ioErr, writing := migrateSend(mc, restores.Bytes(), user, pass, auth, db, len(keys), timeout)
		if ioErr != nil {
			mc.Close()
			if retry && !slices.Contains(ok, true) && targetErr == "" && !outconn.IsTimeout(ioErr) {
				continue
			}
			if targetErr == "" {
				if writing {
					migrateFinish(c, keys, ok, copyKeys, fmt.Sprintf(ErrMigrateIO, "writing"))
				} else {
					migrateFinish(c, keys, ok, copyKeys, fmt.Sprintf(ErrMigrateIO, "reading"))
				}
				return
			}
		} else {
			if targetErr == "" {
				mc.LastDB = db
			}
			migrateConns.Give(name, mc)
		}
		if targetErr != "" {
			migrateFinish(c, keys, ok, copyKeys, fmt.Sprintf(ErrMigrateTargetErr, targetErr))
			return
		}
		migrateFinish(c, keys, ok, copyKeys, "")
		return
	}
}

// migrateFinish deletes the keys the target acknowledged (unless COPY) and answers OK, or the
// error msg. As in Redis, what the target took is gone from here even when MIGRATE answers an
// error, so the command's writes are kept then (Ctx.KeepWrites): a key is never on both sides.
func migrateFinish(c *Ctx, keys [][]byte, ok []bool, copyKeys bool, msg string) {
	del := [][]byte{verbDel} // the propagated form: DEL of the keys the target took
	if !copyKeys {
		for i, k := range keys {
			if i >= len(ok) || !ok[i] {
				continue
			}
			if _, err := c.Txn.Delete(k); err != nil {
				c.Fail(err)
				return
			}
			del = append(del, k)
		}
	}
	deleted := len(del) > 1
	if deleted {
		c.Effect(del...)
	}
	if msg == "" {
		c.W.OK()
		return
	}
	c.KeepWrites = deleted
	c.W.Error(msg)
}

// migrateSend writes AUTH, SELECT (when mc has another database selected) and the RESTORE
// commands (n of them, encoded in restores) to mc in one write, and reads their replies. It
// returns how many RESTOREs the target acknowledged, the first error the target answered
// (without its '-'), and a socket error, with writing set when the write failed.
func migrateSend(mc *outconn.Conn, restores, user, pass []byte, auth bool, db int64, n int, timeout time.Duration) (ok []bool, targetErr string, ioErr error, writing bool) {
	ok = make([]bool, n)
	w := resp.NewWriter(nil, 2)
	defer w.Release()
	if auth {
		if user != nil {
			w.Array(3)
			w.BulkString("AUTH")
			w.Bulk(user)
		} else {
			w.Array(2)
			w.BulkString("AUTH")
		}
		w.Bulk(pass)
	}
	sel := mc.LastDB != db
	if sel {
		w.Array(2)
		w.BulkString("SELECT")
		w.BulkString(strconv.FormatInt(db, 10))
	}
	w.Raw(restores)
	if err := mc.Write(w.Bytes(), migrateChunk, timeout); err != nil {
		return ok, "", err, true
	}
	var authReply, selReply []byte
	var err error
	if auth {
		if authReply, err = mc.ReadLine(timeout); err != nil {
			return ok, "", err, false
		}
	}
	if sel {
		if selReply, err = mc.ReadLine(timeout); err != nil {
			return ok, "", err, false
		}
	}
	for j := 0; j < n; j++ {
		line, err := mc.ReadLine(timeout)
		if err != nil {
			return ok, targetErr, err, false
		}
		var bad []byte
		switch {
		case auth && authReply[0] == '-':
			bad = authReply
		case sel && selReply[0] == '-':
			bad = selReply
		case line[0] == '-':
			bad = line
		}
		if bad == nil {
			ok[j] = true
		} else if targetErr == "" {
			mc.LastDB = -1
			targetErr = string(bad[1:])
		}
	}
	return ok, targetErr, nil, false
}
