package commands

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strata-db/strata/internal/hll"
	"github.com/strata-db/strata/storage"
)

// Error replies of the HyperLogLog family, byte for byte as Redis 7.0 sends them.
const (
	ErrNotHLL         = "WRONGTYPE Key is not a valid HyperLogLog string value."
	ErrHLLCorrupt     = "INVALIDOBJ Corrupted HLL object detected"
	ErrHLLNoKey       = "ERR The specified key does not exist"
	ErrHLLNotSparse   = "ERR HLL encoding is not sparse"
	ErrPFDebugUnknown = "ERR Unknown PFDEBUG subcommand '%s'"
)

func init() {
	register(
		&Command{Name: "pfadd", Arity: -2, Flags: FlagWrite | FlagDenyOOM | FlagFast, FirstKey: 1, LastKey: 1, Step: 1, Handler: cmdPFAdd},
		&Command{Name: "pfcount", Arity: -2, Flags: FlagReadonly, FirstKey: 1, LastKey: -1, Step: 1, Handler: cmdPFCount},
		&Command{Name: "pfmerge", Arity: -2, Flags: FlagWrite | FlagDenyOOM, FirstKey: 1, LastKey: -1, Step: 1, Handler: cmdPFMerge},
		&Command{Name: "pfdebug", Arity: 3, Flags: FlagWrite | FlagDenyOOM | FlagAdmin, FirstKey: 2, LastKey: 2, Step: 1, Handler: cmdPFDebug},
		&Command{Name: "pfselftest", Arity: 1, Flags: FlagAdmin, Handler: cmdPFSelfTest},
	)
}

// hllSparseMax returns hll-sparse-max-bytes: the size past which a sparse HyperLogLog turns
// dense.
func hllSparseMax(c *Ctx) int {
	if c.Env != nil {
		if s, ok := c.Env.Config().Get("hll-sparse-max-bytes"); ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
				return int(min(n, 1<<30))
			}
		}
	}
	return hll.DefaultSparseMaxBytes
}

// loadHLL reads the HyperLogLog at key: its metadata and value (nil, nil for a missing key).
// It replies WRONGTYPE for another type or a string that is not an HLL, and returns false.
func loadHLL(c *Ctx, key []byte) (*storage.Meta, []byte, bool) {
	m, ok := stringMeta(c, key)
	if !ok || m == nil {
		return nil, nil, ok
	}
	v, err := c.Txn.StringValue(m)
	if err != nil {
		c.Fail(err)
		return nil, nil, false
	}
	if !hll.Valid(v) {
		c.W.Error(ErrNotHLL)
		return nil, nil, false
	}
	return m, v, true
}

// saveHLL writes v to key, keeping the expiry the key had (m nil for a new key).
func saveHLL(c *Ctx, key []byte, m *storage.Meta, v []byte) bool {
	var at int64
	if m != nil {
		at = m.Expire
	}
	if err := c.Txn.SetString(key, v, at); err != nil {
		c.Fail(err)
		return false
	}
	return true
}

func cmdPFAdd(c *Ctx) {
	key := c.Args[1]
	m, cur, ok := loadHLL(c, key)
	if !ok {
		return
	}
	updated := false
	var v []byte
	if cur == nil {
		v, updated = hll.New(), true
	} else {
		v = append([]byte(nil), cur...)
	}
	limit := hllSparseMax(c)
	for _, e := range c.Args[2:] {
		var changed bool
		var err error
		if v, changed, err = hll.Add(v, e, limit); err != nil {
			c.W.Error(ErrHLLCorrupt)
			return
		}
		updated = updated || changed
	}
	if !updated {
		c.W.Int(0)
		return
	}
	hll.Invalidate(v) // a new key included
	if !saveHLL(c, key, m, v) {
		return
	}
	c.W.Int(1)
}

// cmdPFCount answers the cardinality of one HyperLogLog, from its cache when valid, else
// counted and cached in the stored value (a write, as in Redis, though the command is
// read-only: two concurrent PFCOUNTs under the shared key lock store the same bytes); or of
// the union of several, merged in memory and not cached.
func cmdPFCount(c *Ctx) {
	if len(c.Args) > 2 {
		var regs [hll.Registers]uint8
		for _, k := range c.Args[1:] {
			_, v, ok := loadHLL(c, k)
			if !ok {
				return
			}
			if v != nil && hll.Merge(&regs, v) != nil {
				c.W.Error(ErrHLLCorrupt)
				return
			}
		}
		c.W.Int(int64(hll.CountRegisters(&regs)))
		return
	}
	key := c.Args[1]
	m, v, ok := loadHLL(c, key)
	if !ok {
		return
	}
	if v == nil {
		c.W.Int(0)
		return
	}
	card, valid := hll.Cached(v)
	if !valid {
		var err error
		if card, err = hll.Count(v); err != nil {
			c.W.Error(ErrHLLCorrupt)
			return
		}
		v = append([]byte(nil), v...)
		hll.SetCached(v, card)
		if !saveHLL(c, key, m, v) {
			return
		}
	}
	c.W.Int(int64(card))
}

// cmdPFMerge stores the union of the sources and the destination in the destination, which
// turns dense when any input is dense and otherwise stays sparse until it outgrows the limit.
func cmdPFMerge(c *Ctx) {
	var regs [hll.Registers]uint8
	useDense := false
	for _, k := range c.Args[1:] {
		_, v, ok := loadHLL(c, k)
		if !ok {
			return
		}
		if v == nil {
			continue
		}
		useDense = useDense || hll.Encoding(v) == hll.Dense
		if hll.Merge(&regs, v) != nil {
			c.W.Error(ErrHLLCorrupt)
			return
		}
	}
	dst := c.Args[1]
	m, cur, ok := loadHLL(c, dst)
	if !ok {
		return
	}
	v := hll.New()
	if cur != nil {
		v = append([]byte(nil), cur...)
	}
	var err error
	if useDense {
		if v, err = hll.ToDense(v); err != nil {
			c.W.Error(ErrHLLCorrupt)
			return
		}
	}
	limit := hllSparseMax(c)
	for i, r := range regs {
		if r == 0 {
			continue
		}
		// A corrupt destination was refused while merging it, so Set cannot fail here.
		if next, _, err := hll.Set(v, i, r, limit); err == nil {
			v = next
		}
	}
	hll.Invalidate(v)
	if !saveHLL(c, dst, m, v) {
		return
	}
	c.W.OK()
}

func cmdPFDebug(c *Ctx) {
	sub := c.Arg(1)
	key := c.Args[2]
	m, v, ok := loadHLL(c, key)
	if !ok {
		return
	}
	if v == nil {
		c.W.Error(ErrHLLNoKey)
		return
	}
	switch strings.ToLower(sub) {
	case "getreg":
		if hll.Encoding(v) == hll.Sparse {
			d, err := hll.ToDense(v)
			if err != nil {
				c.W.Error(ErrHLLCorrupt)
				return
			}
			if !saveHLL(c, key, m, d) {
				return
			}
			v = d
		}
		c.W.Array(hll.Registers)
		for i := range hll.Registers {
			c.W.Int(int64(hll.GetRegister(v, i)))
		}
	case "decode":
		if hll.Encoding(v) != hll.Sparse {
			c.W.Error(ErrHLLNotSparse)
			return
		}
		c.W.BulkString(hll.Decode(v))
	case "encoding":
		if hll.Encoding(v) == hll.Dense {
			c.W.Status("dense")
		} else {
			c.W.Status("sparse")
		}
	case "todense":
		if hll.Encoding(v) != hll.Sparse {
			c.W.Int(0)
			return
		}
		d, err := hll.ToDense(v)
		if err != nil {
			c.W.Error(ErrHLLCorrupt)
			return
		}
		if !saveHLL(c, key, m, d) {
			return
		}
		c.W.Int(1)
	default:
		c.W.Error(fmt.Sprintf(ErrPFDebugUnknown, sub))
	}
}

func cmdPFSelfTest(c *Ctx) {
	if msg := hll.SelfTest(hllSparseMax(c)); msg != "" {
		c.W.Error(msg)
		return
	}
	c.W.OK()
}
