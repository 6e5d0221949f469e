// Package cursor maps the numbers SCAN and its siblings answer to the positions where their
// scans resume.
//
// Keys and collection elements are iterated in byte order, so a scan's position is the last key
// (or member) it examined, and the next call resumes just after it: a key present for the whole
// scan is returned at least once however other clients write, and one that is deleted and
// re-created cannot be skipped either. Positions are arbitrary byte strings, but clients expect
// cursors to be numbers, so a server-side table maps cursor numbers to positions.
//
// A cursor is a 63-bit number (below 2^63, so clients that parse it as a signed 64-bit integer
// cope): the top 32 bits hold the first 4 bytes of the position, zero-padded, and the low 31 bits a
// sequence number that is never 0. Cursor 0 starts a scan and ends one. The table keeps the most
// recently issued cursors (LRU, bounded in entries and bytes). A cursor the table does not know
// (evicted, issued before a restart, or made up) restarts at its 4-byte prefix (trailing zero
// bytes dropped), which is never after the lost position: the guarantee holds, at the price of
// repeating some keys. A made-up small number has an empty prefix and restarts from the
// beginning. An issued number comes back only after 2^31 - 1 further cursors, and then is
// ambiguous only if its 4-byte prefix is the same as well.
package cursor

import (
	"bytes"
	"container/list"
	"encoding/binary"
	"strconv"
	"sync"
)

const (
	cursorSeqBits   = 31
	cursorMaxItems  = 1 << 16
	cursorMaxBytes  = 64 << 20
	cursorPrefixLen = 4
)

// Pos is where a scan resumes: strictly after Key, or at Key itself when Inclusive.
type Pos struct {
	Key       []byte
	Inclusive bool
}

type cursorEntry struct {
	cursor uint64
	pos    []byte
}

// Table maps issued cursor numbers to scan positions. It is safe for concurrent use.
type Table struct {
	mu    sync.Mutex
	seq   uint64
	m     map[uint64]*list.Element
	lru   list.List // front: most recently issued
	bytes int
}

// Issue returns a new cursor number for position pos (the last key examined).
func (t *Table) Issue(pos []byte) uint64 {
	var pre [cursorPrefixLen]byte
	copy(pre[:], pos)
	hi := uint64(binary.BigEndian.Uint32(pre[:])) << cursorSeqBits
	t.mu.Lock()
	defer t.mu.Unlock()
	var cur uint64
	for {
		t.seq = t.seq%(1<<cursorSeqBits-1) + 1 // 1 .. 2^31-1
		cur = hi | t.seq
		if _, busy := t.m[cur]; !busy {
			break
		}
	}
	e := &cursorEntry{cursor: cur, pos: append([]byte(nil), pos...)}
	t.m[cur] = t.lru.PushFront(e)
	t.bytes += len(e.pos) + 64
	for t.lru.Len() > cursorMaxItems || t.bytes > cursorMaxBytes && t.lru.Len() > 1 {
		old := t.lru.Remove(t.lru.Back()).(*cursorEntry)
		delete(t.m, old.cursor)
		t.bytes -= len(old.pos) + 64
	}
	return cur
}

// Lookup returns where the scan with cursor cur resumes.
func (t *Table) Lookup(cur uint64) Pos {
	if cur == 0 {
		return Pos{Inclusive: true}
	}
	t.mu.Lock()
	el, ok := t.m[cur]
	var pos []byte
	if ok {
		pos = el.Value.(*cursorEntry).pos
	}
	t.mu.Unlock()
	if ok {
		return Pos{Key: pos}
	}
	var pre [cursorPrefixLen]byte
	binary.BigEndian.PutUint32(pre[:], uint32(cur>>cursorSeqBits))
	return Pos{Key: bytes.TrimRight(pre[:], "\x00"), Inclusive: true}
}

// Start returns the first key a scan resuming at p may return.
func (p Pos) Start() []byte {
	if p.Inclusive {
		return p.Key
	}
	return append(append([]byte(nil), p.Key...), 0)
}

// Parse parses a cursor as Redis does with strtoul: optional sign, decimal digits, no
// leading space, nothing after; "" is 0 and "-n" wraps around. It reports false on anything
// else or on overflow.
func Parse(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	neg := false
	digits := b
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		digits = b[1:]
	}
	if len(digits) == 0 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// NewTable returns an empty cursor table.
func NewTable() *Table { return &Table{m: map[uint64]*list.Element{}} }
