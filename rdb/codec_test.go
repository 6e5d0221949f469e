package rdb

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestChecksum(t *testing.T) {
	if got := Checksum([]byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("Checksum = %016x", got)
	}
	if crcUpdate(Checksum([]byte("1234")), []byte("56789")) != Checksum([]byte("123456789")) {
		t.Fatal("crcUpdate does not continue a checksum")
	}
}

type encodingCase struct {
	name string
	t    byte
	body []byte
	kind Kind
	want []string
}

// encodingCases holds one hand-built value of every encoding.
func encodingCases() []encodingCase {
	ql2 := cat(rdbLen(2), rdbLen(containerPlain), rdbStr("plain"), rdbLen(containerPacked), rdbStr(string(lpBuild("a", 7, -3000))))
	// LZF: a literal run "abc", then 7 bytes copied from 3 back (overlapping).
	lzf := cat([]byte{0xc3}, rdbLen(6), rdbLen(10), []byte{2, 'a', 'b', 'c', 5<<5 | 0, 2})
	return []encodingCase{
		{"raw string", TypeString, rdbStr("hello"), KindString, []string{"hello"}},
		{"int8", TypeString, []byte{0xc0, 0xfb}, KindString, []string{"-5"}},
		{"int16", TypeString, cat([]byte{0xc1}, u16(0x8000)), KindString, []string{"-32768"}},
		{"int32", TypeString, cat([]byte{0xc2}, u32(2147483647)), KindString, []string{"2147483647"}},
		{"lzf", TypeString, lzf, KindString, []string{"abcabcabca"}},
		{"trailing bytes ignored", TypeString, cat(rdbStr("a"), []byte{0}), KindString, []string{"a"}},
		{"linked list", TypeList, cat(rdbLen(3), rdbStr("x"), rdbStr("y"), []byte{0xc0, 9}), KindList, []string{"x", "y", "9"}},
		{"ziplist list", TypeListZiplist, rdbStr(string(zlBuild("a", 5, 200, -30000, 1<<20, 1<<31, 1<<40, strings.Repeat("s", 300), "after a 5-byte previous-length", strings.Repeat("t", 20000)))), KindList,
			[]string{"a", "5", "200", "-30000", "1048576", "2147483648", "1099511627776", strings.Repeat("s", 300), "after a 5-byte previous-length", strings.Repeat("t", 20000)}},
		{"quicklist", TypeListQuicklist, cat(rdbLen(3), rdbStr(string(zlBuild("a", "b"))), rdbStr(string(zlBuild())), rdbStr(string(zlBuild(12)))), KindList, []string{"a", "b", "12"}},
		{"quicklist2", TypeListQuicklist2, ql2, KindList, []string{"plain", "a", "7", "-3000"}},
		{"set table", TypeSet, cat(rdbLen(2), rdbStr("m1"), rdbStr("m2")), KindSet, []string{"m1", "m2"}},
		{"intset16", TypeSetIntset, rdbStr(string(intsetBuild(2, -2, 7))), KindSet, []string{"-2", "7"}},
		{"intset32", TypeSetIntset, rdbStr(string(intsetBuild(4, 1, 100000))), KindSet, []string{"1", "100000"}},
		{"intset64", TypeSetIntset, rdbStr(string(intsetBuild(8, math.MinInt64, 1<<40))), KindSet, []string{"-9223372036854775808", "1099511627776"}},
		{"set listpack", TypeSetListpack, rdbStr(string(lpBuild("p", 1<<40, "q"))), KindSet, []string{"1099511627776", "p", "q"}},
		{"zset string scores", TypeZSet, cat(rdbLen(4), rdbStr("a"), []byte{3}, []byte("1.5"), rdbStr("b"), []byte{254}, rdbStr("c"), []byte{255}, rdbStr("d"), []byte{4}, []byte("-2e3")), KindZSet,
			[]string{"a=1.5", "b=+Inf", "c=-Inf", "d=-2000"}},
		{"zset2", TypeZSet2, cat(rdbLen(2), rdbStr("a"), u64(math.Float64bits(2.25)), rdbStr("b"), u64(math.Float64bits(math.Inf(-1)))), KindZSet, []string{"a=2.25", "b=-Inf"}},
		{"zset ziplist", TypeZSetZiplist, rdbStr(string(zlBuild("a", 1, "b", "2.5"))), KindZSet, []string{"a=1", "b=2.5"}},
		{"zset listpack", TypeZSetListpack, rdbStr(string(lpBuild("a", -7, "b", "inf"))), KindZSet, []string{"a=-7", "b=+Inf"}},
		{"hash table", TypeHash, cat(rdbLen(2), rdbStr("f"), rdbStr("v"), rdbStr("g"), []byte{0xc0, 1}), KindHash, []string{"f=v", "g=1"}},
		{"zipmap", TypeHashZipmap, rdbStr(string(zipmapBuild("f", "v", "long", strings.Repeat("z", 300)))), KindHash, []string{"f=v", "long=" + strings.Repeat("z", 300)}},
		{"hash ziplist", TypeHashZiplist, rdbStr(string(zlBuild("f", 3, "g", "w"))), KindHash, []string{"f=3", "g=w"}},
		{"hash listpack", TypeHashListpack, rdbStr(string(lpBuild("f", "v", "n", 1000, "m", strings.Repeat("m", 100), "l", strings.Repeat("l", 5000), "i", 1<<40, "j", -100000))), KindHash,
			[]string{"f=v", "i=1099511627776", "j=-100000", "l=" + strings.Repeat("l", 5000), "m=" + strings.Repeat("m", 100), "n=1000"}},
		{"hash listpack-ex", TypeHashListpackEx, cat(u64(1700000000000), rdbStr(string(lpBuild("f", "v", 0, "g", "w", 1700000000123)))), KindHash, []string{"f=v", "g=w@1700000000123"}},
		{"hash listpack-ex pre-GA", TypeHashListpackExPreGA, rdbStr(string(lpBuild("f", "v", 1800000000000))), KindHash, []string{"f=v@1800000000000"}},
		{"hash metadata", TypeHashMetadata, cat(u64(1700000000000), rdbLen(2), rdbLen(0), rdbStr("f"), rdbStr("v"), rdbLen(6), rdbStr("g"), rdbStr("w")), KindHash, []string{"f=v", "g=w@1700000000005"}},
		{"hash metadata pre-GA", TypeHashMetadataPreGA, cat(rdbLen(1), rdbLen(1700000000000), rdbStr("f"), rdbStr("v")), KindHash, []string{"f=v@1700000000000"}},
	}
}

// TestEncodings decodes one hand-built payload of every encoding.
func TestEncodings(t *testing.T) {
	for _, c := range encodingCases() {
		t.Run(c.name, func(t *testing.T) {
			kind, got := mustCanon(t, payload(c.t, c.body, 12))
			if kind != c.kind || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v %q, want %v %q", kind, got, c.kind, c.want)
			}
		})
	}
}

type refusedCase struct {
	name string
	t    byte
	body []byte
	want error
}

// refusedCases holds malformed and unsupported values.
func refusedCases() []refusedCase {
	zl := zlBuild("a", "b")
	lp := lpBuild("a", "b")
	flip := func(b []byte, i int, v byte) []byte { b = bytes.Clone(b); b[i] = v; return b }
	return []refusedCase{
		{"module", TypeModule2, cat(rdbLen(moduleID("mymodule1", 1)), rdbLen(moduleOpEOF)), ErrUnsupported},
		{"unknown type", 42, nil, ErrCorrupt},
		{"huge list", TypeList, cat(rdbLen(1<<40), rdbStr("x")), ErrCorrupt},
		{"huge string", TypeString, rdbLen(1 << 40), ErrTooLarge},
		{"string past end", TypeString, rdbLen(100), ErrCorrupt},
		{"empty list", TypeList, rdbLen(0), ErrEmptyKey},
		{"empty listpack", TypeHashListpack, rdbStr(string(lpBuild())), ErrEmptyKey},
		{"nan score", TypeZSet, cat(rdbLen(1), rdbStr("a"), []byte{253}), ErrCorrupt},
		{"nan zset2", TypeZSet2, cat(rdbLen(1), rdbStr("a"), u64(math.Float64bits(math.NaN()))), ErrCorrupt},
		{"bad score text", TypeZSetListpack, rdbStr(string(lpBuild("a", "x1"))), ErrCorrupt},
		{"odd hash listpack", TypeHashListpack, rdbStr(string(lpBuild("a", "b", "c"))), ErrCorrupt},
		{"dup hash field", TypeHashListpack, rdbStr(string(lpBuild("a", "b", "a", "c"))), ErrCorrupt},
		{"dup set member", TypeSetListpack, rdbStr(string(lpBuild("a", "a"))), ErrCorrupt},
		{"listpack count", TypeHashListpack, rdbStr(string(flip(lp, 4, 3))), ErrCorrupt},
		{"listpack size", TypeHashListpack, rdbStr(string(flip(lp, 0, 99))), ErrCorrupt},
		{"listpack backlen", TypeHashListpack, rdbStr(string(flip(lp, 8, 9))), ErrCorrupt},
		{"listpack terminator", TypeHashListpack, rdbStr(string(flip(lp, len(lp)-1, 0))), ErrCorrupt},
		{"listpack bad encoding", TypeHashListpack, rdbStr(string(flip(lp, 6, 0xf7))), ErrCorrupt},
		{"listpack string overrun", TypeHashListpack, rdbStr(string(flip(lp, 6, 0xbf))), ErrCorrupt},
		{"ziplist prevlen", TypeListZiplist, rdbStr(string(flip(zl, 13, 9))), ErrCorrupt},
		{"ziplist tail", TypeListZiplist, rdbStr(string(flip(zl, 4, 10))), ErrCorrupt},
		{"ziplist count", TypeListZiplist, rdbStr(string(flip(zl, 8, 5))), ErrCorrupt},
		{"ziplist encoding", TypeListZiplist, rdbStr(string(flip(zl, 11, 0xc5))), ErrCorrupt},
		{"intset order", TypeSetIntset, rdbStr(string(intsetBuild(2, 5, 5))), ErrCorrupt},
		{"intset width", TypeSetIntset, rdbStr(string(intsetBuild(3, 5))), ErrCorrupt},
		{"intset size", TypeSetIntset, rdbStr(string(intsetBuild(2, 5))[:9]), ErrCorrupt},
		{"zipmap count", TypeHashZipmap, rdbStr(string(flip(zipmapBuild("a", "b"), 0, 3))), ErrCorrupt},
		{"zipmap overrun", TypeHashZipmap, rdbStr(string(flip(zipmapBuild("a", "b"), 1, 200))), ErrCorrupt},
		{"quicklist container", TypeListQuicklist2, cat(rdbLen(1), rdbLen(3), rdbStr("x")), ErrCorrupt},
		{"lzf ratio", TypeString, cat([]byte{0xc3}, rdbLen(1), rdbLen(1000), []byte{0}), ErrCorrupt},
		{"lzf back reference", TypeString, cat([]byte{0xc3}, rdbLen(2), rdbLen(5), []byte{0x20, 9}), ErrCorrupt},
		{"lzf short", TypeString, cat([]byte{0xc3}, rdbLen(2), rdbLen(5), []byte{0, 'a'}), ErrCorrupt},
		{"field ttl range", TypeHashMetadataPreGA, cat(rdbLen(1), rdbLen(1<<50), rdbStr("f"), rdbStr("v")), ErrCorrupt},
	}
}

// TestRefused checks that unsupported and malformed values fail with the
// right error class and never panic.
func TestRefused(t *testing.T) {
	for _, c := range refusedCases() {
		t.Run(c.name, func(t *testing.T) {
			v, err := ParseDump(payload(c.t, c.body, 9), nil)
			if err == nil {
				_, err = canon(v)
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if c.name == "module" && !strings.Contains(err.Error(), "mymodule1") {
				t.Fatalf("module error does not name the module: %v", err)
			}
		})
	}
}

func TestDumpFooter(t *testing.T) {
	p := payload(TypeString, rdbStr("v"), 9)
	if _, err := ParseDump(p[:9], nil); !errors.Is(err, ErrChecksum) {
		t.Fatalf("short payload: %v", err)
	}
	bad := bytes.Clone(p)
	bad[1] ^= 1
	if _, err := ParseDump(bad, nil); !errors.Is(err, ErrChecksum) {
		t.Fatalf("flipped byte: %v", err)
	}
	if _, err := ParseDump(payload(TypeString, rdbStr("v"), 11), &Options{MaxVersion: 10}); !errors.Is(err, ErrVersion) {
		t.Fatalf("version 11 with MaxVersion 10: %v", err)
	}
	if _, err := ParseDump(payload(TypeString, rdbStr("v"), 13), nil); !errors.Is(err, ErrVersion) {
		t.Fatalf("version 13: %v", err)
	}
	v, err := ParseDump(payload(TypeString, rdbStr(strings.Repeat("x", 100)), 9), &Options{MaxElementLen: 50})
	if err == nil {
		_, err = v.Bytes()
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Fatal("MaxElementLen not enforced")
	}
}

// TestTruncatedPayloads cuts a valid body at every byte: each must fail.
func TestTruncatedPayloads(t *testing.T) {
	body := cat(rdbLen(2), rdbLen(containerPlain), rdbStr("plain"), rdbLen(containerPacked), rdbStr(string(lpBuild("a", 7))))
	for i := 0; i < len(body); i++ {
		v, err := ParseDump(payload(TypeListQuicklist2, body[:i], 9), nil)
		if err == nil {
			_, err = canon(v)
		}
		if err == nil {
			t.Fatalf("body cut at %d accepted", i)
		}
	}
}

// TestDumpWriterRoundTrip writes each kind with DumpWriter and reads it back.
func TestDumpWriterRoundTrip(t *testing.T) {
	big := strings.Repeat("b", 70000)
	type write func(d *DumpWriter) error
	cases := []struct {
		name string
		w    write
		want []string
	}{
		{"string", func(d *DumpWriter) error { return d.String([]byte(big)) }, []string{big}},
		{"int string", func(d *DumpWriter) error { return d.String([]byte("-70000")) }, []string{"-70000"}},
		{"non-canonical int", func(d *DumpWriter) error { return d.String([]byte("007")) }, []string{"007"}},
		{"list", func(d *DumpWriter) error {
			d.List(3)
			d.Member([]byte("a"))
			d.Member([]byte("12"))
			return d.Member([]byte(""))
		}, []string{"a", "12", ""}},
		{"set", func(d *DumpWriter) error { d.Set(2); d.Member([]byte("x")); return d.Member([]byte("1")) }, []string{"1", "x"}},
		{"zset", func(d *DumpWriter) error {
			d.ZSet(2)
			d.ScoredMember([]byte("a"), math.Inf(1))
			return d.ScoredMember([]byte("b"), -1.5)
		}, []string{"a=+Inf", "b=-1.5"}},
		{"hash", func(d *DumpWriter) error { d.Hash(1); return d.Field([]byte("f"), []byte(big)) }, []string{"f=" + big}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			d := NewDumpWriter(&buf)
			if err := c.w(d); err != nil {
				t.Fatal(err)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			if ver, _ := DumpVersionOf(buf.Bytes()); ver != DumpVersion {
				t.Fatalf("version %d", ver)
			}
			if _, got := mustCanon(t, buf.Bytes()); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %.80q, want %.80q", got, c.want)
			}
		})
	}
}

func TestWriterMisuse(t *testing.T) {
	d := NewDumpWriter(io.Discard)
	if err := d.Close(); err == nil {
		t.Fatal("Close before a value")
	}
	if err := d.List(0); err == nil {
		t.Fatal("empty list accepted")
	}
	d.List(1)
	if err := d.Field([]byte("f"), []byte("v")); err == nil {
		t.Fatal("Field in a list accepted")
	}
	if err := d.Close(); err == nil {
		t.Fatal("Close with an element owed")
	}
	d.Member([]byte("x"))
	if err := d.Member([]byte("y")); err == nil {
		t.Fatal("element beyond the count accepted")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err == nil {
		t.Fatal("second Close accepted")
	}
	w, _ := NewWriter(io.Discard)
	w.Key([]byte("k"), -1)
	if err := w.Close(); err == nil {
		t.Fatal("Close with a key and no value")
	}
}

func TestLZFRoundTrip(t *testing.T) {
	rnd := uint64(1)
	for _, size := range []int{21, 64, 300, 9000, 70000} {
		for _, kind := range []string{"repeat", "text", "random"} {
			p := make([]byte, size)
			for i := range p {
				rnd = rnd*6364136223846793005 + 1442695040888963407
				switch kind {
				case "repeat":
					p[i] = "abcdefgh"[i%8]
				case "text":
					p[i] = "the quick brown fox "[int(rnd>>60)%20]
				default:
					p[i] = byte(rnd >> 56)
				}
			}
			c := lzfCompress(p)
			if c == nil {
				if kind == "repeat" {
					t.Fatalf("%s %d: not compressed", kind, size)
				}
				continue
			}
			if len(c) > len(p)-4 {
				t.Fatalf("%s %d: %d bytes", kind, size, len(c))
			}
			got, err := lzfDecompress(c, len(p))
			if err != nil || !bytes.Equal(got, p) {
				t.Fatalf("%s %d: round trip failed: %v", kind, size, err)
			}
		}
	}
	var buf bytes.Buffer
	d := NewDumpWriter(&buf)
	d.String(bytes.Repeat([]byte("x"), 70000))
	d.Close()
	if buf.Len() > 1000 {
		t.Fatalf("a 70000-byte run takes %d bytes", buf.Len())
	}
}

// TestRawStringDump: the raw layout of a string's DUMP payload is what the DumpWriter writes
// for a string LZF cannot shrink, and ParseDump reads it back, at each length-encoding size.
func TestRawStringDump(t *testing.T) {
	for _, n := range []int{0, 5, 63, 64, 16383, 16384, 100_000} {
		s := make([]byte, n)
		rng := rand.New(rand.NewPCG(uint64(n), 1)) // random bytes: nothing for LZF to find
		for i := range s {
			s[i] = byte(rng.Uint32())
		}
		dst := make([]byte, DumpStringSize(n))
		if err := RawStringDump(dst, n, func(b []byte) error { copy(b, s); return nil }); err != nil {
			t.Fatal(err)
		}
		v, err := ParseDump(dst, nil)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := v.Bytes()
		if err != nil || !bytes.Equal(got, s) {
			t.Fatalf("%d bytes: read back %d bytes, %v", n, len(got), err)
		}
		if n > 20 {
			var buf bytes.Buffer
			dw := NewDumpWriter(&buf)
			if err := dw.String(s); err != nil || dw.Close() != nil {
				t.Fatal(err)
			}
			if lzfCompress(s) != nil {
				t.Fatalf("%d random bytes compressed", n)
			}
			if !bytes.Equal(buf.Bytes(), dst) {
				t.Fatalf("%d bytes: raw layout differs from the writer's", n)
			}
		}
	}
}
