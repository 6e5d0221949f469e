package testutil

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Client returns a go-redis client for inst, closed when the test ends.
// It speaks RESP2 and sends no CLIENT SETINFO / maintenance-notification
// handshake, so it works against a server that lacks HELLO; opts may change
// any option (e.g. o.Protocol = 3).
func Client(t testing.TB, inst *Instance, opts ...func(*redis.Options)) *redis.Client {
	t.Helper()
	o := &redis.Options{
		Addr:            inst.Addr,
		Protocol:        2,
		DisableIdentity: true,
		MaintNotificationsConfig: &maintnotifications.Config{
			Mode: maintnotifications.ModeDisabled,
		},
	}
	for _, f := range opts {
		f(o)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}
