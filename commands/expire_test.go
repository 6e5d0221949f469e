package commands_test

import (
	"testing"
	"time"

	"github.com/strata-db/strata/commands"
)

// TestExpireMillisecondPrecision: PEXPIRE keeps milliseconds, and a key is gone the moment its
// time passes, for every command, before any background work.
func TestExpireMillisecondPrecision(t *testing.T) {
	s := commands.TestStore(t) // no background expiry: visibility must not depend on it
	ksOK(t, s, 0, "SET", "k", "v")
	ksOK(t, s, 0, "HSET", "h", "f", "v")
	start := time.Now()
	ksOK(t, s, 0, "PEXPIRE", "k", "150")
	ksOK(t, s, 0, "PEXPIRE", "h", "150")
	if r := ksOK(t, s, 0, "PTTL", "k"); r.Int <= 0 || r.Int > 150 {
		t.Fatalf("PTTL = %d", r.Int)
	}
	pat := ksOK(t, s, 0, "PEXPIRETIME", "k").Int
	if d := pat - start.UnixMilli(); d < 150 || d > 150+int64(time.Since(start)/time.Millisecond)+1 {
		t.Fatalf("PEXPIRETIME - start = %d ms", d)
	}
	time.Sleep(time.Until(time.UnixMilli(pat)) + 2*time.Millisecond)
	for _, c := range [][]string{{"GET", "k"}, {"HGET", "h", "f"}} {
		if r := ksDo(t, s, 0, c...); !r.IsNil() {
			t.Errorf("%v after expiry = %v", c, r)
		}
	}
	for _, c := range [][]string{{"EXISTS", "k", "h"}, {"HLEN", "h"}, {"TOUCH", "k", "h"}} {
		if r := ksOK(t, s, 0, c...); r.Int != 0 {
			t.Errorf("%v after expiry = %v", c, r)
		}
	}
	if r := ksOK(t, s, 0, "TTL", "h"); r.Int != -2 {
		t.Errorf("TTL = %d", r.Int)
	}
	if r := ksOK(t, s, 0, "KEYS", "*"); len(r.Elems) != 0 {
		t.Errorf("KEYS = %v", r)
	}
	if r := ksOK(t, s, 0, "SCAN", "0"); len(r.Elems[1].Elems) != 0 {
		t.Errorf("SCAN = %v", r)
	}
	if r := ksDo(t, s, 0, "RANDOMKEY"); !r.IsNil() {
		t.Errorf("RANDOMKEY = %v", r)
	}
	// The reads above deleted the keys they found expired (lazy expiry, as in Redis).
	if n := s.DBSize(0); n != 0 {
		t.Fatalf("DBSIZE after reads of the expired keys = %d", n)
	}
	if _, err := s.ExpireStep(100); err != nil {
		t.Fatal(err)
	}
	if n := s.DBSize(0); n != 0 {
		t.Fatalf("DBSIZE after the active cycle = %d", n)
	}
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	ksInvariants(t, s)
}

// TestExpireInThePastDeletesCollections: a time in the past deletes a collection of any size at
// once (its elements go to the collector), and TTL/PERSIST semantics hold on every type.
func TestExpireInThePastDeletesCollections(t *testing.T) {
	s := commands.TestStore(t)
	ksFill(t, s, 0, "hash", "h", 20000)
	ksFill(t, s, 0, "set", "s", 20000)
	ksFill(t, s, 0, "zset", "z", 20000)
	for _, k := range []string{"h", "s", "z"} {
		if r := ksOK(t, s, 0, "EXPIRE", k, "100", "NX"); r.Int != 1 {
			t.Fatal(k, r)
		}
		if r := ksOK(t, s, 0, "TTL", k); r.Int != 100 {
			t.Fatal(k, r)
		}
		if r := ksOK(t, s, 0, "PERSIST", k); r.Int != 1 {
			t.Fatal(k, r)
		}
		if r := ksOK(t, s, 0, "TTL", k); r.Int != -1 {
			t.Fatal(k, r)
		}
	}
	ksInvariants(t, s)
	start := time.Now()
	ksOK(t, s, 0, "EXPIRE", "h", "-1")
	ksOK(t, s, 0, "PEXPIREAT", "s", "1")
	ksOK(t, s, 0, "EXPIREAT", "z", "0")
	t.Logf("three 20000-element collections expired in %v", time.Since(start))
	if n := s.DBSize(0); n != 0 {
		t.Fatalf("DBSIZE = %d", n)
	}
	ksInvariants(t, s)
	if _, err := s.Collect(); err != nil {
		t.Fatal(err)
	}
	ksInvariants(t, s)
}
