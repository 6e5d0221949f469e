package server

import (
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTrkIDs(t *testing.T) {
	var ids trkIDs
	for i := int64(1); i <= 40; i++ {
		if !ids.add(i) || ids.add(i) {
			t.Fatalf("add(%d): want true once", i)
		}
		if ids.size() != int(i) {
			t.Fatalf("size after %d adds = %d", i, ids.size())
		}
	}
	var got []int64
	for _, h := range ids.hits("k", nil) {
		if h.key != "k" {
			t.Fatalf("hit key %q", h.key)
		}
		got = append(got, h.id)
	}
	slices.Sort(got)
	if len(got) != 40 || got[0] != 1 || got[39] != 40 {
		t.Fatalf("hits = %v", got)
	}
	if s := string(appendKeys(nil, []string{"a", ""})); s != "*2\r\n$1\r\na\r\n$0\r\n\r\n" {
		t.Fatalf("appendKeys = %q", s)
	}
}

// trkCache is a client-side cache kept by a raw RESP3 connection with tracking on: the
// reference for what a caching client may hold.
type trkCache struct {
	c     *blockClient
	cache map[string]string
}

// absorb applies one reply-or-push, reporting whether it was an invalidation push.
func (tc *trkCache) absorb(r string) bool {
	if !strings.HasPrefix(r, "[invalidate ") {
		return false
	}
	body := strings.TrimSuffix(strings.TrimPrefix(r, "[invalidate "), "]")
	if body == "nil" {
		clear(tc.cache)
		return true
	}
	for _, k := range strings.Fields(strings.Trim(body, "[]")) {
		delete(tc.cache, k)
	}
	return true
}

// call sends a command (none: reads the reply of one sent before) and returns its reply,
// applying the invalidations that precede it.
func (tc *trkCache) call(args ...string) string {
	if len(args) > 0 {
		tc.c.send(args...)
	}
	for {
		r, err := tc.c.read(10 * time.Second)
		if err != nil {
			tc.c.t.Fatalf("%v: %v", args, err)
		}
		if !tc.absorb(r) {
			return r
		}
	}
}

// TestTrackingNoStaleCache runs writers against keys that a tracking client caches, and checks
// that once every invalidation is in, no cached value differs from the stored one: the keys are
// remembered while the read holds their locks, and what arrives during a read follows its reply.
func TestTrackingNoStaleCache(t *testing.T) {
	s := blockServer(t)
	for _, mode := range []string{"default", "optin", "bcast"} {
		t.Run(mode, func(t *testing.T) {
			tc := &trkCache{c: blockDial(t, s), cache: map[string]string{}}
			tc.call("HELLO", "3")
			switch mode {
			case "default":
				tc.call("CLIENT", "TRACKING", "ON")
			case "optin":
				tc.call("CLIENT", "TRACKING", "ON", "OPTIN")
			case "bcast":
				tc.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", mode)
			}
			key := func(i int) string { return mode + ":" + strconv.Itoa(i) }
			const keys, writers, writes = 8, 3, 300
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for w := 0; w < writers; w++ {
				wc := blockDial(t, s)
				wg.Add(1)
				go func(seed int64) {
					defer wg.Done()
					rng := rand.New(rand.NewSource(seed))
					for i := 0; i < writes; i++ {
						k := key(rng.Intn(keys))
						switch rng.Intn(4) {
						case 0:
							wc.send("DEL", k)
						case 1:
							wc.send("MSET", k, strconv.Itoa(i), key(rng.Intn(keys)), "m")
						default:
							wc.send("INCR", k)
						}
						if _, err := wc.read(10 * time.Second); err != nil {
							t.Error(err)
							return
						}
					}
				}(int64(w))
			}
			go func() { wg.Wait(); close(stop) }()
			rng := rand.New(rand.NewSource(42))
			for done := false; !done; {
				select {
				case <-stop:
					done = true
				default:
				}
				k := key(rng.Intn(keys))
				if _, ok := tc.cache[k]; ok {
					continue
				}
				if mode == "optin" {
					tc.call("CLIENT", "CACHING", "YES")
				}
				tc.cache[k] = tc.call("GET", k)
			}
			tc.call("PING") // every invalidation queued before it is applied now
			check := blockDial(t, s)
			for k, v := range tc.cache {
				if real := check.do("GET", k); real != v {
					t.Errorf("%s: cached %q, stored %q", k, v, real)
				}
			}
		})
	}
}

// TestTrackingReadWriteRace sends a read by a tracking client and a write of the same key by
// another client at the same moment, many times: whatever the order the server runs them in,
// the tracking client must end up without a stale value.
func TestTrackingReadWriteRace(t *testing.T) {
	s := blockServer(t)
	tc := &trkCache{c: blockDial(t, s), cache: map[string]string{}}
	tc.call("HELLO", "3")
	tc.call("CLIENT", "TRACKING", "ON")
	w := blockDial(t, s)
	for i := 0; i < 3000; i++ {
		k := "race:" + strconv.Itoa(i)
		tc.c.send("GET", k)
		w.send("SET", k, strconv.Itoa(i))
		if _, err := w.read(10 * time.Second); err != nil {
			t.Fatal(err)
		}
		tc.cache[k] = tc.call()
	}
	tc.call("PING")
	check := blockDial(t, s)
	for k, v := range tc.cache {
		if real := check.do("GET", k); real != v {
			t.Errorf("%s: cached %q, stored %q", k, v, real)
		}
	}
}

// TestTrackingWakesIdleRedirect checks that a RESP3 redirect client that neither tracks nor
// subscribes, and sends nothing, gets its invalidations (its reader is woken to switch it to
// queued output), and that its replies stay in order afterwards.
func TestTrackingWakesIdleRedirect(t *testing.T) {
	s := blockServer(t)
	r := blockDial(t, s)
	r.do("HELLO", "3")
	id := r.do("CLIENT", "ID")
	a := blockDial(t, s)
	if got := a.do("CLIENT", "TRACKING", "ON", "REDIRECT", strings.TrimPrefix(id, ":")); got != "OK" {
		t.Fatalf("CLIENT TRACKING: %s", got)
	}
	b := blockDial(t, s)
	for i := 0; i < 3; i++ {
		a.do("GET", "k")
		b.do("SET", "k", strconv.Itoa(i))
		got, err := r.read(5 * time.Second)
		if err != nil || got != "[invalidate [k]]" {
			t.Fatalf("round %d: redirect client got %q, %v", i, got, err)
		}
	}
	if got := r.do("ECHO", "x"); got != "x" {
		t.Fatalf("ECHO after pushes: %q", got)
	}
	a.do("GET", "k")
	r.send("ECHO", "y")
	b.do("SET", "k", "z")
	var got []string
	for len(got) < 2 {
		v, err := r.read(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	slices.Sort(got)
	if got[0] != "[invalidate [k]]" || got[1] != "y" {
		t.Fatalf("got %q", got)
	}
}
