package commands

import (
	"fmt"
	"math"
	"strings"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/storage"
)

// XCLAIM and XAUTOCLAIM: pending entries change owner. Each claim propagates as the XCLAIM
// that sets the entry's state on a replica; an entry deleted from the stream leaves the pending
// list (and propagates the same way, which deletes it there too).

// claimer is a claim in progress: the group, and the claiming consumer once looked up.
type claimer struct {
	c    *Ctx
	key  []byte
	m    *storage.Meta
	g    *storage.StreamGroup
	name []byte
	cons *storage.StreamConsumer
}

// consumer returns the claiming consumer, creating it on first use.
func (cl *claimer) consumer() (*storage.StreamConsumer, error) {
	if cl.cons == nil {
		cons, err := groupConsumer(cl.c, cl.m, cl.g, cl.key, cl.name, false)
		if err != nil {
			return nil, err
		}
		cl.cons = cons
	}
	return cl.cons, nil
}

// dropDeleted removes pe, whose entry is gone from the stream, from the pending list.
func (cl *claimer) dropDeleted(pe *storage.PendingEntry) error {
	cl.c.Effect(xclaimEffect(cl.key, cl.g.Name, pe.Consumer, pe, cl.g.LastID)...)
	return cl.c.Txn.DeletePending(cl.m, cl.g, pe)
}

// claim gives pe (prev: its state before, nil when FORCE creates it) to the claiming
// consumer and writes it (its ID alone with justID).
func (cl *claimer) claim(pe, prev *storage.PendingEntry, justID bool) error {
	cons, err := cl.consumer()
	if err != nil {
		return err
	}
	if err := cl.c.Txn.PutPending(cl.m, cl.g, cons.Name, pe, prev); err != nil {
		return err
	}
	if justID {
		cl.c.W.Bulk(pe.ID.Append(nil))
	} else {
		fv, _, err := cl.c.Txn.StreamGet(cl.m, pe.ID)
		if err != nil {
			return err
		}
		writeEntry(cl.c, pe.ID, fv)
	}
	cl.c.Effect(xclaimEffect(cl.key, cl.g.Name, cons.Name, pe, cl.g.LastID)...)
	return nil
}

// finish stores the group's new state.
func (cl *claimer) finish() { cl.c.Txn.PutStreamGroup(cl.m, cl.g) }

// newClaimer looks up key's group for XCLAIM and XAUTOCLAIM, answering NOGROUP.
func newClaimer(c *Ctx) (*claimer, bool) {
	m, g, ok := groupOf(c, c.Args[1], c.Args[2])
	if !ok {
		return nil, false
	}
	if g == nil {
		c.W.Error(fmt.Sprintf("NOGROUP No such key '%s' or consumer group '%s'", c.Args[1], c.Args[2]))
		return nil, false
	}
	c.Effects = [][][]byte{}
	return &claimer{c: c, key: c.Args[1], m: m, g: g, name: c.Args[3]}, true
}

// withBody writes an array of the elements body writes, counted by its return.
func withBody(c *Ctx, body func() (int, error)) error {
	at := c.W.Len()
	n, err := body()
	if err != nil {
		c.W.Truncate(at)
		return err
	}
	b := append([]byte(nil), c.W.Bytes()[at:]...)
	c.W.Truncate(at)
	c.W.Array(n)
	c.W.Raw(b)
	return nil
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms] [RETRYCOUNT n]
// [FORCE] [JUSTID] [LASTID id]
func cmdXClaim(c *Ctx) {
	cl, ok := newClaimer(c)
	if !ok {
		return
	}
	minIdle, err := num.ParseInt(c.Args[4])
	if err != nil {
		c.W.Error("ERR Invalid min-idle-time argument for XCLAIM")
		return
	}
	minIdle = max(minIdle, 0)
	var ids []storage.StreamID
	j := 5
	for ; j < len(c.Args); j++ {
		id, ok := parseStreamID(c.Args[j], 0, true, nil)
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	now := c.Txn.Now()
	var lastID storage.StreamID
	retry, delivery := int64(-1), int64(-1)
	force, justID := false, false
	for ; j < len(c.Args); j++ {
		more := len(c.Args) - 1 - j
		opt := c.Arg(j)
		intOpt := func(name string) (int64, bool) {
			j++
			v, err := num.ParseInt(c.Args[j])
			if err != nil {
				c.W.Error("ERR Invalid " + name + " option argument for XCLAIM")
				return 0, false
			}
			return v, true
		}
		switch {
		case strings.EqualFold(opt, "force"):
			force = true
		case strings.EqualFold(opt, "justid"):
			justID = true
		case strings.EqualFold(opt, "idle") && more > 0:
			v, ok := intOpt("IDLE")
			if !ok {
				return
			}
			delivery = now - v
		case strings.EqualFold(opt, "time") && more > 0:
			if delivery, ok = intOpt("TIME"); !ok {
				return
			}
		case strings.EqualFold(opt, "retrycount") && more > 0:
			if retry, ok = intOpt("RETRYCOUNT"); !ok {
				return
			}
		case strings.EqualFold(opt, "lastid") && more > 0:
			j++
			if lastID, ok = streamIDArg(c, j, 0, true); !ok {
				return
			}
		default:
			c.W.Error(fmt.Sprintf("ERR Unrecognized XCLAIM option '%s'", opt))
			return
		}
	}
	g := cl.g
	setID := false
	if lastID.Cmp(g.LastID) > 0 {
		g.LastID, setID = lastID, true
	}
	if delivery < 0 || delivery > now {
		delivery = now
	}
	err = withBody(c, func() (int, error) {
		n := 0
		for _, id := range ids {
			prev, err := c.Txn.PendingOf(cl.m, g, id)
			if err != nil {
				return 0, err
			}
			_, exists, err := c.Txn.StreamGet(cl.m, id)
			if err != nil {
				return 0, err
			}
			if !exists {
				if prev != nil {
					setID = false
					if err := cl.dropDeleted(prev); err != nil {
						return 0, err
					}
				}
				continue
			}
			if prev == nil && !force {
				continue
			}
			if prev != nil && minIdle > 0 && now-prev.DeliveryTime < minIdle {
				continue
			}
			pe := &storage.PendingEntry{ID: id, DeliveryCount: 1}
			if prev != nil {
				*pe = *prev
			}
			pe.DeliveryTime = delivery
			switch {
			case retry >= 0:
				pe.DeliveryCount = uint64(retry)
			case !justID:
				pe.DeliveryCount++
			}
			if err := cl.claim(pe, prev, justID); err != nil {
				return 0, err
			}
			setID = false
			n++
		}
		return n, nil
	})
	if err != nil {
		c.Fail(err)
		return
	}
	if setID {
		c.Effect(setIDEffect(cl.key, g)...)
	}
	cl.finish()
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
func cmdXAutoClaim(c *Ctx) {
	minIdle, err := num.ParseInt(c.Args[4])
	if err != nil {
		c.W.Error("ERR Invalid min-idle-time argument for XAUTOCLAIM")
		return
	}
	minIdle = max(minIdle, 0)
	start, ok := rangeStart(c, 5)
	if !ok {
		return
	}
	count, justID := int64(100), false
	for j := 6; j < len(c.Args); j++ {
		switch {
		case strings.EqualFold(c.Arg(j), "count") && j+1 < len(c.Args):
			v, err := num.ParseInt(c.Args[j+1])
			if err != nil || v < 1 || v > math.MaxInt64/16 {
				c.W.Error("ERR COUNT must be > 0")
				return
			}
			count = v
			j++
		case strings.EqualFold(c.Arg(j), "justid"):
			justID = true
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	cl, ok := newClaimer(c)
	if !ok {
		return
	}
	now := c.Txn.Now()
	attempts := count * 10
	var next storage.StreamID
	var deleted []storage.StreamID
	top := c.W.Len()
	c.W.Array(3)
	at := c.W.Len()
	var claimed int
	var failed error
	err = c.Txn.PendingRange(cl.m, cl.g, nil, start, storage.MaxStreamID, 0, func(pe *storage.PendingEntry) bool {
		if attempts == 0 || count == 0 {
			next = pe.ID
			return false
		}
		attempts--
		_, exists, err := c.Txn.StreamGet(cl.m, pe.ID)
		if err == nil && !exists {
			err = cl.dropDeleted(pe)
			deleted = append(deleted, pe.ID)
			count--
		}
		if err != nil {
			failed = err
			return false
		}
		if !exists || minIdle > 0 && now-pe.DeliveryTime < minIdle {
			return true
		}
		prev := *pe
		pe.DeliveryTime = now
		if !justID {
			pe.DeliveryCount++
		}
		if failed = cl.claim(pe, &prev, justID); failed != nil {
			return false
		}
		claimed++
		count--
		return true
	})
	if err == nil {
		err = failed
	}
	if err != nil {
		c.W.Truncate(top)
		c.Fail(err)
		return
	}
	body := append([]byte(nil), c.W.Bytes()[at:]...)
	c.W.Truncate(at)
	c.W.Bulk(next.Append(nil))
	c.W.Array(claimed)
	c.W.Raw(body)
	c.W.Array(len(deleted))
	for _, id := range deleted {
		c.W.Bulk(id.Append(nil))
	}
	cl.finish()
}
