package tests

import (
	"context"
	"testing"
	"time"

	"github.com/strata-db/strata/internal/testutil"
)

// TestBZPopWakesInOrder blocks two clients on an empty sorted set, adds members from a third,
// and checks each waiter gets one member in the order it blocked.
func TestBZPopWakesInOrder(t *testing.T) {
	inst := testutil.StartStrata(t)
	ctx := context.Background()
	type got struct {
		who    int
		member string
	}
	res := make(chan got, 2)
	for i := 0; i < 2; i++ {
		rdb := testutil.Client(t, inst)
		go func(i int) {
			v, err := rdb.BZPopMin(ctx, 5*time.Second, "bz").Result()
			if err != nil {
				res <- got{i, "error: " + err.Error()}
				return
			}
			res <- got{i, v.Member.(string)}
		}(i)
		time.Sleep(150 * time.Millisecond) // client 0 blocks first
	}
	pusher := testutil.Client(t, inst)
	if err := pusher.Do(ctx, "ZADD", "bz", "1", "first", "2", "second").Err(); err != nil {
		t.Fatal(err)
	}
	a, b := <-res, <-res
	if a.who == 1 {
		a, b = b, a
	}
	if a.member != "first" || b.member != "second" {
		t.Fatalf("waiter 0 got %q, waiter 1 got %q; want first and second", a.member, b.member)
	}
	if n, _ := pusher.Exists(ctx, "bz").Result(); n != 0 {
		t.Fatal("emptied sorted set still exists")
	}
	start := time.Now()
	if err := pusher.Do(ctx, "BZMPOP", "0.2", "1", "bz", "MIN").Err(); err == nil || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("BZMPOP on a missing key: %v after %v, want a null reply after the timeout", err, time.Since(start))
	}
}
