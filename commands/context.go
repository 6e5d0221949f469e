package commands

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/strata-db/strata/acl"
	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/internal/resp"
	"github.com/strata-db/strata/storage"
)

// Client is the per-connection state that commands read and change.
type Client struct {
	ID     int64
	DB     int
	Proto  int // 2 or 3
	Name   string
	Authed bool
	Quit   bool // close the connection after the reply
	Addr   string

	LAddr    string // local address of the connection
	User     string // authenticated user: "default"
	LibName  string // CLIENT SETINFO LIB-NAME
	LibVer   string // CLIENT SETINFO LIB-VER
	NoEvict  bool   // CLIENT NO-EVICT
	NoTouch  bool   // CLIENT NO-TOUCH
	ReplyOff bool   // CLIENT REPLY OFF: the server discards replies
	SkipNext bool   // CLIENT REPLY SKIP: the server discards the next command's reply
	SkipThis bool   // the previous command was CLIENT REPLY SKIP: this reply is discarded

	Conn any // the server's state of this connection (MULTI queue, subscriptions); opaque here

	// ACLUser is the ACL user the connection runs as (package acl): the default user until AUTH or
	// HELLO AUTH. Nil means no ACL checks (Envs without users, unit tests).
	ACLUser *acl.User
}

// Env is what the server offers commands beyond the keyspace.
type Env interface {
	Config() *config.Config
}

// CallCounter is implemented by an Env that counts the commands scripts and EXEC run in INFO
// commandstats and errorstats and logs them in the slow log, as it does for the commands
// clients send. sub is the call's context; sub.ErrorCounted says that an error reply repeats
// an error already counted.
type CallCounter interface {
	CountCall(sub *Ctx, began time.Time, reply []byte)
}

// ServerEnv is the Env of a running server: what the connection, introspection and
// configuration commands (CLIENT, INFO, CONFIG) need. Handlers type-assert c.Env to it, so
// simpler Envs (unit tests) keep working and get an error reply instead.
type ServerEnv interface {
	Env
	// Clients returns a snapshot of every connected client, ordered by ID.
	Clients() []ClientInfo
	// KillClients closes the clients for which match returns true and returns their number.
	// The calling client (self) is marked to close after its reply instead.
	KillClients(self *Client, match func(*ClientInfo) bool) int
	// Pause holds commands of every client (all) or write commands only, until d passes.
	Pause(d time.Duration, all bool)
	// Unpause ends a pause.
	Unpause()
	// ResetStats zeroes the counters CONFIG RESETSTAT resets.
	ResetStats()
	// SetConfig replaces the running configuration with cfg, already validated, applying the
	// changed run-time directives.
	SetConfig(cfg *config.Config) error
	// ConfigFile returns the path of the configuration file the server started with, or "".
	ConfigFile() string
	// Info renders INFO for the sections asked (lower-cased names; none means "default").
	Info(sections []string) string
}

// ClientInfo is a snapshot of one client for CLIENT LIST and CLIENT KILL.
type ClientInfo struct {
	Client         // the client's settings after its last command
	FD         int // file descriptor of the socket, -1 if unknown
	Created    time.Time
	LastActive time.Time
	LastCmd    string // last command run, "sub|cmd" for container commands
	Flags      string // Redis's flags letters: "N" for none
	QueryBuf   int    // bytes in the query buffer: for the calling client, the request it runs
	Redir      int64  // CLIENT TRACKING's redirect client ID, 0 for none, -1 when tracking is off
	Subs       [3]int // subscriptions by SubKind: CLIENT LIST's sub, psub and ssub
}

// Type is the client's type for CLIENT LIST and CLIENT KILL TYPE: "master" for a replica's
// master client (flag M), "replica" for a replica's link (flag S), "pubsub" for a client with
// subscriptions (flag P, over RESP3 too, as in Redis 7.0), else "normal".
func (ci *ClientInfo) Type() string {
	if ci.Flags == "M" {
		return "master"
	}
	if strings.Contains(ci.Flags, "S") {
		return "replica"
	}
	if strings.Contains(ci.Flags, "P") {
		return "pubsub"
	}
	return "normal"
}

// Replicator is implemented by a ServerEnv that replicates: REPLICAOF and ROLE.
type Replicator interface {
	// ReplicaOf makes the server a replica of host:port, or a master when host is "". It
	// reports already when the server replicates from host:port already.
	ReplicaOf(host string, port int) (already bool, err error)
	// Role returns what ROLE reports.
	Role() RoleInfo
}

// WriteGate is implemented by a ServerEnv whose replication role can refuse writes, for the
// scripts that count as write commands and the first write command of the others.
type WriteGate interface {
	// ReplicaReadOnly reports a replica with replica-read-only yes.
	ReplicaReadOnly() bool
	// ReplicasShort reports a master with fewer good replicas than min-replicas-to-write.
	ReplicasShort() bool
}

// RoleInfo is ROLE's reply: a master's offset, or a replica's master, link state and offset.
type RoleInfo struct {
	Master     bool
	Offset     int64
	MasterHost string
	MasterPort int
	State      string        // connect, connecting, handshake, sync, connected
	Replicas   []ReplicaRole // a master's online replicas
}

// ReplicaRole is one replica in a master's ROLE reply.
type ReplicaRole struct {
	IP     string
	Port   int
	Offset int64
}

// Ctx is one command's execution context.
type Ctx struct {
	Args   [][]byte
	Cmd    *Command
	Client *Client
	Store  *storage.Store
	Txn    *storage.Txn // nil for commands without keys or with FlagExclusive until they begin one
	W      *resp.Writer
	Env    Env
	// Now, when set, is the command's start in Unix milliseconds, read by the server; the
	// command's transaction judges expiry against it rather than read the clock again.
	Now int64

	// Block, when a handler sets it, asks the dispatcher to block the client on these keys.
	BlockKeys    [][]byte
	BlockTimeout time.Duration // 0 means forever
	Blocked      bool
	// OnBlock, when set, is called for a blocked command while its keys are still locked.
	OnBlock func(c *Ctx)
	// NonBlocking makes blocking commands answer at once (inside MULTI and scripts).
	NonBlocking bool
	// KeepWrites makes the dispatcher commit the command's writes although it answered an
	// error: MIGRATE deletes the keys its target took before the error, as Redis does.
	KeepWrites bool
	// ErrorCounted is set by a script command whose error reply is the error of a command the
	// script ran, counted in INFO errorstats when that command failed: it is not counted again.
	ErrorCounted bool
	keyBuf       [16][]byte // room for the declared keys of most commands (MSET of 10 keys)

	// Ready lists keys that received elements, for the dispatcher to wake blocked clients.
	Ready    []ReadyKey
	readyBuf [2]ReadyKey // room for the keys of a push or a move (SignalIn)

	// OnWrite, when set, is called by Run for a command that staged writes, before they commit,
	// while the command's keys are still locked: the server marks the clients that WATCH the
	// keys it changed, so that no EXEC can slip in between the commit and the marking.
	OnWrite func(c *Ctx)
	// OnRead, when set, is called by Run for a read-only command after its handler, while the
	// command's keys are still locked (and by EXEC and scripts for the read-only commands they
	// run): the server remembers the keys a tracking client read (CLIENT TRACKING), so that a
	// write of them, which must wait for the locks, cannot slip in unnoticed.
	OnRead func(c *Ctx)
	// Script, for a command a script runs, is the script's own context (EVAL, FCALL, ...):
	// a tracking client that runs a script remembers the keys the script declares once the
	// script has run a read-only command, as in Redis 7.0.
	Script *Ctx
	// KE, when set, is the server's keyspace-event state (notify.go): while notifications are
	// on or a client watches keys, write commands record what they changed in Events.
	KE *KeyEvents
	// Events are the keyspace events of the command, in Redis's order (notify.go).
	Events []Event
	// Tracked reports that Events name every key the command changed; a write command without
	// it is taken to have changed all its declared keys.
	Tracked bool
	// BeforeCommit, when set, is called with a command's transaction just before its writes
	// commit, when it staged any (by Run, EXEC and a script's Done): a replica stages its
	// replication offset in the same batch as the writes it covers.
	BeforeCommit func(t *storage.Txn)
	// Effects, when a write command sets them (Ctx.Effect), are the commands that repeat its
	// writes on a replica, in Redis's propagated form (EXPIRE as PEXPIREAT, SPOP as SREM, a
	// script as the writes it made). A write command that staged writes and set none
	// propagates its own arguments; an empty, non-nil Effects propagates nothing.
	Effects [][][]byte
	// Propagate, when set, receives the effects of a command (or of an EXEC or a script, as
	// one batch) once its writes have committed, while its keys are still locked, so that the
	// replication stream orders writes of the same keys as their commits. db is the database
	// the effects run in: a block that spans databases (an EXEC or a script that SELECTs)
	// holds SELECT commands where the database changes and ends with one back to db, so the
	// stream is in db after it. Several effects come wrapped in MULTI and EXEC. The arguments
	// may be reused once it returns: it copies what it keeps.
	Propagate func(db int, effects [][][]byte)
	// KeepExpired makes the command's transaction read keys whose time to live has passed as
	// live (storage.Txn.KeepExpired): the master client of a replica runs so, and a key goes
	// when the master's DEL comes.
	KeepExpired bool
	// untxnEffect is set by a command that propagates although it staged no write (PUBLISH,
	// FUNCTION LOAD) when EXEC or a script runs it, for them to propagate it in their block.
	untxnEffect bool
	// scriptEffects, set by a script that EXEC runs, are the writes the script made, which
	// EXEC propagates in its place.
	scriptEffects *EffectLog
	// Staged, when set, is the value of a SET that the server streamed into the value log while
	// it arrived (Args[2] is then empty); SET stores it, and the server discards it otherwise.
	Staged *storage.StagedValue
}

// Effect records argv as one of the commands that repeat this command's writes on a replica,
// in place of the command itself (Ctx.Effects).
func (c *Ctx) Effect(argv ...[]byte) { c.Effects = append(c.Effects, argv) }

// PropagateOnCommit hands the command's effects to c.Propagate once t, begun for the command,
// commits: the deletions of the expired keys it met, then its Effects, or its own arguments
// when it set none, wrapped in MULTI/EXEC when they are several (EffectLog).
// Run calls it for the commands it commits, the server for the blocked commands it serves.
func (c *Ctx) PropagateOnCommit(t *storage.Txn) {
	if c.Propagate == nil {
		return
	}
	var l EffectLog
	l.AddCommand(c.Client.DB, c, t, storage.TxnMark{})
	l.SendOnCommit(t, c.Propagate)
}

// Block asks the dispatcher to suspend the client until one of keys is signalled or the timeout
// passes. The handler must not have written a reply.
func (c *Ctx) Block(keys [][]byte, timeout time.Duration) {
	c.Blocked, c.BlockKeys, c.BlockTimeout = true, keys, timeout
}

// ReadyKey is a key that received elements a blocked client may be waiting for, in database
// DB. A nil Key stands for every key of DB (SWAPDB).
type ReadyKey struct {
	DB  int
	Key []byte
}

// String returns the key.
func (k ReadyKey) String() string { return string(k.Key) }

// Signal records that key, in the client's current database, received elements that a blocked
// client may be waiting for: a push, or a key moved or copied into place.
func (c *Ctx) Signal(key []byte) { c.SignalIn(c.Client.DB, key) }

// SignalIn records that key in database db received elements (MOVE, COPY ... DB).
func (c *Ctx) SignalIn(db int, key []byte) {
	if c.Ready == nil {
		c.Ready = c.readyBuf[:0]
	}
	c.Ready = append(c.Ready, ReadyKey{db, key})
}

// SignalDB records that every key of database db may have changed (SWAPDB).
func (c *Ctx) SignalDB(db int) { c.Ready = append(c.Ready, ReadyKey{DB: db}) }

// Fail writes the reply for a storage error: WRONGTYPE, or a generic storage error.
func (c *Ctx) Fail(err error) {
	if errors.Is(err, storage.ErrWrongType) {
		c.W.Error(ErrWrongType)
		return
	}
	c.W.Error(fmt.Sprintf(ErrStorage, err.Error()))
}

// Arg returns argument i as a string.
func (c *Ctx) Arg(i int) string { return string(c.Args[i]) }

// Int parses argument i as a 64-bit integer, writing Redis's error and returning false if it is not.
func (c *Ctx) Int(i int) (int64, bool) {
	n, err := num.ParseInt(c.Args[i])
	if err != nil {
		c.W.Error(ErrNotInteger)
		return 0, false
	}
	return n, true
}

// Float parses argument i as a float, writing Redis's error and returning false if it is not.
func (c *Ctx) Float(i int) (float64, bool) {
	f, ok := num.ParseFloat(c.Args[i])
	if !ok {
		c.W.Error(ErrNotFloat)
		return 0, false
	}
	return f, true
}
