package config

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
)

// Redis 7.0's directives that Strata answers without acting on them, so that clients and tools
// that read or set them work (client libraries' test setups read maxmemory, slowlog-max-len,
// ...). docs/operations.md lists them. Each has one of three treatments:
//
//   - inertImmutable: Redis cannot change it while running either. CONFIG GET answers Strata's
//     value, CONFIG SET answers "can't set immutable config", a config file may only give that
//     value.
//   - inertFixed: Redis can change it, Strata has one value (maxmemory 0: the data lives on
//     disk and is never evicted). CONFIG SET and the config file accept that value only and
//     refuse others, saying why.
//   - inertStored: the value is checked as Redis checks it and stored, CONFIG GET reads it
//     back, CONFIG REWRITE writes it; it changes nothing (encoding thresholds, lazy freeing,
//     replication tuning, ...).
//
// Their values live in Config.inert, which holds only the directives set away from their
// defaults and is replaced, never modified, when one changes: copies of a Config made by
// assignment (CONFIG SET works on one) stay independent.

type inertMode int

const (
	inertImmutable inertMode = iota + 1
	inertFixed
	inertStored
)

// Redis's bounds, for the range errors it prints.
const (
	intMax   = math.MaxInt32
	intMin   = math.MinInt32
	longMax  = math.MaxInt64
	uintMax  = math.MaxUint32
	portMax  = 65535
	noMemory = "Strata keeps its data on disk and never evicts keys"
)

// inert builds a directive of Redis's that Strata does not act on. kind and the bounds or
// values check the value; fixed explains, for inertFixed, why only the default is accepted.
func inert(mode inertMode, name, alias, def string, k kind, lo, hi int64, values ...string) *directive {
	help := map[inertMode]string{
		inertImmutable: "Redis's directive, answered with Strata's value; no effect",
		inertFixed:     "Redis's directive; only Strata's value is accepted",
		inertStored:    "Redis's directive, checked and stored; no effect",
	}[mode]
	return &directive{Directive: Directive{Name: name, Default: def, Help: help}, kind: k, min: lo, max: hi,
		values: values, alias: alias, inert: mode}
}

func stored(name, alias, def string, k kind, lo, hi int64, values ...string) *directive {
	return inert(inertStored, name, alias, def, k, lo, hi, values...)
}

func immutable(name, alias, def string, k kind, lo, hi int64, values ...string) *directive {
	return inert(inertImmutable, name, alias, def, k, lo, hi, values...)
}

func fixed(why, name, alias, def string, k kind, lo, hi int64, values ...string) *directive {
	d := inert(inertFixed, name, alias, def, k, lo, hi, values...)
	d.why = why
	return d
}

// used marks a Redis directive stored as inertStored that Strata does act on, with its help.
func used(help string, d *directive) *directive { d.Help = help; return d }

func hidden(d *directive) *directive { d.hidden = true; return d }

// startup marks a stored directive that, as in Redis, only the config file or the command line
// sets: CONFIG SET answers that it is immutable.
func startup(d *directive) *directive { d.redisImmutable = true; return d }

// protected marks a directive Redis's CONFIG SET refuses unless enable-protected-configs is
// set, which Strata leaves at no.
func protected(d *directive) *directive { d.protected = true; return d }

var yesNo = []string{"yes", "no"}

var inertDirectives = []*directive{
	// Memory: Strata keeps the data on disk.
	fixed(noMemory+"; only 0 (no limit) is accepted", "maxmemory", "", "0", kindSize, 0, longMax),
	used("eviction policy; Strata never evicts (maxmemory is 0), an LFU policy makes OBJECT track access frequencies instead of idle times",
		stored("maxmemory-policy", "", "noeviction", kindEnum, 0, 0,
			"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu",
			"allkeys-random", "noeviction")),
	fixed("Strata does not evict clients by memory; only 0 is accepted", "maxmemory-clients", "", "0", kindSize, 0, longMax),
	stored("maxmemory-samples", "", "5", kindInt, 1, intMax),
	stored("maxmemory-eviction-tenacity", "", "10", kindInt, 0, 100),
	stored("lfu-log-factor", "", "10", kindInt, 0, intMax),
	stored("lfu-decay-time", "", "1", kindInt, 0, intMax),
	stored("activedefrag", "", "no", kindBool, 0, 0),
	stored("active-defrag-cycle-min", "", "1", kindInt, 1, 99),
	stored("active-defrag-cycle-max", "", "25", kindInt, 1, 99),
	stored("active-defrag-threshold-lower", "", "10", kindInt, 0, 1000),
	stored("active-defrag-threshold-upper", "", "100", kindInt, 0, 1000),
	stored("active-defrag-ignore-bytes", "", "104857600", kindSize, 1, longMax),
	stored("active-defrag-max-scan-fields", "", "1000", kindInt, 1, longMax),
	stored("active-expire-effort", "", "1", kindInt, 1, 10),
	stored("activerehashing", "", "yes", kindBool, 0, 0),
	stored("dynamic-hz", "", "yes", kindBool, 0, 0),
	stored("jemalloc-bg-thread", "", "yes", kindBool, 0, 0),
	stored("lazyfree-lazy-eviction", "", "no", kindBool, 0, 0),
	stored("lazyfree-lazy-expire", "", "no", kindBool, 0, 0),
	stored("lazyfree-lazy-server-del", "", "no", kindBool, 0, 0),
	stored("lazyfree-lazy-user-del", "", "no", kindBool, 0, 0),
	stored("lazyfree-lazy-user-flush", "", "no", kindBool, 0, 0),

	// Encodings: the thresholds of the packed hashes, sets and sorted sets (storage.PackLimits).
	used("fields of a hash kept in one record", stored("hash-max-listpack-entries", "hash-max-ziplist-entries", "512", kindInt, 0, longMax)),
	used("longest field or value of a hash kept in one record", stored("hash-max-listpack-value", "hash-max-ziplist-value", "64", kindSize, 0, longMax)),
	used("members of a sorted set kept in one record", stored("zset-max-listpack-entries", "zset-max-ziplist-entries", "128", kindInt, 0, longMax)),
	used("longest member of a sorted set kept in one record", stored("zset-max-listpack-value", "zset-max-ziplist-value", "64", kindSize, 0, longMax)),
	used("members of an all-integer set kept in one record", stored("set-max-intset-entries", "", "512", kindInt, 0, longMax)),
	// 32, not Redis's -2: Strata rewrites a list's end node per push (storage.DefaultListFill).
	stored("list-max-listpack-size", "list-max-ziplist-size", "32", kindInt, intMin, intMax),
	stored("list-compress-depth", "", "0", kindInt, 0, intMax),
	stored("hll-sparse-max-bytes", "", "3000", kindSize, 0, longMax),
	stored("stream-node-max-bytes", "", "4096", kindSize, 0, longMax),
	stored("stream-node-max-entries", "", "100", kindInt, 0, longMax),

	// Persistence: Strata journals every write in LevelDB (appendonly, appendfsync).
	stored("stop-writes-on-bgsave-error", "", "yes", kindBool, 0, 0),
	used("yes: strings in the snapshot a replica gets are LZF-compressed", stored("rdbcompression", "", "yes", kindBool, 0, 0)),
	stored("rdb-save-incremental-fsync", "", "yes", kindBool, 0, 0),
	stored("rdb-del-sync-files", "", "no", kindBool, 0, 0),
	stored("aof-rewrite-incremental-fsync", "", "yes", kindBool, 0, 0),
	stored("aof-load-truncated", "", "yes", kindBool, 0, 0),
	stored("aof-use-rdb-preamble", "", "yes", kindBool, 0, 0),
	stored("aof-timestamp-enabled", "", "no", kindBool, 0, 0),
	stored("aof-disable-auto-gc", "", "no", kindBool, 0, 0),
	stored("auto-aof-rewrite-percentage", "", "100", kindInt, 0, intMax),
	stored("auto-aof-rewrite-min-size", "", "67108864", kindSize, 0, longMax),
	stored("no-appendfsync-on-rewrite", "", "no", kindBool, 0, 0),
	protected(fixed("Strata's snapshots are BGSAVE's copies in backup-dir; only dump.rdb is accepted", "dbfilename", "", "dump.rdb", kindString, 0, 0)),
	immutable("appendfilename", "", "appendonly.aof", kindString, 0, 0),
	immutable("appenddirname", "", "appendonlydir", kindString, 0, 0),
	immutable("rdbchecksum", "", "yes", kindBool, 0, 0),
	stored("sanitize-dump-payload", "", "no", kindEnum, 0, 0, "no", "yes", "clients"),

	// Monitoring: stored for SLOWLOG and LATENCY.
	stored("slowlog-log-slower-than", "", "10000", kindInt, -1, longMax),
	stored("slowlog-max-len", "", "128", kindInt, 0, longMax),
	stored("latency-monitor-threshold", "", "0", kindInt, 0, longMax),
	stored("latency-tracking", "", "yes", kindBool, 0, 0),
	stored("latency-tracking-info-percentiles", "", "50 99 99.9", kindPercentiles, 0, 0),

	// Replication. The replica side (server/replica.go) and the master side (server/master.go)
	// read the directives marked used.
	used("password sent with AUTH to the master of a replica", stored("masterauth", "", "", kindString, 0, 0)),
	used("user sent with AUTH to the master of a replica", stored("masteruser", "", "", kindString, 0, 0)),
	used("yes: a replica refuses writes from its clients (READONLY)", stored("replica-read-only", "slave-read-only", "yes", kindBool, 0, 0)),
	used("no: while its link is down a replica answers MASTERDOWN to commands not flagged stale", stored("replica-serve-stale-data", "slave-serve-stale-data", "yes", kindBool, 0, 0)),
	used("a replica's priority for promotion, reported in INFO replication", stored("replica-priority", "slave-priority", "100", kindInt, 0, intMax)),
	used("seconds after which a replica drops a silent link to its master", stored("repl-timeout", "", "60", kindInt, 1, intMax)),
	used("address a replica announces to its master (REPLCONF ip-address); empty: none", stored("replica-announce-ip", "slave-announce-ip", "", kindString, 0, 0)),
	used("port a replica announces to its master (REPLCONF listening-port); 0: its own", stored("replica-announce-port", "slave-announce-port", "0", kindInt, 0, portMax)),
	used("writes are refused (NOREPLICAS) while fewer replicas than this acknowledged within min-replicas-max-lag; 0: off", stored("min-replicas-to-write", "min-slaves-to-write", "0", kindInt, 0, intMax)),
	used("seconds since its last ACK within which a replica counts for min-replicas-to-write", stored("min-replicas-max-lag", "min-slaves-max-lag", "10", kindInt, 0, intMax)),
	used("bytes of the replication stream kept for partial resynchronisations", stored("repl-backlog-size", "", "1048576", kindSize, 1, longMax)),
	used("seconds without replicas after which the backlog is freed; 0: never", stored("repl-backlog-ttl", "", "3600", kindInt, 0, longMax)),
	used("seconds between the PINGs a master sends its replicas", stored("repl-ping-replica-period", "repl-ping-slave-period", "10", kindInt, 1, intMax)),
	stored("repl-disable-tcp-nodelay", "", "no", kindBool, 0, 0),
	used("yes: a full synchronisation streams its snapshot to a replica that takes it ($EOF:<mark>); no: spilled to a file in the data directory first", stored("repl-diskless-sync", "", "yes", kindBool, 0, 0)),
	stored("repl-diskless-sync-delay", "", "5", kindInt, 0, intMax),
	stored("repl-diskless-sync-max-replicas", "", "0", kindInt, 0, intMax),
	stored("repl-diskless-load", "", "disabled", kindEnum, 0, 0, "disabled", "on-empty-db", "swapdb"),
	stored("replica-lazy-flush", "slave-lazy-flush", "no", kindBool, 0, 0),
	stored("replica-ignore-maxmemory", "slave-ignore-maxmemory", "yes", kindBool, 0, 0),
	stored("replica-ignore-disk-write-errors", "", "no", kindBool, 0, 0),
	stored("replica-announced", "", "yes", kindBool, 0, 0),
	stored("propagation-error-behavior", "", "ignore", kindEnum, 0, 0, "ignore", "panic", "panic-on-replicas"),
	immutable("cluster-enabled", "", "no", kindBool, 0, 0),
	immutable("cluster-config-file", "", "nodes.conf", kindString, 0, 0),
	immutable("cluster-port", "", "0", kindInt, 0, portMax),
	stored("cluster-node-timeout", "", "15000", kindInt, 0, longMax),
	stored("cluster-announce-ip", "", "", kindString, 0, 0),
	stored("cluster-announce-hostname", "", "", kindString, 0, 0),
	stored("cluster-announce-port", "", "0", kindInt, 0, portMax),
	stored("cluster-announce-bus-port", "", "0", kindInt, 0, portMax),
	stored("cluster-announce-tls-port", "", "0", kindInt, 0, portMax),
	stored("cluster-preferred-endpoint-type", "", "ip", kindEnum, 0, 0, "ip", "hostname", "unknown-endpoint"),
	stored("cluster-migration-barrier", "", "1", kindInt, 0, intMax),
	stored("cluster-replica-validity-factor", "cluster-slave-validity-factor", "10", kindInt, 0, intMax),
	stored("cluster-replica-no-failover", "cluster-slave-no-failover", "no", kindBool, 0, 0),
	stored("cluster-require-full-coverage", "", "yes", kindBool, 0, 0),
	stored("cluster-allow-reads-when-down", "", "no", kindBool, 0, 0),
	stored("cluster-allow-pubsubshard-when-down", "", "yes", kindBool, 0, 0),
	stored("cluster-allow-replica-migration", "", "yes", kindBool, 0, 0),
	stored("cluster-link-sendbuf-limit", "", "0", kindSize, 0, longMax),

	// ACL: new users get no channels (Strata's ACL rules).
	fixed("Strata's new users get no channels; only resetchannels is accepted", "acl-pubsub-default", "", "resetchannels", kindEnum, 0, 0,
		"allchannels", "resetchannels"),

	// TLS: Strata's listener takes tls-port, tls-cert-file, tls-key-file, tls-ca-cert-file and
	// tls-auth-clients; it does not tune the rest, so only their defaults are accepted.
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-ca-cert-dir", "", "", kindString, 0, 0),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-client-cert-file", "", "", kindString, 0, 0),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-client-key-file", "", "", kindString, 0, 0),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-client-key-file-pass", "", "", kindString, 0, 0),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-key-file-pass", "", "", kindString, 0, 0),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-dh-params-file", "", "", kindString, 0, 0),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-ciphers", "", "", kindString, 0, 0),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-ciphersuites", "", "", kindString, 0, 0),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-protocols", "", "", kindString, 0, 0),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-prefer-server-ciphers", "", "no", kindBool, 0, 0),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-session-caching", "", "yes", kindBool, 0, 0),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-session-cache-size", "", "20480", kindInt, 0, intMax),
	fixed("Strata's TLS listener does not take this setting; only its default is accepted", "tls-session-cache-timeout", "", "300", kindInt, 0, intMax),
	fixed("Strata has no replicas; only no is accepted", "tls-replication", "", "no", kindBool, 0, 0),
	fixed("Strata runs no cluster; only no is accepted", "tls-cluster", "", "no", kindBool, 0, 0),

	// The process: Strata runs in the foreground, logs through its own logger, listens on TCP.
	immutable("daemonize", "", "no", kindBool, 0, 0),
	immutable("supervised", "", "no", kindEnum, 0, 0, "upstart", "systemd", "auto", "no"),
	immutable("pidfile", "", "", kindString, 0, 0),
	immutable("unixsocket", "", "", kindString, 0, 0),
	immutable("unixsocketperm", "", "0", kindInt, 0, 0o777),
	immutable("tcp-backlog", "", "511", kindInt, 0, intMax),
	immutable("socket-mark-id", "", "0", kindInt, 0, uintMax),
	immutable("io-threads", "", "1", kindInt, 1, 128),
	immutable("io-threads-do-reads", "", "no", kindBool, 0, 0),
	immutable("always-show-logo", "", "no", kindBool, 0, 0),
	immutable("set-proc-title", "", "yes", kindBool, 0, 0),
	immutable("disable-thp", "", "yes", kindBool, 0, 0),
	immutable("syslog-enabled", "", "no", kindBool, 0, 0),
	immutable("syslog-ident", "", "redis", kindString, 0, 0),
	immutable("syslog-facility", "", "local0", kindEnum, 0, 0,
		"user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"),
	immutable("enable-protected-configs", "", "no", kindEnum, 0, 0, "no", "yes", "local"),
	startup(used("who may run DEBUG: no, yes, or local (loopback connections only); set at start-up",
		stored("enable-debug-command", "", "no", kindEnum, 0, 0, "no", "yes", "local"))),
	startup(used("who may run MODULE LOAD and UNLOAD (which Strata refuses): no, yes or local; set at start-up",
		stored("enable-module-command", "", "no", kindEnum, 0, 0, "no", "yes", "local"))),
	immutable("server_cpulist", "", "", kindString, 0, 0),
	immutable("bio_cpulist", "", "", kindString, 0, 0),
	immutable("aof_rewrite_cpulist", "", "", kindString, 0, 0),
	immutable("bgsave_cpulist", "", "", kindString, 0, 0),
	fixed("Strata does not change its OOM score; only no is accepted", "oom-score-adj", "", "no", kindEnum, 0, 0,
		"no", "yes", "relative", "absolute"),
	fixed("Strata does not change its OOM score; only its default is accepted", "oom-score-adj-values", "", "0 200 800", kindString, 0, 0),
	stored("bind-source-addr", "", "", kindString, 0, 0),
	stored("proc-title-template", "", "{title} {listen-addr} {server-mode}", kindString, 0, 0),
	stored("ignore-warnings", "", "", kindString, 0, 0),
	stored("crash-log-enabled", "", "yes", kindBool, 0, 0),
	stored("crash-memcheck-enabled", "", "yes", kindBool, 0, 0),
	stored("shutdown-timeout", "", "10", kindInt, 0, intMax),
	stored("shutdown-on-sigint", "", "default", kindFlags, 0, 0, "default", "save", "nosave", "now", "force"),
	stored("shutdown-on-sigterm", "", "default", kindFlags, 0, 0, "default", "save", "nosave", "now", "force"),

	// Redis's test hooks: answered by exact name only, as Redis does.
	hidden(stored("key-load-delay", "", "0", kindInt, intMin, intMax)),
	hidden(stored("rdb-key-save-delay", "", "0", kindInt, intMin, intMax)),
	hidden(stored("loading-process-events-interval-bytes", "", "2097152", kindInt, 1024, intMax)),
	hidden(stored("watchdog-period", "", "0", kindInt, 0, intMax)),
	hidden(stored("use-exit-on-panic", "", "no", kindBool, 0, 0)),
	hidden(immutable("lua-enable-deprecated-api", "", "no", kindBool, 0, 0)),
}

// inertValue returns the value of an inert directive in c.
func (d *directive) inertValue(c *Config) string {
	if v, ok := c.inert[d.Name]; ok {
		return v
	}
	return d.Default
}

// setInert checks args as Redis checks the directive's value and stores it in c.
func (d *directive) setInert(c *Config, args []string) error {
	v, err := d.normalize(strings.Join(args, " "))
	if err != nil {
		return err
	}
	if d.inert != inertStored && v != d.Default {
		if d.why != "" {
			return errors.New(d.why)
		}
		return fmt.Errorf("Strata runs with %s %q only", d.Name, d.Default)
	}
	if v == d.inertValue(c) {
		return nil
	}
	m := maps.Clone(c.inert)
	if m == nil {
		m = map[string]string{}
	}
	m[d.Name] = v
	c.inert = m
	return nil
}

// normalize checks v as Redis's CONFIG SET checks the directive, with its error texts, and
// returns the value as CONFIG GET prints it.
func (d *directive) normalize(v string) (string, error) {
	switch d.kind {
	case kindBool:
		switch strings.ToLower(v) {
		case "yes", "no":
			return strings.ToLower(v), nil
		}
		return "", errors.New("argument must be 'yes' or 'no'")
	case kindInt, kindSize:
		var n int64
		var err error
		if d.kind == kindSize {
			n, err = parseSize(v)
		} else {
			n, err = strconv.ParseInt(v, 10, 64)
		}
		if err != nil {
			if d.kind == kindSize {
				return "", errors.New("argument must be a memory value")
			}
			return "", errors.New("argument couldn't be parsed into an integer")
		}
		if n < d.min || n > d.max {
			return "", fmt.Errorf("argument must be between %d and %d inclusive", d.min, d.max)
		}
		return strconv.FormatInt(n, 10), nil
	case kindEnum:
		for _, e := range d.values {
			if strings.EqualFold(v, e) {
				return e, nil
			}
		}
		return "", enumError(d.values)
	case kindFlags:
		words := strings.Fields(strings.ToLower(v))
		set := map[string]bool{}
		for _, w := range words {
			if !containsString(d.values, w) {
				return "", enumError(d.values)
			}
			set[w] = true
		}
		if set["save"] && set["nosave"] {
			return "", errors.New("shutdown options SAVE and NOSAVE can't be used simultaneously")
		}
		var out []string
		for _, e := range d.values[1:] { // Redis prints the flags in its order, "default" for none
			if set[e] {
				out = append(out, e)
			}
		}
		if len(out) == 0 {
			return d.values[0], nil
		}
		return strings.Join(out, " "), nil
	case kindPercentiles:
		words := strings.Fields(v)
		for i, w := range words {
			f, err := strconv.ParseFloat(w, 64)
			if err != nil {
				return "", errors.New("Invalid latency-tracking-info-percentiles parameters")
			}
			if f < 0 || f > 100 {
				return "", errors.New("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]")
			}
			words[i] = strconv.FormatFloat(f, 'f', -1, 64)
		}
		return strings.Join(words, " "), nil
	}
	return v, nil
}

func enumError(values []string) error {
	return errors.New("argument(s) must be one of the following: " + strings.Join(values, ", "))
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// Inert reports whether name is one of Redis's directives that Strata answers without acting
// on (docs/operations.md lists them), rather than one of Strata's own.
func Inert(name string) bool {
	d := lookup(name)
	return d != nil && d.inert != 0
}
