package storage

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
)

// zsetSpecialScores are the float64 values where an order-preserving encoding is most likely
// to go wrong.
var zsetSpecialScores = []float64{
	math.Inf(-1), -math.MaxFloat64, -1e308, -1e20, -2, -1.5, -1, -math.SmallestNonzeroFloat64 * 3,
	-math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64,
	math.SmallestNonzeroFloat64 * 2, 2.2250738585072014e-308, 2.225073858507201e-308, 1e-300,
	0.1, 0.5, 1, math.Nextafter(1, 2), 1.5, 2, 1e20, 1e308, math.Nextafter(math.MaxFloat64, 0),
	math.MaxFloat64, math.Inf(1),
}

// zcheckScorePair fails t unless EncodeScore orders a and b exactly as float64 comparison does
// (-0 equal to +0) and DecodeScore round-trips both.
func zcheckScorePair(t *testing.T, a, b float64) {
	t.Helper()
	ea, eb := EncodeScore(nil, a), EncodeScore(nil, b)
	if len(ea) != 8 || len(eb) != 8 {
		t.Fatalf("EncodeScore lengths %d, %d", len(ea), len(eb))
	}
	if got, want := bytes.Compare(ea, eb), cmp.Compare(a, b); got != want {
		t.Fatalf("order of %v (%x) and %v (%x): bytes say %d, floats say %d", a, ea, b, eb, got, want)
	}
	for _, f := range []float64{a, b} {
		back := DecodeScore(EncodeScore(nil, f))
		want := f
		if f == 0 {
			want = 0 // -0 is stored as +0
		}
		if math.Float64bits(back) != math.Float64bits(want) {
			t.Fatalf("DecodeScore(EncodeScore(%v)) = %v (bits %x)", f, back, math.Float64bits(back))
		}
	}
}

func TestZSetScoreOrderProperty(t *testing.T) {
	for _, a := range zsetSpecialScores {
		for _, b := range zsetSpecialScores {
			zcheckScorePair(t, a, b)
		}
	}
	// Random bit patterns cover every exponent, subnormals and both signs.
	r := rand.New(rand.NewSource(1))
	randScore := func() float64 {
		for {
			var f float64
			switch r.Intn(4) {
			case 0:
				f = math.Float64frombits(r.Uint64())
			case 1: // subnormal
				f = math.Float64frombits(r.Uint64() & (1<<52 - 1))
				if r.Intn(2) == 0 {
					f = -f
				}
			case 2:
				f = zsetSpecialScores[r.Intn(len(zsetSpecialScores))]
			default:
				f = r.NormFloat64() * math.Pow(10, float64(r.Intn(40)-20))
			}
			if !math.IsNaN(f) {
				return f
			}
		}
	}
	for i := 0; i < 200000; i++ {
		a := randScore()
		b := randScore()
		if r.Intn(8) == 0 {
			b = math.Nextafter(a, randScore()) // neighbours
		}
		zcheckScorePair(t, a, b)
	}
	// Sorting by encoding sorts by value.
	vals := make([]float64, 5000)
	for i := range vals {
		vals[i] = randScore()
	}
	enc := make([][]byte, len(vals))
	for i, v := range vals {
		enc[i] = EncodeScore(nil, v)
	}
	slices.SortFunc(enc, bytes.Compare)
	for i := 1; i < len(enc); i++ {
		if DecodeScore(enc[i-1]) > DecodeScore(enc[i]) {
			t.Fatalf("sorted encodings out of numeric order at %d", i)
		}
	}
}

func FuzzScoreOrder(f *testing.F) {
	for _, a := range zsetSpecialScores {
		f.Add(math.Float64bits(a), math.Float64bits(-a))
	}
	f.Add(uint64(0), uint64(1)<<63)
	f.Add(uint64(1), uint64(1)<<63|1)
	f.Fuzz(func(t *testing.T, ab, bb uint64) {
		a, b := math.Float64frombits(ab), math.Float64frombits(bb)
		if math.IsNaN(a) || math.IsNaN(b) {
			return
		}
		zcheckScorePair(t, a, b)
	})
}

// zmodel is a naive sorted set to check ZSet against.
type zmodel map[string]float64

func (m zmodel) sorted() []ZEntry {
	var out []ZEntry
	for k, v := range m {
		out = append(out, ZEntry{[]byte(k), v})
	}
	slices.SortFunc(out, func(a, b ZEntry) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return bytes.Compare(a.Member, b.Member)
	})
	return out
}

func zentriesString(es []ZEntry) string {
	var b bytes.Buffer
	for _, e := range es {
		fmt.Fprintf(&b, "%q:%v ", e.Member, e.Score)
	}
	return b.String()
}

func zcollect(t *testing.T, walk func(fn func([]byte, float64) bool) error) []ZEntry {
	t.Helper()
	es, err := zcollectEntries(walk)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func zexpect(t *testing.T, what string, got, want []ZEntry) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if zentriesString(got) != zentriesString(want) {
		t.Fatalf("%s:\n got  %s\n want %s", what, zentriesString(got), zentriesString(want))
	}
}

// zmodelWindow applies Redis's LIMIT offset count to es.
func zmodelWindow(es []ZEntry, offset, count int64) []ZEntry {
	if offset < 0 || offset >= int64(len(es)) {
		return nil
	}
	es = es[offset:]
	if count >= 0 && count < int64(len(es)) {
		es = es[:count]
	}
	return es
}

func zreversed(es []ZEntry) []ZEntry {
	out := slices.Clone(es)
	slices.Reverse(out)
	return out
}

// zcheckSet compares every read path of z with the model.
func zcheckSet(t *testing.T, r *rand.Rand, z *ZSet, m zmodel, scores []float64) {
	t.Helper()
	all := m.sorted()
	if z.Len() != int64(len(all)) {
		t.Fatalf("Len = %d, want %d", z.Len(), len(all))
	}
	zexpect(t, "scan", zcollect(t, func(fn func([]byte, float64) bool) error { return z.Scan(false, fn) }), all)
	zexpect(t, "reverse scan", zcollect(t, func(fn func([]byte, float64) bool) error { return z.Scan(true, fn) }), zreversed(all))
	byMember := slices.Clone(all)
	slices.SortFunc(byMember, func(a, b ZEntry) int { return bytes.Compare(a.Member, b.Member) })
	zexpect(t, "members", zcollect(t, z.Members), byMember)
	for i, e := range all {
		s, ok, err := z.Score(e.Member)
		if err != nil || !ok || s != e.Score {
			t.Fatalf("Score(%q) = %v %v %v, want %v", e.Member, s, ok, err, e.Score)
		}
		for _, rev := range []bool{false, true} {
			want := int64(i)
			if rev {
				want = int64(len(all) - 1 - i)
			}
			got, ok, err := z.Rank(e.Member, rev)
			if err != nil || !ok || got != want {
				t.Fatalf("Rank(%q, %v) = %d %v %v, want %d", e.Member, rev, got, ok, err, want)
			}
		}
	}
	if _, ok, _ := z.Rank([]byte("no such member"), false); ok {
		t.Fatal("Rank of a missing member")
	}
	n := int64(len(all))
	for k := 0; k < 30 && n > 0; k++ {
		a, b := r.Int63n(n), r.Int63n(n)
		a, b = min(a, b), max(a, b)
		for _, rev := range []bool{false, true} {
			src := all
			if rev {
				src = zreversed(all)
			}
			got := zcollect(t, func(fn func([]byte, float64) bool) error { return z.RangeByRank(a, b, rev, fn) })
			zexpect(t, fmt.Sprintf("rank %d..%d rev=%v", a, b, rev), got, src[a:b+1])
		}
	}
	pick := func() float64 {
		if r.Intn(3) == 0 && len(all) > 0 {
			return all[r.Intn(len(all))].Score
		}
		return scores[r.Intn(len(scores))]
	}
	for k := 0; k < 40; k++ {
		sr := ScoreRange{Min: pick(), Max: pick(), MinEx: r.Intn(2) == 0, MaxEx: r.Intn(2) == 0}
		var in []ZEntry
		for _, e := range all {
			if (e.Score > sr.Min || !sr.MinEx && e.Score == sr.Min) && (e.Score < sr.Max || !sr.MaxEx && e.Score == sr.Max) {
				in = append(in, e)
			}
		}
		off, cnt := r.Int63n(4)-1, r.Int63n(5)-1
		for _, rev := range []bool{false, true} {
			src := in
			if rev {
				src = zreversed(in)
			}
			got := zcollect(t, func(fn func([]byte, float64) bool) error { return z.RangeByScore(sr, rev, off, cnt, fn) })
			zexpect(t, fmt.Sprintf("score %+v rev=%v limit %d %d", sr, rev, off, cnt), got, zmodelWindow(src, off, cnt))
		}
		if c, err := z.CountByScore(sr); err != nil || c != int64(len(in)) {
			t.Fatalf("CountByScore(%+v) = %d %v, want %d", sr, c, err, len(in))
		}
	}
}

// zmodelLex selects lex range r from es (in walk order) the way Redis's compact encoding does:
// skip entries below the range, fail unless the first one left is in it, skip offset entries,
// then take entries while they stay in range.
func zmodelLex(es []ZEntry, r LexRange, reverse bool, offset, count int64) []ZEntry {
	if r.Empty() || offset < 0 {
		return nil
	}
	if reverse {
		es = zreversed(es)
	}
	near, far := r.GteMin, r.LteMax
	if reverse {
		near, far = r.LteMax, r.GteMin
	}
	i := 0
	for i < len(es) && !near(es[i].Member) {
		i++
	}
	if i == len(es) || !far(es[i].Member) {
		return nil
	}
	i += int(offset)
	var out []ZEntry
	for ; i < len(es) && count != 0 && far(es[i].Member); i++ {
		out = append(out, es[i])
		count--
	}
	return out
}

func zrandLexBound(r *rand.Rand, members []string) LexBound {
	switch r.Intn(8) {
	case 0:
		return LexBound{Inf: -1, Ex: true}
	case 1:
		return LexBound{Inf: 1, Ex: true}
	}
	v := members[r.Intn(len(members))]
	if r.Intn(3) == 0 {
		v += string(rune('a' + r.Intn(3)))
	}
	return LexBound{Value: []byte(v), Ex: r.Intn(2) == 0}
}

func zcheckLex(t *testing.T, r *rand.Rand, z *ZSet, m zmodel, members []string) {
	t.Helper()
	all := m.sorted()
	for k := 0; k < 60; k++ {
		lr := LexRange{Min: zrandLexBound(r, members), Max: zrandLexBound(r, members)}
		off, cnt := r.Int63n(3)-1, r.Int63n(4)-1
		if r.Intn(3) == 0 {
			off, cnt = 0, -1
		}
		for _, rev := range []bool{false, true} {
			got := zcollect(t, func(fn func([]byte, float64) bool) error { return z.RangeByLex(lr, rev, off, cnt, fn) })
			zexpect(t, fmt.Sprintf("lex %+v rev=%v limit %d %d", lr, rev, off, cnt), got, zmodelLex(all, lr, rev, off, cnt))
		}
		want := int64(len(zmodelLex(all, lr, false, 0, -1)))
		if c, err := z.CountByLex(lr); err != nil || c != want {
			t.Fatalf("CountByLex(%+v) = %d %v, want %d", lr, c, err, want)
		}
	}
}

func TestZSetAgainstModel(t *testing.T) {
	s := openTest(t, false)
	r := rand.New(rand.NewSource(7))
	scores := []float64{math.Inf(-1), -1e300, -2, -1, math.Copysign(0, -1), 0, 5e-324, 1, 1.5, 2, 1e300, math.Inf(1)}
	var members []string
	for i := 0; i < 40; i++ {
		members = append(members, fmt.Sprintf("m%02d", i))
	}
	members = append(members, "", "a\x00", "a", "\xff", "m0")
	m := zmodel{}
	key := []byte("z")
	for round := 0; round < 40; round++ {
		tx := s.Begin(0, [][]byte{key}, true)
		z, err := tx.ZSet(key)
		if err != nil {
			t.Fatal(err)
		}
		for op := 0; op < 15; op++ {
			mem := members[r.Intn(len(members))]
			switch r.Intn(5) {
			case 0, 1, 2:
				sc := scores[r.Intn(len(scores))]
				added, err := z.Add([]byte(mem), sc)
				_, had := m[mem]
				if err != nil || added == had {
					t.Fatalf("Add(%q) = %v %v, had %v", mem, added, err, had)
				}
				m[mem] = sc
				if sc == 0 {
					m[mem] = 0
				}
			case 3:
				ok, err := z.Remove([]byte(mem))
				_, had := m[mem]
				if err != nil || ok != had {
					t.Fatalf("Remove(%q) = %v %v, had %v", mem, ok, err, had)
				}
				delete(m, mem)
			case 4:
				if len(m) > 3 && r.Intn(3) == 0 {
					es, err := z.Pop(r.Intn(2) == 0, 2)
					if err != nil || len(es) != 2 {
						t.Fatalf("Pop: %v %v", es, err)
					}
					for _, e := range es {
						delete(m, string(e.Member))
					}
				}
			}
		}
		// Reads within the transaction see its pending writes.
		zcheckSet(t, r, z, m, scores)
		if err := z.Save(); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		tx = s.Begin(0, [][]byte{key}, false)
		z, err = tx.ZSet(key)
		if err != nil {
			t.Fatal(err)
		}
		if z.Exists() != (len(m) > 0) {
			t.Fatalf("Exists = %v with %d members", z.Exists(), len(m))
		}
		zcheckSet(t, r, z, m, scores)
		zcheckLex(t, r, z, m, members)
		tx.Abort()
	}
}

func TestZSetLexSameScore(t *testing.T) {
	s := openTest(t, false)
	r := rand.New(rand.NewSource(3))
	for _, score := range []float64{0, -1.5, 1e308, math.Inf(1)} {
		key := []byte(fmt.Sprint("lex", score))
		m := zmodel{}
		var members []string
		write(t, s, 0, string(key), func(tx *Txn) error {
			z, err := tx.ZSet(key)
			if err != nil {
				return err
			}
			for i := 0; i < 200; i++ {
				mem := fmt.Sprintf("%c%d", 'a'+r.Intn(26), r.Intn(50))
				members = append(members, mem)
				m[mem] = score
				if _, err := z.Add([]byte(mem), score); err != nil {
					return err
				}
			}
			return z.Save()
		})
		tx := s.Begin(0, [][]byte{key}, false)
		z, err := tx.ZSet(key)
		if err != nil {
			t.Fatal(err)
		}
		zcheckLex(t, r, z, m, members)
		// On a same-score set a lex range is exactly the members between the bounds.
		lr := LexRange{Min: LexBound{Value: []byte("c")}, Max: LexBound{Value: []byte("f"), Ex: true}}
		var want []ZEntry
		for _, e := range m.sorted() {
			if string(e.Member) >= "c" && string(e.Member) < "f" {
				want = append(want, e)
			}
		}
		got := zcollect(t, func(fn func([]byte, float64) bool) error { return z.RangeByLex(lr, false, 0, -1, fn) })
		zexpect(t, "lex [c (f", got, want)
		tx.Abort()
	}
}

func TestZSetRemoveRangesAndLifetime(t *testing.T) {
	s := openTest(t, false)
	key := []byte("z")
	fill := func(tx *Txn) *ZSet {
		z, err := tx.ZSet(key)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10; i++ {
			if _, err := z.Add([]byte{'a' + byte(i)}, float64(i)); err != nil {
				t.Fatal(err)
			}
		}
		return z
	}
	write(t, s, 0, "z", func(tx *Txn) error {
		z := fill(tx)
		if err := z.Save(); err != nil {
			return err
		}
		m := *z.m
		m.Expire = tx.Now() + 100000
		return tx.PutMeta(key, &m)
	})
	write(t, s, 0, "z", func(tx *Txn) error {
		z, err := tx.ZSet(key)
		if err != nil {
			return err
		}
		if n, err := z.RemoveRangeByRank(0, 1); err != nil || n != 2 {
			t.Fatalf("RemoveRangeByRank = %d %v", n, err)
		}
		if n, err := z.RemoveRangeByScore(ScoreRange{Min: 7, Max: math.Inf(1), MinEx: true}); err != nil || n != 2 {
			t.Fatalf("RemoveRangeByScore = %d %v", n, err)
		}
		if n, err := z.RemoveRangeByLex(LexRange{Min: LexBound{Value: []byte("d")}, Max: LexBound{Value: []byte("f")}}); err != nil || n != 3 {
			t.Fatalf("RemoveRangeByLex = %d %v", n, err)
		}
		return z.Save()
	})
	tx := s.Begin(0, [][]byte{key}, false)
	z, err := tx.ZSet(key)
	if err != nil {
		t.Fatal(err)
	}
	got := zcollect(t, func(fn func([]byte, float64) bool) error { return z.Scan(false, fn) })
	zexpect(t, "after removals", got, []ZEntry{{[]byte("c"), 2}, {[]byte("g"), 6}, {[]byte("h"), 7}})
	if z.m.Expire == 0 {
		t.Fatal("removals dropped the expiry")
	}
	tx.Abort()

	// Emptying the set deletes the key.
	write(t, s, 0, "z", func(tx *Txn) error {
		z, err := tx.ZSet(key)
		if err != nil {
			return err
		}
		if es, err := z.Pop(true, 10); err != nil || len(es) != 3 || string(es[0].Member) != "h" {
			t.Fatalf("Pop = %v %v", es, err)
		}
		return z.Save()
	})
	tx = s.Begin(0, [][]byte{key}, false)
	if ok, _ := tx.Exists(key); ok {
		t.Fatal("empty sorted set still exists")
	}
	tx.Abort()

	// Another type gives ErrWrongType; ZStore replaces any type and deletes on empty.
	write(t, s, 0, "z", func(tx *Txn) error { return tx.SetString(key, []byte("v"), 0) })
	tx = s.Begin(0, [][]byte{key}, true)
	if _, err := tx.ZSet(key); err != ErrWrongType {
		t.Fatalf("ZSet on a string: %v", err)
	}
	if n, err := tx.ZStore(key, []ZEntry{{[]byte("x"), 1}, {[]byte("y"), math.Copysign(0, -1)}}); err != nil || n != 2 {
		t.Fatalf("ZStore = %d %v", n, err)
	}
	z, err = tx.ZSet(key)
	if err != nil {
		t.Fatal(err)
	}
	got = zcollect(t, func(fn func([]byte, float64) bool) error { return z.Scan(false, fn) })
	zexpect(t, "stored", got, []ZEntry{{[]byte("y"), 0}, {[]byte("x"), 1}})
	if n, err := tx.ZStore(key, nil); err != nil || n != 0 {
		t.Fatalf("ZStore(nil) = %d %v", n, err)
	}
	if ok, _ := tx.Exists(key); ok {
		t.Fatal("ZStore of nothing left the key")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
