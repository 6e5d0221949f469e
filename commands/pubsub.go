package commands

import (
	"fmt"
	"strings"

	"github.com/strata-db/strata/internal/resp"
)

// Publish/subscribe: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, SSUBSCRIBE, SUNSUBSCRIBE,
// PUBLISH, SPUBLISH, PUBSUB and RESET.
//
// Subscriptions belong to the server (server/pubsub.go), which delivers messages to the
// subscribers' connections; these handlers reach it through PubSubEnv. The RESP2 subscriber
// mode (only (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PING, QUIT and RESET allowed) is applied by the
// server before dispatching.

// SubKind is a kind of subscription.
type SubKind int

// Subscription kinds.
const (
	SubChannel SubKind = iota // SUBSCRIBE: one channel
	SubPattern                // PSUBSCRIBE: a glob pattern of channels
	SubShard                  // SSUBSCRIBE: a shard channel
)

// SubNames are the reply words of each kind: subscribe and unsubscribe confirmations, and the
// message type.
var SubNames = [3]struct{ Sub, Unsub, Message string }{
	{"subscribe", "unsubscribe", "message"},
	{"psubscribe", "punsubscribe", "pmessage"},
	{"ssubscribe", "sunsubscribe", "smessage"},
}

// PubSubEnv is implemented by a server with publish/subscribe.
type PubSubEnv interface {
	// Subscribe subscribes the client to names, writing one confirmation per name.
	Subscribe(c *Ctx, kind SubKind, names [][]byte)
	// Unsubscribe unsubscribes the client from names (all of its kind when there are none),
	// writing one confirmation per name.
	Unsubscribe(c *Ctx, kind SubKind, names [][]byte)
	// Publish delivers message to the subscribers of channel (shard channels when shard) and
	// of the patterns matching it, and returns the number of deliveries.
	Publish(channel, message []byte, shard bool) int64
	// Channels returns the channels (shard channels) with subscribers that match pattern
	// (every one when pattern is nil).
	Channels(pattern []byte, shard bool) [][]byte
	// NumSub returns the number of subscribers of channel (a shard channel when shard).
	NumSub(channel []byte, shard bool) int64
	// NumPat returns the number of distinct subscribed patterns.
	NumPat() int64
	// Reset returns the connection to its state after connecting (RESET).
	Reset(c *Ctx)
}

func init() {
	const f = FlagPubSub | FlagNoScript | FlagLoading | FlagStale
	register(
		&Command{Name: "subscribe", Arity: -2, Flags: f, Handler: subCmd(SubChannel, true)},
		&Command{Name: "unsubscribe", Arity: -1, Flags: f, Handler: subCmd(SubChannel, false)},
		&Command{Name: "psubscribe", Arity: -2, Flags: f, Handler: subCmd(SubPattern, true)},
		&Command{Name: "punsubscribe", Arity: -1, Flags: f, Handler: subCmd(SubPattern, false)},
		&Command{Name: "ssubscribe", Arity: -2, Flags: f, Handler: subCmd(SubShard, true)},
		&Command{Name: "sunsubscribe", Arity: -1, Flags: f, Handler: subCmd(SubShard, false)},
		&Command{Name: "publish", Arity: 3, Flags: FlagPubSub | FlagLoading | FlagStale | FlagFast, Handler: cmdPublish},
		&Command{Name: "spublish", Arity: 3, Flags: FlagPubSub | FlagLoading | FlagStale | FlagFast, Handler: cmdPublish},
		&Command{Name: "pubsub", Arity: -2, Handler: cmdPubSub,
			Sub: []string{"channels", "help", "numpat", "numsub", "shardchannels", "shardnumsub"}},
		&Command{Name: "reset", Arity: 1, Flags: FlagNoScript | FlagLoading | FlagStale | FlagFast | FlagNoAuth, Handler: cmdReset},
	)
}

func pubSubEnv(c *Ctx) PubSubEnv {
	if e, ok := c.Env.(PubSubEnv); ok {
		return e
	}
	c.W.Error("ERR pub/sub is not supported here")
	return nil
}

func subCmd(kind SubKind, sub bool) func(*Ctx) {
	return func(c *Ctx) {
		e := pubSubEnv(c)
		if e == nil {
			return
		}
		if sub {
			e.Subscribe(c, kind, c.Args[1:])
		} else {
			e.Unsubscribe(c, kind, c.Args[1:])
		}
	}
}

func cmdPublish(c *Ctx) {
	if e := pubSubEnv(c); e != nil {
		c.W.Int(e.Publish(c.Args[1], c.Args[2], c.Cmd.Name == "spublish"))
		c.propagateNow() // replicas' subscribers get the message too
	}
}

var pubsubHelpLines = []string{
	"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CHANNELS [<pattern>]",
	"    Return the currently active channels matching a <pattern> (default: '*').",
	"NUMPAT",
	"    Return number of subscriptions to patterns.",
	"NUMSUB [<channel> ...]",
	"    Return the number of subscribers for the specified channels, excluding",
	"    pattern subscriptions(default: no channels).",
	"SHARDCHANNELS [<pattern>]",
	"    Return the currently active shard level channels matching a <pattern> (default: '*').",
	"SHARDNUMSUB [<shardchannel> ...]",
	"    Return the number of subscribers for the specified shard level channel(s)",
	"HELP",
	"    Prints this help.",
}

func cmdPubSub(c *Ctx) {
	e := pubSubEnv(c)
	if e == nil {
		return
	}
	sub := strings.ToLower(c.Arg(1))
	n := len(c.Args)
	switch sub {
	case "channels", "shardchannels":
		if n > 3 {
			c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%.128s'. Try PUBSUB HELP.", c.Arg(1)))
			return
		}
		var pattern []byte
		if n == 3 {
			pattern = c.Args[2]
		}
		list := e.Channels(pattern, sub == "shardchannels")
		c.W.Array(len(list))
		for _, ch := range list {
			c.W.Bulk(ch)
		}
	case "numsub", "shardnumsub":
		c.W.Array(2 * (n - 2))
		for _, ch := range c.Args[2:] {
			c.W.Bulk(ch)
			c.W.Int(e.NumSub(ch, sub == "shardnumsub"))
		}
	case "numpat", "help":
		if n != 2 {
			c.W.Error(fmt.Sprintf(ErrWrongArity, "pubsub|"+sub))
			return
		}
		if sub == "help" {
			writeHelp(c.W, pubsubHelpLines)
			return
		}
		c.W.Int(e.NumPat())
	default:
		c.W.Error(fmt.Sprintf(ErrUnknownSub, pubsubTruncate(c.Arg(1), 128), "PUBSUB"))
	}
}

func pubsubTruncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func cmdReset(c *Ctx) {
	if e := pubSubEnv(c); e != nil {
		e.Reset(c)
	}
}

// WriteSubReply writes one subscription confirmation: [kind, name, count], a push in RESP3;
// name nil writes a null (UNSUBSCRIBE without subscriptions).
func WriteSubReply(w *resp.Writer, word string, name []byte, count int) {
	w.Push(3)
	w.BulkString(word)
	if name == nil {
		w.Null()
	} else {
		w.Bulk(name)
	}
	w.Int(int64(count))
}

// AppendMessage appends a published message as proto encodes it: [kind, channel, message] or,
// for a pattern subscription, [pmessage, pattern, channel, message].
func AppendMessage(dst []byte, proto int, word string, pattern, channel, message []byte) []byte {
	w := resp.NewWriter(dst, proto)
	if pattern != nil {
		w.Push(4)
		w.BulkString(word)
		w.Bulk(pattern)
	} else {
		w.Push(3)
		w.BulkString(word)
	}
	w.Bulk(channel)
	w.Bulk(message)
	return w.Bytes()
}
