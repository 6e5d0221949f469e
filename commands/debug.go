package commands

import (
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/storage"
)

func init() {
	register(&Command{Name: "debug", Arity: -2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale | FlagProtected,
		Handler: cmdDebug})
}

// Debugger is implemented by a ServerEnv that serves DEBUG's server-wide subcommands.
type Debugger interface {
	// ChangeReplicationID starts a new replication history and forgets the second ID
	// (DEBUG CHANGE-REPL-ID).
	ChangeReplicationID()
}

// debugSubs are the DEBUG subcommands Strata serves, with their argument counts (the name
// included, as Redis checks them: exactly, or at least for a negative count).
var debugSubs = map[string]clientSub{
	"help":                         {2, func(c *Ctx) { writeHelp(c.W, debugHelp) }},
	"sleep":                        {3, debugSleep},
	"object":                       {3, debugObject},
	"set-active-expire":            {3, debugSetActiveExpire},
	"error":                        {3, func(c *Ctx) { c.W.Error(c.Arg(2)) }},
	"log":                          {3, func(c *Ctx) { slog.Warn("DEBUG LOG: " + c.Arg(2)); c.W.OK() }},
	"digest":                       {2, debugDigest},
	"digest-value":                 {-2, debugDigestValue},
	"reload":                       {-2, debugReload},
	"loadaof":                      {2, debugReload},
	"populate":                     {-3, debugPopulate},
	"protocol":                     {3, debugProtocol},
	"change-repl-id":               {2, debugChangeReplID},
	"quicklist-packed-threshold":   {3, debugPackedThreshold},
	"listpack":                     {3, func(c *Ctx) { debugEncodingDump(c, "listpack", "Listpack structure printed on stdout") }},
	"quicklist":                    {-3, debugQuicklist},
	"set-skip-checksum-validation": {3, debugAccept},
	"set-disable-deny-scripts":     {3, debugSetDisableDenyScripts},
	"pause-cron":                   {3, debugAccept},
	"replybuffer":                  {4, debugReplyBuffer},
	"stringmatch-test":             {2, func(c *Ctx) { c.W.Status("Apparently Redis did not crash: test passed") }},
}

// debugHelp is DEBUG HELP's text: Redis 7.0's lines for the subcommands Strata serves.
var debugHelp = []string{
	"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CHANGE-REPL-ID",
	"    Change the replication IDs of the instance.",
	"    Dangerous: should be used only for testing the replication subsystem.",
	"DIGEST",
	"    Output a hex signature representing the current DB content.",
	"DIGEST-VALUE <key> [<key> ...]",
	"    Output a hex signature of the values of all the specified keys.",
	"ERROR <string>",
	"    Return a Redis protocol error with <string> as message. Useful for clients",
	"    unit tests to simulate Redis errors.",
	"LOG <message>",
	"    Write <message> to the server log.",
	"LOADAOF",
	"    Flush the AOF buffers on disk and reload the AOF in memory.",
	"OBJECT <key>",
	"    Show low level info about `key` and associated value.",
	"POPULATE <count> [<prefix>] [<size>]",
	"    Create <count> string keys named key:<num>. If <prefix> is specified then",
	"    it is used instead of the 'key' prefix. These are not propagated to",
	"    replicas. Cluster slots are not respected so keys not belonging to the",
	"    current node can be created in cluster mode.",
	"PROTOCOL <type>",
	"    Reply with a test value of the specified type. <type> can be: string,",
	"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
	"    true, false.",
	"RELOAD [option ...]",
	"    Save the RDB on disk and reload it back to memory. Valid <option> values:",
	"    * MERGE: conflicting keys will be loaded from RDB.",
	"    * NOFLUSH: the existing database will not be removed before load, but",
	"      conflicting keys will generate an exception and kill the server.",
	"    * NOSAVE: the database will be loaded from an existing RDB file.",
	"    Examples:",
	"    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
	"      the database.",
	"    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
	"      existing RDB file.",
	"    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
	"      file to the database.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Setting it to 0 disables expiring keys in background when they are not",
	"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
	"    default.",
	"QUICKLIST-PACKED-THRESHOLD <size>",
	"    Sets the threshold for elements to be inserted as plain vs packed nodes",
	"    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
	"SET-SKIP-CHECKSUM-VALIDATION <0|1>",
	"    Enables or disables checksum checks for RDB files and RESTORE's payload.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"STRINGMATCH-TEST",
	"    Run a fuzz tester against the stringmatchlen() function.",
	"LISTPACK <key>",
	"    Show low level info about the listpack encoding of <key>.",
	"QUICKLIST <key> [<0|1>]",
	"    Show low level info about the quicklist encoding of <key>.",
	"    The optional argument (0 by default) sets the level of detail",
	"PAUSE-CRON <0|1>",
	"    Stop periodic cron job processing.",
	"REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
	"    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
	"    In case NEVER is provided the last observed peak will never be reset",
	"    In case RESET is provided the peak reset time will be restored to the default value",
	"REPLYBUFFER RESIZING <0|1>",
	"    Enable or disable the reply buffer resize cron job",
	"HELP",
	"    Prints this help.",
}

// cmdDebug implements DEBUG, which the dispatcher refuses unless enable-debug-command allows
// it (FlagProtected). A subcommand Strata does not serve, or one with the wrong number of
// arguments, gets Redis's syntax error.
func cmdDebug(c *Ctx) {
	name := strings.ToLower(c.Arg(1))
	sub, ok := debugSubs[name]
	if !ok || !subArityOK(sub.arity, len(c.Args)) {
		name := c.Arg(1)
		if len(name) > 128 {
			name = name[:128]
		}
		c.W.Error(fmt.Sprintf(ErrSubSyntax, name, "DEBUG"))
		return
	}
	if c.Txn != nil && debugOwnTxn[name] {
		// Run by EXEC or a script, inside its transaction: a transaction of its own would wait
		// for it.
		c.W.Error("ERR DEBUG " + strings.ToUpper(name) + " cannot run inside MULTI or a script")
		return
	}
	sub.handler(c)
}

// debugOwnTxn lists the subcommands that open a transaction of their own (DEBUG SLEEP, which
// also does, only sleeps inside MULTI).
var debugOwnTxn = map[string]bool{"object": true, "digest": true, "digest-value": true, "reload": true,
	"loadaof": true, "populate": true, "listpack": true, "quicklist": true}

// debugAccept answers OK to a DEBUG switch that has no effect on Strata (it tunes a part of
// Redis that Strata does not have: the cron, the reply-buffer resizer, RDB checksums).
func debugAccept(c *Ctx) { c.W.OK() }

// debugSleep implements DEBUG SLEEP seconds: the whole keyspace is held exclusively for that
// long, so every command that reads or writes keys waits, as Redis stops for it. The seconds
// are read as C's strtod reads them (a bad number sleeps 0).
func debugSleep(c *Ctx) {
	if secs := cPrefixFloat(c.Arg(2)); secs > 0 {
		d := time.Duration(min(secs, 1e9) * float64(time.Second))
		if c.Txn != nil { // inside EXEC, whose transaction holds its keys already
			time.Sleep(d)
		} else {
			t := c.Store.BeginExclusive(c.Client.DB)
			time.Sleep(d)
			t.Abort()
		}
	}
	c.W.OK()
}

// cPrefixFloat parses the longest prefix of s (of its first 64 bytes) that is a decimal
// number, as strtod does for the plain forms, and 0 when there is none.
func cPrefixFloat(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	s = s[:min(len(s), 64)]
	for end := len(s); end > 0; end-- {
		if f, err := strconv.ParseFloat(s[:end], 64); err == nil || f != 0 && math.IsInf(f, 0) {
			return f
		}
	}
	return 0
}

// debugSetActiveExpire implements DEBUG SET-ACTIVE-EXPIRE 0|1 (read as atoi reads it).
func debugSetActiveExpire(c *Ctx) {
	c.Store.SetActiveExpire(num.CAtoi(c.Args[2]) != 0)
	c.W.OK()
}

// debugSetDisableDenyScripts implements DEBUG SET-DISABLE-DENY-SCRIPTS 0|1: with 1, scripts
// may call the commands flagged noscript (DEBUG itself, for Redis's test suite).
func debugSetDisableDenyScripts(c *Ctx) {
	if num.CAtoi(c.Args[2]) != 0 {
		denyScriptsOff.Store(c.Store, true)
	} else {
		denyScriptsOff.Delete(c.Store)
	}
	c.W.OK()
}

// denyScriptsOff holds the stores whose scripts may call noscript commands (DEBUG
// SET-DISABLE-DENY-SCRIPTS 1).
var denyScriptsOff sync.Map

// debugKeyMeta reads the metadata of key in the client's database for the DEBUG subcommands
// that look at one key, answering "no such key" when it is absent. A key whose time to live
// has passed but that is still stored is found, as Redis's DEBUG finds it. The caller aborts t.
func debugKeyMeta(c *Ctx, key []byte) (t *storage.Txn, m *storage.Meta, ok bool) {
	t = c.Store.BeginAt(c.Client.DB, [][]byte{key}, false, c.Now)
	t.KeepExpired()
	m, err := t.GetMeta(key)
	switch {
	case err != nil:
		c.Fail(err)
	case m == nil:
		c.W.Error(ErrNoSuchKey)
	default:
		return t, m, true
	}
	t.Abort()
	return nil, nil, false
}

// debugObject implements DEBUG OBJECT key: a status line in Redis's shape. "Value at" is a
// stable number derived from the key's database and name (Strata's values have no address);
// refcount and encoding are OBJECT's; serializedlength is the length of the value's DUMP
// encoding without its type byte and footer; lru is the LRU clock (seconds, 24 bits) of the
// key's last access and lru_seconds_idle the seconds since.
func debugObject(c *Ctx) {
	key := c.Args[2]
	t, m, ok := debugKeyMeta(c, key)
	if !ok {
		return
	}
	defer t.Abort()
	enc, err := objectEncoding(t, m)
	if err != nil {
		c.Fail(err)
		return
	}
	var n countWriter
	dw := rdb.NewDumpWriter(&n)
	if err := DumpValue(t, m, &dw.ValueWriter); err != nil {
		c.Fail(err)
		return
	}
	if err := dw.Close(); err != nil {
		c.Fail(err)
		return
	}
	refcount := 1
	if v, ok := redisInt(m); ok && m.Type == storage.TypeString && v >= 0 && v < 10000 {
		refcount = math.MaxInt32
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%d:", c.Client.DB)
	h.Write(key)
	idle := idleSeconds(c, key)
	lru := (time.Now().Unix() - idle) & (1<<24 - 1)
	c.W.Status(fmt.Sprintf("Value at:0x%x refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d",
		h.Sum64()&(1<<47-1)|1<<44, refcount, enc, n-1-rdbDumpFooter, lru, idle))
}

// rdbDumpFooter is the length of a DUMP payload's footer: the RDB version and the CRC64.
const rdbDumpFooter = 2 + 8

// countWriter counts the bytes written to it.
type countWriter int64

func (n *countWriter) Write(p []byte) (int, error) {
	*n += countWriter(len(p))
	return len(p), nil
}

var _ io.Writer = (*countWriter)(nil)

// debugEncodingDump answers DEBUG LISTPACK key: Redis prints the structure on its standard
// output; Strata has no packed structure to print, so it answers as Redis does for a key of
// another encoding unless OBJECT ENCODING reports want.
func debugEncodingDump(c *Ctx, want, printed string) {
	t, m, ok := debugKeyMeta(c, c.Args[2])
	if !ok {
		return
	}
	defer t.Abort()
	enc, err := objectEncoding(t, m)
	switch {
	case err != nil:
		c.Fail(err)
	case enc != want:
		c.W.Error("ERR Not a " + want + " encoded object.")
	default:
		c.W.Status(printed)
	}
}

// debugQuicklist implements DEBUG QUICKLIST key [0|1].
func debugQuicklist(c *Ctx) {
	if len(c.Args) > 4 {
		c.W.Error(fmt.Sprintf(ErrSubSyntax, c.Arg(1), "DEBUG"))
		return
	}
	debugEncodingDump(c, "quicklist", "Quicklist structure printed on stdout")
}

// debugPackedThreshold implements DEBUG QUICKLIST-PACKED-THRESHOLD size: the size is checked as
// Redis checks it; Strata stores list elements one record each whatever their size.
func debugPackedThreshold(c *Ctx) {
	n, err := config.ParseSize(c.Arg(2))
	if err != nil || n < 0 || n >= 1<<32 {
		c.W.Error("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
		return
	}
	c.W.OK()
}

// debugReplyBuffer implements DEBUG REPLYBUFFER PEAK-RESET-TIME|RESIZING value: checked as
// Redis checks it; Strata's reply buffers are sized per reply.
func debugReplyBuffer(c *Ctx) {
	switch strings.ToLower(c.Arg(2)) {
	case "peak-reset-time":
		if v := strings.ToLower(c.Arg(3)); v != "never" && v != "reset" {
			if _, ok := c.Int(3); !ok {
				return
			}
		}
	case "resizing":
	default:
		c.W.Error(fmt.Sprintf(ErrSubSyntax, c.Arg(1), "DEBUG"))
		return
	}
	c.W.OK()
}

// debugReload implements DEBUG RELOAD [MERGE|NOFLUSH|NOSAVE] and DEBUG LOADAOF: the store is
// closed and opened again from its files (storage.Store.Reload), which keeps every key.
func debugReload(c *Ctx) {
	var merge, noflush bool
	for _, a := range c.Args[2:] {
		switch strings.ToLower(string(a)) {
		case "merge":
			merge = true
		case "noflush":
			noflush = true
		case "nosave":
		default:
			c.W.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	if noflush && !merge && !storeEmpty(c) {
		// Loading what is already there without MERGE meets every key and library again,
		// which Redis refuses.
		c.W.Error("ERR Error trying to load the RDB dump")
		return
	}
	if err := c.Store.Reload(); err != nil {
		slog.Error("DEBUG RELOAD failed", "err", err)
		c.W.Error("ERR Error trying to load the RDB dump")
		return
	}
	c.W.OK()
}

// storeEmpty reports whether the store holds no key in any database and no function library.
func storeEmpty(c *Ctx) bool {
	for db := range c.Store.Databases() {
		if c.Store.DBSize(db) > 0 {
			return false
		}
	}
	libs, err := c.Store.FunctionLibraries()
	return err == nil && len(libs) == 0
}

// debugChangeReplID implements DEBUG CHANGE-REPL-ID.
func debugChangeReplID(c *Ctx) {
	d, ok := c.Env.(Debugger)
	if !ok {
		c.W.Error("ERR this command needs a running server")
		return
	}
	slog.Warn("Changing replication IDs after receiving DEBUG change-repl-id")
	d.ChangeReplicationID()
	c.W.OK()
}

// populateChunk is how many keys DEBUG POPULATE writes per transaction.
const populateChunk = 1000

// debugPopulate implements DEBUG POPULATE count [prefix] [size]: string keys prefix:N holding
// "value:N" (cut or padded with zero bytes to size when given), skipping keys that exist. The
// keys are written populateChunk at a time, each chunk in one transaction over its keys.
func debugPopulate(c *Ctx) {
	if len(c.Args) > 5 {
		c.W.Error(fmt.Sprintf(ErrSubSyntax, c.Arg(1), "DEBUG"))
		return
	}
	count, ok := debugPositive(c, 2)
	if !ok {
		return
	}
	prefix := "key"
	if len(c.Args) >= 4 {
		prefix = c.Arg(3)
	}
	var size int64
	if len(c.Args) == 5 {
		if size, ok = debugPositive(c, 4); !ok {
			return
		}
		if size > stringLimit(c) {
			c.W.Error(ErrStringTooLong)
			return
		}
	}
	for from := int64(0); from < count; from += populateChunk {
		n := min(count-from, populateChunk)
		keys := make([][]byte, n)
		for i := range keys {
			keys[i] = []byte(prefix + ":" + strconv.FormatInt(from+int64(i), 10))
		}
		t := c.Store.BeginAt(c.Client.DB, keys, true, c.Now)
		for i, k := range keys {
			if m, err := t.GetMeta(k); err != nil || m != nil {
				continue
			}
			v := []byte("value:" + strconv.FormatInt(from+int64(i), 10))
			if size > 0 {
				v = append(make([]byte, 0, size), v[:min(int64(len(v)), size)]...)
				v = v[:size]
			}
			if err := t.PutMeta(k, &storage.Meta{Type: storage.TypeString, Value: v}); err != nil {
				t.Abort()
				c.Fail(err)
				return
			}
		}
		if err := t.Commit(); err != nil {
			c.Fail(err)
			return
		}
	}
	c.W.OK()
}

// debugPositive parses argument i as a count that is not negative, with Redis's one error for
// anything else.
func debugPositive(c *Ctx, i int) (int64, bool) {
	n, err := num.ParseInt(c.Args[i])
	if err != nil || n < 0 {
		c.W.Error(ErrCountPositive)
		return 0, false
	}
	return n, true
}

// debugProtocol implements DEBUG PROTOCOL type: a sample reply of each RESP3 type, as RESP2
// shows it on a RESP2 connection.
func debugProtocol(c *Ctx) {
	w := c.W
	switch strings.ToLower(c.Arg(2)) {
	case "string":
		w.BulkString("Hello World")
	case "integer":
		w.Int(12345)
	case "double":
		w.Double(3.141)
	case "bignum":
		if w.Proto == 3 {
			w.Raw([]byte("(1234567999999999999999999999999999999\r\n"))
		} else {
			w.BulkString("1234567999999999999999999999999999999")
		}
	case "null":
		w.Null()
	case "array", "set":
		if strings.EqualFold(c.Arg(2), "set") {
			w.Set(3)
		} else {
			w.Array(3)
		}
		for j := range 3 {
			w.Int(int64(j))
		}
	case "map":
		w.Map(3)
		for j := range 3 {
			w.Int(int64(j))
			w.Bool(j == 1)
		}
	case "attrib":
		if w.Proto == 3 {
			w.Raw([]byte("|1\r\n"))
			w.BulkString("key-popularity")
			w.Array(2)
			w.BulkString("key:123")
			w.Int(90)
		}
		w.BulkString("Some real reply following the attribute")
	case "push":
		if w.Proto < 3 {
			w.Error("ERR RESP2 is not supported by this command")
			return
		}
		w.Push(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
		w.BulkString("Some real reply following the push reply")
	case "true":
		w.Bool(true)
	case "false":
		w.Bool(false)
	case "verbatim":
		w.Verbatim("This is a verbatim\nstring")
	default:
		w.Error("ERR Wrong protocol type name. Please use one of the following: " +
			"string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")
	}
}
