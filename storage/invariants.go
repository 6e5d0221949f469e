package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// maxInvariantErrors bounds how many violations CheckInvariants reports.
const maxInvariantErrors = 20

// CheckInvariants verifies the on-disk layout of s against its own bookkeeping and returns
// every violation found (up to a bound), or nil. It is for tests and offline checks: it waits
// for running transactions to finish and holds new ones off while it takes a snapshot, then
// reads the whole database. The checks:
//
//   - every metadata record decodes, and a collection's Size is non-zero and equals its
//     counted sub-keys (lists: the elements of nodes that cover [Head, Tail) in key order,
//     each keyed by its start but the first, keyed by First; sets: empty values; zsets:
//     member records under 0x00 with 8-byte scores, and exactly one 0x01 index entry
//     (score, member) per member record);
//   - every expiry-index entry matches a key whose Meta.Expire is that time, and every key
//     with an expiry has its entry;
//   - the key and expiry counters, in memory and on disk, equal the counted metadata of every
//     mapped keyspace, and the database map on disk equals the one in memory;
//   - no two keys share an object ID, no object ID is above the reserved high-water mark, and
//     no object held by a live key is queued as garbage;
//   - every value-log pointer of a string decodes, has its live-index record naming its key,
//     and resolves to bytes in the value log with a good checksum; every live-index record of a
//     mapped keyspace is the pointer of the key it names;
//   - every 'd' sub-key belongs to a live key's object, to an object queued as garbage, or to
//     a key of a flushed keyspace queued as garbage, and metadata or index entries of an
//     unmapped keyspace exist only while it is queued. So once the collector has drained the
//     queue, no sub-key exists whose object ID no live metadata holds.
func CheckInvariants(s *Store) error {
	s.global.Lock()
	s.vlog.pin() // no value-log file the snapshot points into is deleted during the check
	defer s.vlog.unpin()
	err := s.Flush()
	var snap *leveldb.Snapshot
	if err == nil {
		snap, err = s.db().GetSnapshot()
	}
	if err != nil {
		s.global.Unlock()
		return err
	}
	dbmap := append([]uint32(nil), s.dbmap...)
	s.counterMu.Lock()
	keyCounts := make(map[uint32]int64, len(s.keys))
	expCounts := make(map[uint32]int64, len(s.expires))
	for p, n := range s.keys {
		keyCounts[p] = n
	}
	for p, n := range s.expires {
		expCounts[p] = n
	}
	s.counterMu.Unlock()
	var cacheErr error
	if s.cache != nil {
		cacheErr = s.cache.check(snap)
	}
	s.global.Unlock()
	defer snap.Release()

	c := &checker{snap: snap, vlog: s.vlog}
	c.run(dbmap, keyCounts, expCounts)
	return errors.Join(append(c.errs, cacheErr)...)
}

type checker struct {
	snap  *leveldb.Snapshot
	vlog  *valueLog
	errs  []error
	vlive map[string]*vliveSeen
}

type vliveSeen struct {
	e    vliveEntry
	seen bool
}

func (c *checker) fail(format string, args ...any) {
	if len(c.errs) == maxInvariantErrors {
		c.errs = append(c.errs, errors.New("invariants: more violations not shown"))
	}
	if len(c.errs) > maxInvariantErrors {
		return
	}
	c.errs = append(c.errs, fmt.Errorf("invariants: "+format, args...))
}

type ownedMeta struct {
	phys   uint32
	key    string
	m      Meta
	mapped bool
	seen   bool // some sub-key of the object was found
}

func (c *checker) run(dbmap []uint32, keyCounts, expCounts map[uint32]int64) {
	snap := c.snap
	mapped := map[uint32]bool{}
	for _, p := range dbmap {
		if mapped[p] {
			c.fail("keyspace %d mapped twice in %v", p, dbmap)
		}
		mapped[p] = true
	}
	if v, err := snap.Get(sysDBMap, nil); err != nil {
		c.fail("database map: %v", err)
	} else {
		var disk []uint32
		for i := 0; i+4 <= len(v); i += 4 {
			disk = append(disk, binary.BigEndian.Uint32(v[i:]))
		}
		if fmt.Sprint(disk) != fmt.Sprint(dbmap) {
			c.fail("database map on disk %v, in memory %v", disk, dbmap)
		}
	}
	var idHigh uint64
	if v, err := snap.Get(sysIDHigh, nil); err == nil && len(v) == 8 {
		idHigh = binary.BigEndian.Uint64(v)
	}

	// The garbage queue.
	queuedIDs := map[uint64]bool{}
	queuedDBs := map[uint32]bool{}
	it := snap.NewIterator(util.BytesPrefix([]byte{tagGarbage}), nil)
	for it.Next() {
		v := it.Value()
		switch {
		case len(v) == 10 && v[0] == metaVersion && v[1] == garbageObject:
			queuedIDs[binary.BigEndian.Uint64(v[2:])] = true
		case len(v) == 10 && v[0] == metaVersion && v[1] == garbageDB:
			p := uint32(binary.BigEndian.Uint64(v[2:]))
			if mapped[p] {
				c.fail("keyspace %d is mapped and queued as garbage", p)
			}
			queuedDBs[p] = true
		default:
			c.fail("garbage record %x has an unknown value %x", it.Key(), v)
		}
	}
	c.iterDone(it)

	// The value log's live index.
	c.vlive = map[string]*vliveSeen{}
	it = snap.NewIterator(util.BytesPrefix(sysVLive), nil)
	for it.Next() {
		e, ok := decodeVLive(it.Key(), it.Value())
		if !ok {
			c.fail("malformed value-log index record %x", it.Key())
			continue
		}
		c.vlive[string(it.Key())] = &vliveSeen{e: e}
	}
	c.iterDone(it)

	// Metadata.
	owners := map[uint64]*ownedMeta{}
	keysSeen := map[uint32]int64{}
	expSeen := map[uint32]int64{}
	it = snap.NewIterator(util.BytesPrefix([]byte{tagMeta}), nil)
	for it.Next() {
		k := it.Key()
		if len(k) < 5 {
			c.fail("short metadata key %x", k)
			continue
		}
		phys := binary.BigEndian.Uint32(k[1:5])
		key := k[5:]
		var m Meta
		if err := decodeMeta(it.Value(), &m); err != nil {
			c.fail("key %q in keyspace %d: %v", key, phys, err)
			continue
		}
		if !mapped[phys] {
			if !queuedDBs[phys] {
				c.fail("key %q in keyspace %d, which is neither mapped nor queued", key, phys)
			}
		} else {
			keysSeen[phys]++
			if m.Expire != 0 {
				expSeen[phys]++
				if _, err := snap.Get(expireKey(nil, m.Expire, phys, key), nil); err != nil {
					c.fail("key %q in keyspace %d expires at %d but has no expiry-index entry (%v)", key, phys, m.Expire, err)
				}
			}
		}
		if m.Type == TypeString {
			c.checkString(phys, key, &m, mapped[phys])
		}
		if !m.Type.IsCollection() {
			continue
		}
		if m.ID == 0 || m.ID >= idHigh {
			c.fail("key %q in keyspace %d has object ID %d outside the reserved range (high %d)", key, phys, m.ID, idHigh)
		}
		if o := owners[m.ID]; o != nil {
			c.fail("object %d is held by key %q (keyspace %d) and key %q (keyspace %d)", m.ID, o.key, o.phys, key, phys)
			continue
		}
		if mapped[phys] && queuedIDs[m.ID] {
			c.fail("object %d of live key %q (keyspace %d) is queued as garbage", m.ID, key, phys)
		}
		if mapped[phys] && m.Size == 0 && m.Type != TypeStream { // a stream may be empty
			c.fail("key %q in keyspace %d is an empty %s", key, phys, m.Type)
		}
		if m.Type == TypeList && mapped[phys] && (m.Tail < m.Head || m.Tail-m.Head != m.Size ||
			m.Last != m.First && (m.Last <= m.Head || m.Last >= m.Tail || m.Last <= m.First) || m.legacy) {
			c.fail("list %q in keyspace %d: head %d, tail %d, last %d, first %d, size %d",
				key, phys, m.Head, m.Tail, m.Last, m.First, m.Size)
		}
		owners[m.ID] = &ownedMeta{phys: phys, key: string(key), m: m, mapped: mapped[phys]}
	}
	c.iterDone(it)

	for _, v := range c.vlive {
		if !v.seen && mapped[v.e.phys] {
			c.fail("value-log index record (file %d, offset %d) names key %q in keyspace %d, which does not point at it",
				v.e.p.file, v.e.p.off, v.e.key, v.e.phys)
		}
	}

	// The expiry index.
	it = snap.NewIterator(util.BytesPrefix([]byte{tagExpire}), nil)
	for it.Next() {
		at, phys, key, ok := decodeExpireKey(it.Key())
		if !ok {
			c.fail("malformed expiry-index key %x", it.Key())
			continue
		}
		if !mapped[phys] {
			if !queuedDBs[phys] {
				c.fail("expiry-index entry for %q in keyspace %d, which is neither mapped nor queued", key, phys)
			}
			continue
		}
		v, err := snap.Get(metaKey(nil, phys, key), nil)
		var m Meta
		if err == nil {
			err = decodeMeta(v, &m)
		}
		if err != nil {
			c.fail("expiry-index entry at %d for %q in keyspace %d: no key (%v)", at, key, phys, err)
		} else if m.Expire != at {
			c.fail("expiry-index entry at %d for %q in keyspace %d, but the key expires at %d", at, key, phys, m.Expire)
		}
	}
	c.iterDone(it)

	// Counters.
	for _, p := range dbmap {
		if keyCounts[p] != keysSeen[p] || expCounts[p] != expSeen[p] {
			c.fail("keyspace %d: counters say %d keys, %d with expiry; counted %d and %d",
				p, keyCounts[p], expCounts[p], keysSeen[p], expSeen[p])
		}
		if disk := c.counter('k', p); disk != keyCounts[p] {
			c.fail("keyspace %d: key counter on disk %d, in memory %d", p, disk, keyCounts[p])
		}
		if disk := c.counter('x', p); disk != expCounts[p] {
			c.fail("keyspace %d: expiry counter on disk %d, in memory %d", p, disk, expCounts[p])
		}
	}
	it = snap.NewIterator(util.BytesPrefix([]byte{tagSystem, 'c'}), nil)
	for it.Next() {
		if k := it.Key(); len(k) != 7 || !mapped[binary.BigEndian.Uint32(k[3:])] {
			c.fail("counter record %x for an unmapped keyspace", k)
		}
	}
	c.iterDone(it)

	// Collection sub-keys, grouped by object ID (the ID leads the key, so groups are contiguous).
	var cur uint64
	var st subStats
	flush := func() {
		if cur != 0 {
			c.checkObject(cur, &st, owners[cur], queuedIDs, queuedDBs)
		}
	}
	it = snap.NewIterator(util.BytesPrefix([]byte{tagData}), nil)
	for it.Next() {
		k := it.Key()
		if len(k) < DataPrefixLen {
			c.fail("short data key %x", k)
			continue
		}
		id := binary.BigEndian.Uint64(k[1:DataPrefixLen])
		if id != cur {
			flush()
			cur, st = id, subStats{}
		}
		st.add(c, id, owners[id], k[DataPrefixLen:], it.Value())
	}
	flush()
	c.iterDone(it)
	for id, o := range owners {
		if o.mapped && !o.seen {
			c.checkObject(id, &subStats{}, o, queuedIDs, queuedDBs)
		}
	}
}

func (c *checker) iterDone(it interface {
	Release()
	Error() error
}) {
	if err := it.Error(); err != nil {
		c.fail("iterator: %v", err)
	}
	it.Release()
}

func (c *checker) counter(kind byte, phys uint32) int64 {
	v, err := c.snap.Get(counterKey(phys), nil)
	if err != nil {
		return 0
	}
	keys, expires := decodeCounters(v)
	if kind == 'x' {
		return expires
	}
	return keys
}

// subStats counts the sub-keys of one object.
type subStats struct {
	n       uint64 // all sub-keys (zsets: member records)
	index   uint64 // zset index entries
	next    uint64 // lists: the start the next node must have, 0 before the first node
	badOnce bool
	nodes   map[StreamID]xnode // streams: the node records, which sort before the chunks
}

func (s *subStats) bad(c *checker, format string, args ...any) {
	if !s.badOnce {
		s.badOnce = true
		c.fail(format, args...)
	}
}

func (s *subStats) add(c *checker, id uint64, o *ownedMeta, sub, val []byte) {
	if o == nil || !o.mapped {
		s.n++
		return
	}
	o.seen = true
	m := &o.m
	if m.Enc == EncPacked && m.Type != TypeString {
		s.addPacked(c, id, o, sub, val)
		return
	}
	switch m.Type {
	case TypeList:
		n, ok := listNodeCount(val)
		if len(sub) != 8 {
			s.bad(c, "list %q (object %d): sub-key %x is not an 8-byte index", o.key, id, sub)
			break
		}
		k := binary.BigEndian.Uint64(sub)
		start := m.nodeStart(k)
		switch {
		case s.next == 0 && k != m.First:
			s.bad(c, "list %q (object %d): first node keyed %d, the head node's key is %d", o.key, id, k, m.First)
		case s.next != 0 && (k == m.First || start != s.next):
			s.bad(c, "list %q (object %d): node keyed %d follows the node ending at %d", o.key, id, k, s.next)
		case start >= m.Tail:
			s.bad(c, "list %q (object %d): node keyed %d outside [%d, %d)", o.key, id, k, m.Head, m.Tail)
		}
		if _, err := decodeListNode(val, nil); err != nil || !ok || n == 0 || start+n > m.Tail {
			s.bad(c, "list %q (object %d): node keyed %d is malformed or runs past %d", o.key, id, k, m.Tail)
		}
		s.n += n
		s.next = start + n
	case TypeHash:
		s.n++
	case TypeStream:
		if len(sub) == 17 && sub[0] == streamEntry {
			s.n++
		} else if len(sub) == 17 && sub[0] == streamNode {
			s.addStreamNode(c, o, id, val)
		} else if len(sub) == 21 && sub[0] == streamChunk {
			s.addStreamChunk(c, o, id, sub, val)
		} else if len(sub) == 0 || sub[0] > streamChunk {
			s.bad(c, "stream %q (object %d): unknown sub-key %x", o.key, id, sub)
		}
	case TypeSet:
		if len(val) != 0 {
			s.bad(c, "set %q (object %d): member %q has a value", o.key, id, sub)
		}
		s.n++
	case TypeZSet:
		switch {
		case len(sub) >= 1 && sub[0] == 0x00:
			if len(val) != 8 {
				s.bad(c, "zset %q (object %d): member %q has a %d-byte score", o.key, id, sub[1:], len(val))
			}
			s.n++
		case len(sub) >= 9 && sub[0] == 0x01:
			member := sub[9:]
			v, err := c.snap.Get(DataKey(nil, id, append([]byte{0x00}, member...)), nil)
			if err != nil || !bytes.Equal(v, sub[1:9]) {
				s.bad(c, "zset %q (object %d): index entry (%g, %q) has no matching member record (%x, %v)",
					o.key, id, DecodeScore(sub[1:9]), member, v, err)
			}
			s.index++
		default:
			s.bad(c, "zset %q (object %d): unknown sub-key %x", o.key, id, sub)
		}
	}
}

// addStreamNode checks a stream node record.
func (s *subStats) addStreamNode(c *checker, o *ownedMeta, id uint64, val []byte) {
	r, err := decodeXNode(val)
	if err != nil {
		s.bad(c, "stream %q (object %d): %v", o.key, id, err)
		return
	}
	if s.nodes == nil {
		s.nodes = make(map[StreamID]xnode)
	}
	s.nodes[r.Master] = r
}

// addStreamChunk checks a chunk of a stream node and counts its entries.
func (s *subStats) addStreamChunk(c *checker, o *ownedMeta, id uint64, sub, val []byte) {
	master := readStreamID(sub[1:])
	r, ok := s.nodes[master]
	if !ok {
		s.bad(c, "stream %q (object %d): chunk %x has no node record", o.key, id, sub)
		return
	}
	val, _, err := packedChunk(&r, val)
	if err != nil {
		s.bad(c, "stream %q (object %d): chunk %x: %v", o.key, id, sub, err)
		return
	}
	var prev StreamID
	var n uint64
	for p := val; len(p) > 0; n++ {
		e, resp, rest, ok := nextPacked(p)
		_, ferr := entryFields(resp, nil)
		if !ok || ferr != nil || e.Cmp(master) < 0 || n > 0 && e.Cmp(prev) <= 0 {
			s.bad(c, "stream %q (object %d): chunk %x is malformed", o.key, id, sub)
			return
		}
		prev, p = e, rest
	}
	if n == 0 {
		s.bad(c, "stream %q (object %d): chunk %x is empty", o.key, id, sub)
	}
	s.n += n
}

// addPacked counts the elements of the record of packed collection o.
func (s *subStats) addPacked(c *checker, id uint64, o *ownedMeta, sub, val []byte) {
	elems, err := decodeListNode(val, nil)
	step := packedStep(o.m.Type)
	if len(sub) != 0 || err != nil || len(elems)%step != 0 {
		s.bad(c, "%s %q (object %d): packed collection has sub-key %x or a malformed record", o.m.Type, o.key, id, sub)
		return
	}
	for i := 0; i < len(elems); i += step {
		if packedFind(elems[:i], step, elems[i]) >= 0 {
			s.bad(c, "%s %q (object %d): packed record holds %q twice", o.m.Type, o.key, id, elems[i])
		}
		if o.m.Type == TypeZSet && len(elems[i+1]) != 8 {
			s.bad(c, "zset %q (object %d): member %q has a %d-byte score", o.key, id, elems[i], len(elems[i+1]))
		}
	}
	n := uint64(len(elems) / step)
	s.n += n
	if o.m.Type == TypeZSet {
		s.index += n
	}
}

// checkObject checks the counted sub-keys of object id against the key holding it, if any.
func (c *checker) checkObject(id uint64, st *subStats, o *ownedMeta, queuedIDs map[uint64]bool, queuedDBs map[uint32]bool) {
	switch {
	case o == nil:
		if !queuedIDs[id] {
			c.fail("object %d: %d sub-keys that no key holds and no garbage record covers", id, st.n)
		}
	case !o.mapped:
		// A key of a flushed keyspace: the collector reclaims it with the keyspace.
		if !queuedDBs[o.phys] {
			c.fail("object %d of key %q in unqueued keyspace %d", id, o.key, o.phys)
		}
	case o.m.Type == TypeList && st.n == o.m.Size && st.n > 0 && st.next != o.m.Tail:
		c.fail("list %q (object %d, keyspace %d): nodes end at %d, tail %d", o.key, id, o.phys, st.next, o.m.Tail)
	case o.m.Type == TypeZSet:
		if st.n != o.m.Size || st.index != o.m.Size {
			c.fail("zset %q (object %d, keyspace %d): size %d, %d member records, %d index entries",
				o.key, id, o.phys, o.m.Size, st.n, st.index)
		}
	default:
		if st.n != o.m.Size {
			c.fail("%s %q (object %d, keyspace %d): size %d, %d sub-keys", o.m.Type, o.key, id, o.phys, o.m.Size, st.n)
		}
	}
}

// checkString checks a string's encoding and, for a value-log pointer, its index record and
// the bytes it points at.
func (c *checker) checkString(phys uint32, key []byte, m *Meta, mapped bool) {
	switch m.Enc {
	case EncInline:
		return
	case EncValueLog:
	default:
		c.fail("key %q in keyspace %d: unknown string encoding %d", key, phys, m.Enc)
		return
	}
	p, err := decodeVPtr(m.Value)
	if err != nil {
		c.fail("key %q in keyspace %d: bad value-log pointer %x", key, phys, m.Value)
		return
	}
	v := c.vlive[string(vliveKey(p.file, p.off))]
	switch {
	case v == nil:
		c.fail("key %q in keyspace %d points at file %d offset %d, which has no value-log index record", key, phys, p.file, p.off)
	case v.seen:
		c.fail("key %q in keyspace %d shares its value-log value (file %d offset %d) with another key", key, phys, p.file, p.off)
	case v.e.phys != phys || !bytes.Equal(v.e.key, key) || v.e.p != p:
		c.fail("key %q in keyspace %d: its value-log index record names key %q in keyspace %d (%+v, pointer %+v)",
			key, phys, v.e.key, v.e.phys, v.e.p, p)
	}
	if v != nil {
		v.seen = true
	}
	if !mapped {
		return
	}
	buf := make([]byte, p.n)
	if err := c.vlog.read(p, buf); err != nil {
		c.fail("key %q in keyspace %d: %v", key, phys, err)
	}
}
