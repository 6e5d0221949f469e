package commands

import (
	"bytes"

	"github.com/strata-db/strata/storage"
)

func init() {
	register(
		&Command{Name: "lcs", Arity: -3, Flags: FlagReadonly, FirstKey: 1, LastKey: 2, Step: 1, Handler: cmdLCS},
	)
}

// lcsMatch is one common run that LCS ... IDX reports: its byte ranges in each string.
type lcsMatch struct{ aStart, aEnd, bStart, bEnd int }

// lcsValue reads a key for LCS: a missing key is the empty string.
func lcsValue(c *Ctx, key []byte) ([]byte, bool) {
	m, err := c.Txn.GetMeta(key)
	switch {
	case err != nil:
		c.Fail(err)
		return nil, false
	case m == nil:
		return nil, true
	case m.Type != storage.TypeString:
		c.W.Error("ERR The specified keys must contain string values")
		return nil, false
	}
	v, err := c.Txn.StringValue(m)
	if err != nil {
		c.Fail(err)
		return nil, false
	}
	return v, true
}

// cmdLCS implements LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN]: the longest
// common subsequence of two strings by the classic dynamic-programming table, whose size is
// held to proto-max-bulk-len as Redis holds it.
func cmdLCS(c *Ctx) {
	a, ok := lcsValue(c, c.Args[1])
	if !ok {
		return
	}
	b, ok := lcsValue(c, c.Args[2])
	if !ok {
		return
	}
	var getLen, getIdx, withLen bool
	var minLen int64
	for j := 3; j < len(c.Args); j++ {
		switch opt := c.Args[j]; {
		case bytes.EqualFold(opt, []byte("idx")):
			getIdx = true
		case bytes.EqualFold(opt, []byte("len")):
			getLen = true
		case bytes.EqualFold(opt, []byte("withmatchlen")):
			withLen = true
		case bytes.EqualFold(opt, []byte("minmatchlen")) && j+1 < len(c.Args):
			j++
			n, ok := c.Int(j)
			if !ok {
				return
			}
			minLen = max(n, 0)
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if getLen && getIdx {
		c.W.Error("ERR If you want both the length and indexes, please just use IDX.")
		return
	}
	cells := uint64(len(a)+1) * uint64(len(b)+1)
	if cells*4 > uint64(c.Env.Config().ProtoMaxBulkLen) {
		c.W.Error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
		return
	}
	w := len(b) + 1
	table := make([]uint32, cells)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				table[i*w+j] = table[(i-1)*w+j-1] + 1
			} else {
				table[i*w+j] = max(table[(i-1)*w+j], table[i*w+j-1])
			}
		}
	}
	total := int(table[len(a)*w+len(b)])
	if getLen {
		c.W.Int(int64(total))
		return
	}
	// Walk the table back from the end, collecting the subsequence and its contiguous runs.
	result := make([]byte, total)
	var matches []lcsMatch
	idx := total
	cur, open := lcsMatch{}, false
	for i, j := len(a), len(b); i > 0 && j > 0; {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			switch {
			case !open:
				cur, open = lcsMatch{i - 1, i - 1, j - 1, j - 1}, true
			case cur.aStart == i && cur.bStart == j:
				cur.aStart--
				cur.bStart--
			default:
				emit = true
			}
			if cur.aStart == 0 || cur.bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if table[(i-1)*w+j] > table[i*w+j-1] {
				i--
			} else {
				j--
			}
			emit = open
		}
		if emit {
			if minLen == 0 || int64(cur.aEnd-cur.aStart+1) >= minLen {
				matches = append(matches, cur)
			}
			open = false
		}
	}
	if !getIdx {
		c.W.Bulk(result)
		return
	}
	c.W.Map(2)
	c.W.BulkString("matches")
	c.W.Array(len(matches))
	for _, m := range matches {
		if withLen {
			c.W.Array(3)
		} else {
			c.W.Array(2)
		}
		c.W.Array(2)
		c.W.Int(int64(m.aStart))
		c.W.Int(int64(m.aEnd))
		c.W.Array(2)
		c.W.Int(int64(m.bStart))
		c.W.Int(int64(m.bEnd))
		if withLen {
			c.W.Int(int64(m.aEnd - m.aStart + 1))
		}
	}
	c.W.BulkString("len")
	c.W.Int(int64(total))
}
