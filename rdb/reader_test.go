package rdb

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func moduleID(name string, ver uint64) uint64 {
	const cset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var id uint64
	for _, c := range name {
		id = id<<6 | uint64(strings.IndexRune(cset, c))
	}
	return id<<10 | ver
}

// handFile builds an RDB file with every record kind.
func handFile(version int, sum bool) []byte {
	f := cat([]byte(fmt.Sprintf("REDIS%04d", version)),
		[]byte{opAux}, rdbStr("redis-ver"), rdbStr("7.4.0"),
		[]byte{opAux}, rdbStr("ctime"), []byte{0xc2}, u32(1700000000),
		[]byte{opModuleAux}, rdbLen(moduleID("mymodule1", 3)), rdbLen(2), rdbLen(1),
		rdbLen(moduleOpSInt), rdbLen(5), rdbLen(moduleOpString), rdbStr("blob"), rdbLen(moduleOpString), []byte{0xc1, 1, 2},
		rdbLen(moduleOpFloat), u32(0), rdbLen(moduleOpDouble), u64(0), rdbLen(moduleOpEOF),
		[]byte{opFunction2}, rdbStr("#!lua name=lib\nredis.register_function('f', function() return 1 end)"),
		[]byte{opSelectDB}, rdbLen(0),
		[]byte{opResizeDB}, rdbLen(2), rdbLen(1),
		[]byte{opSlotInfo}, rdbLen(7), rdbLen(2), rdbLen(1),
		[]byte{opExpireTimeMS}, u64(1900000000123), []byte{opIdle}, rdbLen(60), []byte{TypeString}, rdbStr("s"), rdbStr("v"),
		[]byte{opFreq, 5}, []byte{TypeListQuicklist2}, rdbStr("l"), rdbLen(1), rdbLen(containerPacked), rdbStr(string(lpBuild("a", "b", 3))),
		[]byte{opSelectDB}, rdbLen(3),
		[]byte{opExpireTime}, u32(1900000000), []byte{TypeHashListpack}, rdbStr("h"), rdbStr(string(lpBuild("f", "v"))),
		[]byte{TypeSetIntset}, rdbStr("unread"), rdbStr(string(intsetBuild(2, 1, 2))),
		[]byte{opEOF})
	if version >= 5 {
		var crc uint64
		if sum {
			crc = Checksum(f)
		}
		f = append(f, u64(crc)...)
	}
	return f
}

// readAll renders every record of a file as text.
func readAll(r io.Reader) ([]string, error) {
	rd, err := NewReader(r, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch rec.Kind {
		case RecordAux:
			out = append(out, fmt.Sprintf("aux %s=%s", rec.Aux, rec.AuxValue))
		case RecordSelectDB:
			out = append(out, fmt.Sprintf("select %d", rec.DB))
		case RecordResizeDB:
			out = append(out, fmt.Sprintf("resize %d %d", rec.DBSize, rec.ExpiresSize))
		case RecordSlotInfo:
			out = append(out, fmt.Sprintf("slot %d %d %d", rec.Slot, rec.DBSize, rec.ExpiresSize))
		case RecordFunction:
			out = append(out, fmt.Sprintf("function %.14s", rec.Payload))
		case RecordModuleAux:
			out = append(out, "module "+rec.Module)
		case RecordKey:
			if string(rec.Key) == "unread" {
				out = append(out, "key unread")
				continue // the next call skips the value
			}
			els, err := canon(rec.Value)
			if err != nil {
				return out, err
			}
			out = append(out, fmt.Sprintf("key %d %s %s exp=%d idle=%d freq=%d %q", rec.DB, rec.Key, rec.Value.Kind, rec.ExpireAt, rec.Idle, rec.Freq, els))
		}
	}
}

func TestReaderRecords(t *testing.T) {
	want := []string{
		"aux redis-ver=7.4.0", "aux ctime=1700000000", "module mymodule1", "function #!lua name=lib",
		"select 0", "resize 2 1", "slot 7 2 1",
		`key 0 s string exp=1900000000123 idle=60 freq=-1 ["v"]`,
		`key 0 l list exp=-1 idle=-1 freq=5 ["a" "b" "3"]`,
		"select 3",
		`key 3 h hash exp=1900000000000 idle=-1 freq=-1 ["f=v"]`,
		"key unread",
	}
	for _, c := range []struct {
		version int
		sum     bool
	}{{12, true}, {12, false}, {4, false}} {
		got, err := readAll(bytes.NewReader(handFile(c.version, c.sum)))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("version %d: %v\ngot  %q\nwant %q", c.version, err, got, want)
		}
	}
	// One byte at a time: the buffer refills everywhere.
	got, err := readAll(&oneByteReader{bytes.NewReader(handFile(12, true))})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("byte by byte: %v\n%q", err, got)
	}
}

type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 1)]) }

func TestReaderRefuses(t *testing.T) {
	f := handFile(12, true)
	bad := bytes.Clone(f)
	bad[len(bad)-1] ^= 1
	if _, err := readAll(bytes.NewReader(bad)); !errors.Is(err, ErrChecksum) {
		t.Fatalf("wrong checksum: %v", err)
	}
	for _, h := range []string{"REDIS0013", "REDIS0000", "REDIX0009", "REDIS00a9", "REDIS"} {
		if _, err := NewReader(strings.NewReader(h+"\xff"), nil); err == nil {
			t.Fatalf("header %q accepted", h)
		}
	}
	if _, err := NewReader(strings.NewReader("REDIS0011"), &Options{MaxVersion: 10}); !errors.Is(err, ErrVersion) {
		t.Fatal("version above MaxVersion accepted")
	}
	for i := 9; i < len(f); i++ {
		if _, err := readAll(bytes.NewReader(f[:i])); err == nil {
			t.Fatalf("file cut at %d accepted", i)
		}
	}
	pre := cat([]byte("REDIS0009"), []byte{TypeModulePreGA}, rdbStr("x"), rdbLen(moduleID("oldmodule", 0)))
	if _, err := readAll(bytes.NewReader(pre)); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("pre-GA module value: %v", err)
	}
	// A claimed 2^40-element list ends with the data, without a huge allocation.
	huge := cat([]byte("REDIS0009"), []byte{TypeList}, rdbStr("l"), rdbLen(1<<40), rdbStr("x"), rdbStr("y"))
	if _, err := readAll(bytes.NewReader(huge)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("huge list: %v", err)
	}
	hugeStr := cat([]byte("REDIS0009"), []byte{TypeString}, rdbStr("s"), rdbLen(400<<20), []byte("abc"))
	if _, err := readAll(bytes.NewReader(hugeStr)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("huge string: %v", err)
	}
}

// TestWriterRoundTrip writes a file with Writer and reads it back.
func TestWriterRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Aux("redis-ver", "7.0.15"))
	must(w.Function([]byte("#!lua name=lib\n...")))
	must(w.SelectDB(0))
	must(w.ResizeDB(2, 1))
	must(w.Key([]byte("s"), 1900000000123))
	must(w.String([]byte("12")))
	must(w.Key([]byte("z"), -1))
	must(w.ZSet(2))
	must(w.ScoredMember([]byte("a"), 1))
	must(w.ScoredMember([]byte("b"), 2.5))
	must(w.SelectDB(15))
	must(w.Key([]byte("h"), -1))
	must(w.Hash(1))
	must(w.Field([]byte("f"), []byte("v")))
	if err := w.SelectDB(1); err != nil {
		t.Fatal(err)
	}
	must(w.Key([]byte("set"), -1))
	must(w.Set(1))
	must(w.Member([]byte("m")))
	must(w.Close())
	got, err := readAll(bytes.NewReader(buf.Bytes()))
	want := []string{"aux redis-ver=7.0.15", "function #!lua name=lib", "select 0", "resize 2 1",
		`key 0 s string exp=1900000000123 idle=-1 freq=-1 ["12"]`, `key 0 z zset exp=-1 idle=-1 freq=-1 ["a=1" "b=2.5"]`,
		"select 15", `key 15 h hash exp=-1 idle=-1 freq=-1 ["f=v"]`, "select 1", `key 1 set set exp=-1 idle=-1 freq=-1 ["m"]`}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%v\ngot  %q\nwant %q", err, got, want)
	}
}

// handStream builds a stream value of type t: one listpack node holding
// entry 0-1 (x 1), one consumer group with that entry pending, owned by one
// consumer.
func handStream(t byte) []byte {
	id := strings.Repeat("\x00", 15) + "\x01"
	// master entry: 1 live, 0 deleted, 1 field "x", 0; then the entry: flags
	// "same fields", ID deltas 0 0, value 1, back-count 4.
	node := lpBuild(1, 0, 1, "x", 0, 2, 0, 0, 1, 4)
	b := cat(rdbLen(1), rdbStr(id), rdbStr(string(node)), rdbLen(1), rdbLen(0), rdbLen(1))
	if t >= TypeStreamListpacks2 {
		b = cat(b, rdbLen(0), rdbLen(1), rdbLen(0), rdbLen(0), rdbLen(1))
	}
	b = cat(b, rdbLen(1), rdbStr("group"), rdbLen(0), rdbLen(1))
	if t >= TypeStreamListpacks2 {
		b = cat(b, rdbLen(1))
	}
	b = cat(b, rdbLen(1), []byte(id), u64(1700000000000), rdbLen(1), rdbLen(1), rdbStr("alice"), u64(1700000000000))
	if t >= TypeStreamListpacks3 {
		b = cat(b, u64(1700000000000))
	}
	return cat(b, rdbLen(1), []byte(id))
}

// TestReaderSkips checks that streams (read with NextStreamEntry) and module
// values are reported unsupported by Next and skipped, and the keys after
// them still read.
func TestReaderSkips(t *testing.T) {
	f := []byte("REDIS0012")
	for _, ty := range []byte{TypeStreamListpacks, TypeStreamListpacks2, TypeStreamListpacks3} {
		f = cat(f, []byte{ty}, rdbStr(fmt.Sprintf("stream%d", ty)), handStream(ty))
	}
	f = cat(f, []byte{TypeModule2}, rdbStr("mod"), rdbLen(moduleID("mymodule1", 1)), rdbLen(moduleOpString), rdbStr("data"), rdbLen(moduleOpEOF))
	f = cat(f, []byte{TypeString}, rdbStr("after"), rdbStr("ok"), []byte{opEOF})
	f = append(f, u64(Checksum(f))...)
	rd, err := NewReader(bytes.NewReader(f), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		_, err = rec.Value.Next()
		got = append(got, fmt.Sprintf("%s %s %v", rec.Key, rec.Value.Kind, errors.Is(err, ErrUnsupported)))
	}
	want := []string{"stream15 stream true", "stream19 stream true", "stream21 stream true", "mod module true", "after string false"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
	for _, ty := range []byte{TypeStreamListpacks, TypeStreamListpacks2, TypeStreamListpacks3} {
		v, err := ParseDump(payload(ty, handStream(ty), 11), nil)
		if err != nil {
			t.Fatalf("stream DUMP %d: %v", ty, err)
		}
		e, err := v.NextStreamEntry()
		if err != nil || e.ID != (StreamID{0, 1}) || fmt.Sprintf("%s", e.Fields) != "[x 1]" {
			t.Fatalf("stream %d entry %+v %v", ty, e, err)
		}
		tl, err := v.StreamTail()
		if err != nil || tl.Length != 1 || tl.LastID != (StreamID{0, 1}) || len(tl.Groups) != 1 ||
			len(tl.Groups[0].PEL) != 1 || string(tl.Groups[0].Consumers[0].Name) != "alice" {
			t.Fatalf("stream %d tail %+v %v", ty, tl, err)
		}
	}
}

// TestStreamingMemory pipes a 1M-element list (30 MB) from Writer to Reader
// and checks that the heap never holds more than a small part of it.
func TestStreamingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	const n = 1 << 20
	pr, pw := io.Pipe()
	go func() {
		w, err := NewWriter(pw)
		if err == nil {
			err = w.Key([]byte("big"), -1)
		}
		if err == nil {
			err = w.List(n)
		}
		for i := 0; i < n && err == nil; i++ {
			err = w.Member([]byte(fmt.Sprintf("element-%020d", i)))
		}
		if err == nil {
			err = w.Close()
		}
		pw.CloseWithError(err)
	}()
	rd, err := NewReader(pr, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	var peak uint64
	count := 0
	for {
		e, err := rec.Value.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("element-%020d", count); string(e.Member) != want {
			t.Fatalf("element %d = %q", count, e.Member)
		}
		count++
		if count%(1<<16) == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("after the list: %v", err)
	}
	if count != n || peak > 16<<20 {
		t.Fatalf("%d elements, heap peak %d bytes", count, peak)
	}
}
