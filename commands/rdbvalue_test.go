package commands

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/storage"
)

// rdbElems renders the elements of an RDB value in a canonical, sorted form (lists keep their
// order), for comparing values whatever their encoding.
func rdbElems(t *testing.T, v *rdb.Value) []string {
	t.Helper()
	if v.Kind == rdb.KindString {
		s, err := v.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		return []string{string(s)}
	}
	var out []string
	for {
		e, err := v.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch v.Kind {
		case rdb.KindZSet:
			out = append(out, fmt.Sprintf("%q:%v", e.Member, e.Score))
		case rdb.KindHash:
			out = append(out, fmt.Sprintf("%q=%q", e.Member, e.Value))
		default:
			out = append(out, fmt.Sprintf("%q", e.Member))
		}
	}
	if v.Kind != rdb.KindList {
		sort.Strings(out)
	}
	return out
}

// buildPayload builds a DUMP payload with fill, which writes one value.
func buildPayload(t *testing.T, fill func(w *rdb.ValueWriter) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	dw := rdb.NewDumpWriter(&buf)
	if err := fill(&dw.ValueWriter); err != nil {
		t.Fatal(err)
	}
	if err := dw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// restorePayload restores payload at key in database 0 of s and commits.
func restorePayload(s *storage.Store, key string, payload []byte, expireAt int64) (RestoreStats, error) {
	v, err := rdb.ParseDump(payload, nil)
	if err != nil {
		return RestoreStats{}, err
	}
	txn := s.Begin(0, [][]byte{[]byte(key)}, true)
	st, err := RestoreValueStats(txn, []byte(key), v, expireAt)
	if err != nil {
		txn.Abort()
		return st, err
	}
	return st, txn.Commit()
}

// dumpKey dumps key of database 0 of s through DumpValue.
func dumpKey(t *testing.T, s *storage.Store, key string) []byte {
	t.Helper()
	txn := s.Begin(0, [][]byte{[]byte(key)}, false)
	defer txn.Abort()
	m, err := txn.GetMeta([]byte(key))
	if err != nil || m == nil {
		t.Fatalf("meta of %q: %v %v", key, m, err)
	}
	return buildPayload(t, func(w *rdb.ValueWriter) error { return DumpValue(txn, m, w) })
}

func TestRestoreDumpValueRoundTrip(t *testing.T) {
	s, err := storage.Open(storage.Options{Dir: t.TempDir(), Databases: 2, DisableBackgrnd: true, LargeValueThreshold: 4096})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	large := bytes.Repeat([]byte("0123456789abcdef\x00\xff"), 1000) // over the value-log threshold
	bin := []byte("\x00\r\n\xff\x01 bin")
	cases := []struct {
		key  string
		typ  string
		fill func(w *rdb.ValueWriter) error
	}{
		{"str", "string", func(w *rdb.ValueWriter) error { return w.String([]byte("hello")) }},
		{"bin\x00key", "string", func(w *rdb.ValueWriter) error { return w.String(bin) }},
		{"large", "string", func(w *rdb.ValueWriter) error { return w.String(large) }},
		{"empty-string", "string", func(w *rdb.ValueWriter) error { return w.String(nil) }},
		{"list", "list", func(w *rdb.ValueWriter) error {
			if err := w.List(4); err != nil {
				return err
			}
			for _, e := range [][]byte{[]byte("b"), bin, []byte("b"), large} {
				if err := w.Member(e); err != nil {
					return err
				}
			}
			return nil
		}},
		{"set", "set", func(w *rdb.ValueWriter) error {
			if err := w.Set(3); err != nil {
				return err
			}
			for _, e := range [][]byte{[]byte("x"), bin, []byte("12345")} {
				if err := w.Member(e); err != nil {
					return err
				}
			}
			return nil
		}},
		{"hash", "hash", func(w *rdb.ValueWriter) error {
			if err := w.Hash(3); err != nil {
				return err
			}
			if err := w.Field([]byte("f"), []byte("v")); err != nil {
				return err
			}
			if err := w.Field(bin, large); err != nil {
				return err
			}
			return w.Field([]byte("empty"), nil)
		}},
		{"zset", "zset", func(w *rdb.ValueWriter) error {
			if err := w.ZSet(4); err != nil {
				return err
			}
			for i, m := range []string{"a", "b", "c", "\x00"} {
				sc := []float64{1.5, -2, math.Inf(1), 0}[i]
				if err := w.ScoredMember([]byte(m), sc); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, tc := range cases {
		in := buildPayload(t, tc.fill)
		v, _ := rdb.ParseDump(in, nil)
		want := rdbElems(t, v)
		if _, err := restorePayload(s, tc.key, in, 0); err != nil {
			t.Fatalf("%q: restore: %v", tc.key, err)
		}
		if got := replyOf(s, 2, "type", tc.key); got != "+"+tc.typ+"\r\n" {
			t.Errorf("%q: TYPE = %q, want %s", tc.key, got, tc.typ)
		}
		out := dumpKey(t, s, tc.key)
		v2, err := rdb.ParseDump(out, nil)
		if err != nil {
			t.Fatalf("%q: parse dump: %v", tc.key, err)
		}
		if got := rdbElems(t, v2); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%q: round trip\n got %v\nwant %v", tc.key, got, want)
		}
	}
	// The commands see what was restored.
	for _, c := range []struct{ args, want string }{
		{"get large", fmt.Sprintf("$%d\r\n%s\r\n", len(large), large)},
		{"lrange list 0 0", "*1\r\n$1\r\nb\r\n"},
		{"llen list", ":4\r\n"},
		{"scard set", ":3\r\n"},
		{"hget hash f", "$1\r\nv\r\n"},
		{"hlen hash", ":3\r\n"},
		{"zscore zset a", "$3\r\n1.5\r\n"},
		{"zrange zset 0 0", "*1\r\n$1\r\nb\r\n"},
		{"zcard zset", ":4\r\n"},
	} {
		if got := replyOf(s, 2, strings.Fields(c.args)...); got != c.want {
			t.Errorf("%s = %q, want %q", c.args, truncate(got), truncate(c.want))
		}
	}
	if st := s.ValueLogStats(); st.LiveBytes == 0 {
		t.Errorf("the large string did not go to the value log: %+v", st)
	}
	// A value-log string and a collection replaced by values of other types.
	if _, err := restorePayload(s, "large", buildPayload(t, cases[4].fill), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := restorePayload(s, "set", buildPayload(t, cases[2].fill), 0); err != nil {
		t.Fatal(err)
	}
	if got := replyOf(s, 2, "type", "large"); got != "+list\r\n" {
		t.Errorf("TYPE large after replacing = %q", got)
	}
	if err := storage.CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}

func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

func TestRestoreValueReplacesAndExpires(t *testing.T) {
	s := testStore(t)
	replyOf(s, 2, "rpush", "k", "a", "b", "c")
	p := buildPayload(t, func(w *rdb.ValueWriter) error {
		if err := w.Set(1); err != nil {
			return err
		}
		return w.Member([]byte("m"))
	})
	at := 4102444800000 // 2100-01-01
	if _, err := restorePayload(s, "k", p, int64(at)); err != nil {
		t.Fatal(err)
	}
	if got := replyOf(s, 2, "smembers", "k"); got != "*1\r\n$1\r\nm\r\n" {
		t.Errorf("SMEMBERS = %q", got)
	}
	if got := replyOf(s, 2, "pexpiretime", "k"); got != fmt.Sprintf(":%d\r\n", at) {
		t.Errorf("PEXPIRETIME = %q", got)
	}
	if err := storage.CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}

// rawPayload frames body of object type typ as a DUMP payload of RDB version ver.
func rawPayload(typ byte, body []byte, ver uint16) []byte {
	p := append([]byte{typ}, body...)
	p = binary.LittleEndian.AppendUint16(p, ver)
	return binary.LittleEndian.AppendUint64(p, rdb.Checksum(p))
}

func rdbStr(s string) []byte { return append([]byte{byte(len(s))}, s...) }

func TestRestoreValueRefuses(t *testing.T) {
	s := testStore(t)
	replyOf(s, 2, "set", "keep", "v")
	twice := func(start func(w *rdb.ValueWriter) error, add func(w *rdb.ValueWriter) error) []byte {
		return buildPayload(t, func(w *rdb.ValueWriter) error {
			if err := start(w); err != nil {
				return err
			}
			if err := add(w); err != nil {
				return err
			}
			return add(w)
		})
	}
	cases := []struct {
		name    string
		payload []byte
		want    error
	}{
		{"duplicate set member", twice(func(w *rdb.ValueWriter) error { return w.Set(2) },
			func(w *rdb.ValueWriter) error { return w.Member([]byte("m")) }), rdb.ErrCorrupt},
		{"duplicate hash field", twice(func(w *rdb.ValueWriter) error { return w.Hash(2) },
			func(w *rdb.ValueWriter) error { return w.Field([]byte("f"), []byte("v")) }), rdb.ErrCorrupt},
		{"duplicate zset member", twice(func(w *rdb.ValueWriter) error { return w.ZSet(2) },
			func(w *rdb.ValueWriter) error { return w.ScoredMember([]byte("m"), 1) }), rdb.ErrCorrupt},
		{"empty set", rawPayload(rdb.TypeSet, []byte{0}, 9), rdb.ErrEmptyKey},
		{"empty list", rawPayload(rdb.TypeList, []byte{0}, 9), rdb.ErrEmptyKey},
		{"truncated list", rawPayload(rdb.TypeList, append([]byte{3}, rdbStr("a")...), 9), rdb.ErrCorrupt},
	}
	for _, tc := range cases {
		_, err := restorePayload(s, "keep", tc.payload, 0)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	if got := replyOf(s, 2, "get", "keep"); got != "$1\r\nv\r\n" {
		t.Errorf("a refused value changed the key: GET = %q", got)
	}
	if err := storage.CheckInvariants(s); err != nil {
		t.Fatal(err)
	}
}

func TestRestoreValueDropsFieldTTLs(t *testing.T) {
	s := testStore(t)
	// A hash with field TTLs (object type 24): the minimum expiry, the field count, then per
	// field its TTL relative to the minimum plus one (0: none), name and value.
	body := binary.LittleEndian.AppendUint64(nil, 1700000000000)
	body = append(body, 2, 0)
	body = append(body, rdbStr("f")...)
	body = append(body, rdbStr("v")...)
	body = append(body, 6)
	body = append(body, rdbStr("g")...)
	body = append(body, rdbStr("w")...)
	st, err := restorePayload(s, "h", rawPayload(rdb.TypeHashMetadata, body, 12), 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.Elements != 2 || st.DroppedFieldTTLs != 1 {
		t.Errorf("stats = %+v, want 2 elements and 1 dropped TTL", st)
	}
	if got := replyOf(s, 2, "hget", "h", "g"); got != "$1\r\nw\r\n" {
		t.Errorf("HGET = %q", got)
	}
}
