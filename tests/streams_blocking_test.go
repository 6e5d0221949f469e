package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/strata-db/strata/internal/testutil"
)

// blockedReply runs a blocking command on its own client and delivers its reply (or error)
// as text.
func blockedReply(t *testing.T, inst *testutil.Instance, args ...any) <-chan string {
	t.Helper()
	c := testutil.Client(t, inst)
	out := make(chan string, 1)
	go func() {
		v, err := c.Do(context.Background(), args...).Result()
		if err != nil {
			out <- "error: " + err.Error()
			return
		}
		out <- fmt.Sprint(v)
	}()
	return out
}

// waitStreamBlocked waits until INFO reports n blocked clients.
func waitStreamBlocked(t *testing.T, inst *testutil.Instance, n int) {
	t.Helper()
	waitBlocked(t, testutil.Connect(t, inst.Addr), n) // conn_test.go
}

// TestXReadBlockWakes blocks XREAD with $ and XREADGROUP with > on a stream, adds an entry from
// another client, and checks both are woken with just that entry, the group's entry pending.
func TestXReadBlockWakes(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := context.Background()
	c := testutil.Client(t, inst)
	if err := c.Do(ctx, "XADD", "s", "1-1", "old", "x").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "XGROUP", "CREATE", "s", "g", "$").Err(); err != nil {
		t.Fatal(err)
	}
	plain := blockedReply(t, inst, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
	group := blockedReply(t, inst, "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">")
	waitStreamBlocked(t, inst, 2)
	if err := c.Do(ctx, "XADD", "s", "2-1", "new", "y").Err(); err != nil {
		t.Fatal(err)
	}
	want := "[[s [[2-1 [new y]]]]]"
	for name, ch := range map[string]<-chan string{"XREAD": plain, "XREADGROUP": group} {
		select {
		case got := <-ch:
			if got != want {
				t.Errorf("%s woke with %s, want %s", name, got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s was not woken by XADD", name)
		}
	}
	p, err := c.Do(ctx, "XPENDING", "s", "g").Result()
	if err != nil || fmt.Sprint(p) != "[1 2-1 2-1 [[alice 1]]]" {
		t.Fatalf("XPENDING after the woken XREADGROUP: %v %v", p, err)
	}
}

// TestXReadBlockTimeout checks that a blocked XREAD answers a null after its timeout, that an
// XADD of an ID not above the one it waits for leaves it blocked, and that BLOCK inside MULTI
// answers at once.
func TestXReadBlockTimeout(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := context.Background()
	c := testutil.Client(t, inst)
	start := time.Now()
	err := c.Do(ctx, "XREAD", "BLOCK", "200", "STREAMS", "none", "$").Err()
	if err != redis.Nil || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("XREAD BLOCK 200 on a missing key: %v after %v, want a null after the timeout", err, time.Since(start))
	}
	ch := blockedReply(t, inst, "XREAD", "BLOCK", "0", "STREAMS", "e", "5-0")
	waitStreamBlocked(t, inst, 1)
	if err := c.Do(ctx, "XADD", "e", "3-0", "f", "v").Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-ch:
		t.Fatalf("XREAD for IDs above 5-0 woke with %s on 3-0", got)
	case <-time.After(200 * time.Millisecond):
	}
	if err := c.Do(ctx, "XADD", "e", "6-0", "f", "w").Err(); err != nil {
		t.Fatal(err)
	}
	if got := <-ch; got != "[[e [[6-0 [f w]]]]]" {
		t.Fatalf("XREAD woke with %s", got)
	}

	pipe := c.TxPipeline()
	read := pipe.Do(ctx, "XREAD", "BLOCK", "0", "STREAMS", "none", "$")
	start = time.Now()
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		t.Fatal(err)
	}
	if err := read.Err(); err != redis.Nil || time.Since(start) > time.Second {
		t.Fatalf("XREAD BLOCK 0 in MULTI: %v after %v, want a null at once", err, time.Since(start))
	}
}

// TestXReadGroupBlockedGroupGone checks that a client blocked in XREADGROUP is answered
// NOGROUP when its group is destroyed, and UNBLOCKED when its key is deleted.
func TestXReadGroupBlockedGroupGone(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := context.Background()
	c := testutil.Client(t, inst)
	for _, args := range [][]any{{"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}, {"XGROUP", "CREATE", "s", "h", "$"}} {
		if err := c.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	ch := blockedReply(t, inst, "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">")
	waitStreamBlocked(t, inst, 1)
	if err := c.Do(ctx, "XGROUP", "DESTROY", "s", "g").Err(); err != nil {
		t.Fatal(err)
	}
	if got := <-ch; got != "error: NOGROUP the consumer group this client was blocked on no longer exists" {
		t.Fatalf("after XGROUP DESTROY: %s", got)
	}
	ch = blockedReply(t, inst, "XREADGROUP", "GROUP", "h", "bob", "BLOCK", "0", "STREAMS", "s", ">")
	waitStreamBlocked(t, inst, 1)
	if err := c.Do(ctx, "DEL", "s").Err(); err != nil {
		t.Fatal(err)
	}
	if got := <-ch; got != "error: UNBLOCKED the stream key no longer exists" {
		t.Fatalf("after DEL: %s", got)
	}
}
