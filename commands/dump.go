package commands

import (
	"bytes"
	"errors"
	"math"
	"strings"

	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/storage"
)

func init() {
	register(
		&Command{Name: "dump", Arity: 2, Flags: FlagReadonly, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdDump},
		&Command{Name: "restore", Arity: -4, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdRestore},
		&Command{Name: "restore-asking", Arity: -4, Flags: FlagWrite | FlagDenyOOM | FlagAsking, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdRestore},
	)
}

// restoreOptions are the limits RESTORE reads payloads with. RDB versions up to 12 are taken
// (Redis 7.0 stops at 10, its own): payloads DUMPed or MIGRATEd by Redis 7.2 (11) and 7.4 or
// 8.x (12) restore too, which is what moving data off a newer Redis needs.
//
// A string payload large enough that its value goes to the value log is not copied: the value
// is written from the payload itself (the argument), which lives until the command ends.
func restoreOptions(c *Ctx, payload []byte) *rdb.Options {
	threshold := c.Store.LargeValueThreshold()
	alias := threshold > 0 && len(payload)-20 >= threshold // a string payload carries at most 20 bytes more than its value
	return &rdb.Options{MaxVersion: rdb.MaxVersion, MaxElementLen: stringLimit(c), AliasString: alias}
}

// dumpPayload returns the DUMP payload of the key whose metadata is m.
func dumpPayload(t *storage.Txn, m *storage.Meta) ([]byte, error) {
	var buf bytes.Buffer
	dw := rdb.NewDumpWriter(&buf)
	if err := DumpValue(t, m, &dw.ValueWriter); err != nil {
		return nil, err
	}
	if err := dw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// cmdDump answers the DUMP payload of a key, in the encodings every Redis from 6.2 on
// restores, or a null for a missing key.
func cmdDump(c *Ctx) {
	m, ok := metaOrNull(c, c.Args[1])
	if !ok {
		return
	}
	if m.Type == storage.TypeString && m.Enc != storage.EncInline {
		// A value-log string is read from its file straight into the reply, stored raw: the
		// reply's buffer is the only copy.
		n, start := m.StringLen(), c.W.Len()
		err := rdb.RawStringDump(c.W.BulkSpace(rdb.DumpStringSize(n)), n, func(body []byte) error {
			return c.Txn.ReadStringInto(m, body)
		})
		if err != nil {
			c.W.Truncate(start)
			c.Fail(err)
		}
		return
	}
	p, err := dumpPayload(c.Txn, m)
	if err != nil {
		c.Fail(err)
		return
	}
	c.W.Bulk(p)
}

// cmdRestore implements RESTORE and RESTORE-ASKING: RESTORE key ttl payload [REPLACE]
// [ABSTTL] [IDLETIME seconds] [FREQ frequency], with Redis 7.0's checks in its order. The value
// is decoded and stored element by element in the command's batch; any error drops the batch,
// so a refused payload changes nothing. IDLETIME sets the key's last use (under an LRU or no
// policy) and FREQ its access frequency (under an LFU policy), as in Redis.
func cmdRestore(c *Ctx) {
	var replace, absTTL bool
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(c.Args); j++ {
		more := len(c.Args) - j - 1
		switch opt := strings.ToLower(c.Arg(j)); {
		case opt == "replace":
			replace = true
		case opt == "absttl":
			absTTL = true
		case opt == "idletime" && more >= 1 && freq == -1:
			n, ok := c.Int(j + 1)
			if !ok {
				return
			}
			if n < 0 {
				c.W.Error(ErrRestoreIdle)
				return
			}
			idle = n
			j++
		case opt == "freq" && more >= 1 && idle == -1:
			n, ok := c.Int(j + 1)
			if !ok {
				return
			}
			if n < 0 || n > 255 {
				c.W.Error(ErrRestoreFreq)
				return
			}
			freq = n
			j++
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	key := c.Args[1]
	old, err := c.Txn.GetMeta(key)
	if err != nil {
		c.Fail(err)
		return
	}
	if old != nil && !replace {
		c.W.Error(ErrBusyKey)
		return
	}
	ttl, ok := c.Int(2)
	if !ok {
		return
	}
	if ttl < 0 {
		c.W.Error(ErrRestoreTTL)
		return
	}
	v, err := rdb.ParseDump(c.Args[3], restoreOptions(c, c.Args[3]))
	switch {
	case errors.Is(err, rdb.ErrVersion) || errors.Is(err, rdb.ErrChecksum):
		c.W.Error(ErrDumpPayload)
		return
	case err != nil:
		c.W.Error(ErrBadDataFormat)
		return
	}
	// The expiry, judged as Redis does after the value is decoded: a TTL already past stores
	// nothing (and deletes the key REPLACE named), yet the payload must still be valid.
	expireAt := ttl
	if ttl != 0 && !absTTL {
		now := c.Txn.Now()
		if ttl > math.MaxInt64-now {
			expireAt = -1 // past any clock, as the overflowing sum is in Redis
		} else {
			expireAt = ttl + now
		}
	}
	expired := ttl != 0 && expireAt <= c.Txn.Now()
	at := expireAt
	if expired {
		at = 0
	}
	if ttl != 0 && !absTTL && !expired {
		c.effectArgs(nil, 2, numArg(expireAt)) // propagated with the time made absolute
		c.Effects[0] = append(c.Effects[0], wordABSTTL)
	}
	if err := RestoreValue(c.Txn, key, v, at); err != nil {
		if isRestoreDataError(err) {
			c.W.Error(ErrBadDataFormat)
		} else {
			c.Fail(err)
		}
		return
	}
	if expired {
		if _, err := c.Txn.Delete(key); err != nil {
			c.Fail(err)
			return
		}
		c.Effects = [][][]byte{} // nothing stored: only the deletion of a replaced key propagates
		if old != nil {
			c.Effect(verbDel, key)
		}
		c.W.OK()
		return
	}
	switch lfu := lfuPolicy(c); { // as Redis's objectSetLRUOrLFU
	case lfu && freq >= 0:
		c.Store.SetAccess(c.Client.DB, key, -1, int(freq))
	case !lfu && idle >= 0:
		c.Store.SetAccess(c.Client.DB, key, idle, -1)
	}
	c.Signal(key) // wakes clients blocked on the key
	c.W.OK()
}

// isRestoreDataError reports an error of the payload itself, which RESTORE answers with
// "Bad data format": corrupt or empty values, and kinds Strata does not store (streams,
// modules).
func isRestoreDataError(err error) bool {
	return errors.Is(err, rdb.ErrCorrupt) || errors.Is(err, rdb.ErrEmptyKey) ||
		errors.Is(err, rdb.ErrUnsupported) || errors.Is(err, rdb.ErrTooLarge)
}
