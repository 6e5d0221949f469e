// Package config holds Strata's server configuration: the defaults, the
// redis.conf-style file format, command-line overrides and the
// CONFIG GET/SET view of every directive.
package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Config holds every directive's effective value.
type Config struct {
	Bind                   []string // default ["127.0.0.1"]
	Port                   int      // default 6380; 0 means a random free port
	Dir                    string   // default "./data"
	Databases              int      // default 16, must be 1..10000
	LogLevel               string   // debug|verbose|notice|warning (redis names), default notice
	LogFile                string   // "" = stderr
	RequirePass            string   // "" = no auth
	MaxClients             int      // default 10000
	Timeout                int      // idle client timeout seconds, 0 = never
	TCPKeepAlive           int      // seconds, default 300
	IOModel                string   // loop|goroutine: how client connections are served, default loop
	IOLoops                int      // event loops of io-model loop, default 1; 0 = GOMAXPROCS
	ProtoMaxBulkLen        int64    // default 512mb, min 1mb
	ClientQueryBufferLimit int64    // default 1gb
	AppendFsync            string   // always|everysec|no, default everysec
	MetricsAddr            string   // default "127.0.0.1:9121"; "" disables
	LevelDBBlockSize       int      // default 4096 (4kb)
	LevelDBWriteBufferSize int      // default 64mb
	LevelDBBlockCacheSize  int64    // default 256mb
	LevelDBCompression     string   // none|snappy, default snappy
	LevelDBMaxOpenFiles    int      // default 1000
	LevelDBBloomBits       int      // default 10, 0 disables the bloom filter
	ActiveExpireHz         int      // "hz", default 10, 1..500
	KeyCacheSize           int64    // bytes of key metadata cached in memory, default 64mb; 0 disables
	BackupDir              string   // where BGSAVE writes its copy, default "./backup"
	CompactCron            string   // five-field cron schedule for a full compaction, default "" (off)
	MetricsPprof           string   // "yes" serves /debug/pprof on the metrics listener, default "no"
	BusyReplyThreshold     int      // "busy-reply-threshold" (alias "lua-time-limit"), ms a script runs before BUSY, default 5000; 0 never
	AppendOnly             string   // always "yes", for Redis tools that ask
	Save                   string   // always "", for Redis tools that ask
	LargeValueThreshold    int64    // strings of at least this many bytes go to the value log, default 64kb; 0 never
	ValueLogGCRatio        string   // garbage share (0 < r <= 1) at which a value-log file is collected, default "0.5"
	NotifyKeyspaceEvents   string   // keyspace-notification classes as Redis prints them ("AKE"), default "" (off)
	OutputBufferLimit      string   // "normal H S T slave H S T pubsub H S T", Redis's default

	// Who may connect: protected mode, ACL users, TLS (server/acl.go, server/tls.go).
	ProtectedMode  string // "yes" (default): without a password, refuse non-loopback clients
	ACLFile        string // users file for ACL LOAD/SAVE and startup; "" = none
	ACLLogMaxLen   int    // entries ACL LOG keeps, default 128
	TLSPort        int    // second listener speaking TLS; 0 (default) = none
	TLSCertFile    string // server certificate (PEM)
	TLSKeyFile     string // server private key (PEM)
	TLSCACertFile  string // CA bundle that client certificates must chain to
	TLSAuthClients string // yes (default): clients need a certificate; optional; no

	// Client-side caching (server/tracking.go).
	TrackingTableMaxKeys int64 // keys remembered for CLIENT TRACKING clients, default 1000000; 0 = no limit

	// Replication (server/replica.go).
	ReplicaOf string // "host port" of the master to replicate from; "" = a master

	// inert holds the Redis directives Strata answers without acting on them (redis.go) that
	// were set away from their defaults. It is replaced, never modified, when one changes.
	inert map[string]string
}

// Directive describes one directive: its name, its default as text, a one-line help.
type Directive struct{ Name, Default, Help string }

const (
	kb = 1024
	mb = 1024 * kb
	gb = 1024 * mb

	maxBindAddrs = 16
)

// Default returns a Config holding the default value of every directive.
func Default() *Config {
	return &Config{
		Bind:                   []string{"127.0.0.1"},
		Port:                   6380,
		Dir:                    "./data",
		Databases:              16,
		LogLevel:               "notice",
		LogFile:                "",
		RequirePass:            "",
		MaxClients:             10000,
		Timeout:                0,
		TCPKeepAlive:           300,
		IOModel:                "loop",
		IOLoops:                1,
		ProtoMaxBulkLen:        512 * mb,
		ClientQueryBufferLimit: 1 * gb,
		AppendFsync:            "everysec",
		MetricsAddr:            "127.0.0.1:9121",
		LevelDBBlockSize:       4 * kb,
		LevelDBWriteBufferSize: 64 * mb,
		LevelDBBlockCacheSize:  256 * mb,
		LevelDBCompression:     "snappy",
		LevelDBMaxOpenFiles:    1000,
		LevelDBBloomBits:       10,
		ActiveExpireHz:         10,
		KeyCacheSize:           64 * mb,
		BackupDir:              "./backup",
		CompactCron:            "",
		MetricsPprof:           "no",
		BusyReplyThreshold:     5000,
		AppendOnly:             "yes",
		LargeValueThreshold:    64 * kb,
		ValueLogGCRatio:        "0.5",
		NotifyKeyspaceEvents:   "",
		OutputBufferLimit:      defaultOutputLimits,
		ProtectedMode:          "yes",
		ACLLogMaxLen:           128,
		TLSAuthClients:         "yes",
		TrackingTableMaxKeys:   1000000,
	}
}

// kind says how a directive's argument words are parsed.
type kind int

const (
	kindInt         kind = iota // decimal integer
	kindSize                    // byte count with optional Redis memory unit
	kindString                  // any single word
	kindEnum                    // one of a fixed set of words, case-insensitive
	kindList                    // one or more words
	kindBool                    // yes or no, case-insensitive (redis.go)
	kindFlags                   // words of a fixed set, printed in the set's order (redis.go)
	kindPercentiles             // numbers from 0 to 100 (redis.go)
)

// directive is the internal description of one directive.
type directive struct {
	Directive
	kind     kind
	min, max int64              // inclusive range for kindInt and kindSize
	values   []string           // allowed values for kindEnum
	alias    string             // another name the directive answers to (Redis's old name)
	check    func(string) error // extra check for kindString and each kindList word
	field    func(*Config) any  // pointer to the Config field: *int, *int64, *string or *[]string

	// canon, for a kindString directive, turns the argument words (joined by spaces) into the
	// stored value, given the current one: Redis's normal form, or a merge into it.
	canon func(cur, arg string) (string, error)
	// show, when set, turns the stored value into what Get reports.
	show func(string) string

	// redisImmutable marks a directive Redis cannot change while it runs: CONFIG SET refuses
	// it whatever the value. protected marks one Redis's CONFIG SET refuses while
	// enable-protected-configs is no, as Strata's is.
	redisImmutable, protected bool
	// inert, for Redis's directives that Strata does not act on (redis.go), says how they are
	// treated; they have no field. why explains an inertFixed directive's refusals.
	inert  inertMode
	why    string
	hidden bool // CONFIG GET answers it by its exact name only
}

var directives = []*directive{
	{Directive: Directive{"bind", "127.0.0.1", "addresses to listen on, all at the same port (space separated; a leading - makes one optional, * is every IPv4 address, ::* every IPv6 one)"},
		kind: kindList, min: 1, max: maxBindAddrs, check: nonEmpty,
		field: func(c *Config) any { return &c.Bind }},
	{Directive: Directive{"port", "6380", "TCP port to listen on; 0 picks a random free port"},
		kind: kindInt, min: 0, max: 65535,
		field: func(c *Config) any { return &c.Port }},
	{Directive: Directive{"dir", "./data", "directory holding the LevelDB database"},
		kind: kindString, check: nonEmpty, protected: true,
		field: func(c *Config) any { return &c.Dir }},
	{Directive: Directive{"databases", "16", "number of logical databases (1..10000)"},
		kind: kindInt, min: 1, max: 10000, redisImmutable: true,
		field: func(c *Config) any { return &c.Databases }},
	{Directive: Directive{"loglevel", "notice", "log verbosity: debug, verbose, notice or warning"},
		kind: kindEnum, values: []string{"debug", "verbose", "notice", "warning"},
		field: func(c *Config) any { return &c.LogLevel }},
	{Directive: Directive{"logfile", "", "log file path; empty logs to stderr"},
		kind: kindString, redisImmutable: true,
		field: func(c *Config) any { return &c.LogFile }},
	{Directive: Directive{"requirepass", "", "password clients must AUTH with; empty disables authentication"},
		kind:  kindString,
		field: func(c *Config) any { return &c.RequirePass }},
	{Directive: Directive{"maxclients", "10000", "maximum number of connected clients"},
		kind: kindInt, min: 1, max: math.MaxInt32,
		field: func(c *Config) any { return &c.MaxClients }},
	{Directive: Directive{"timeout", "0", "close clients idle for this many seconds; 0 never"},
		kind: kindInt, min: 0, max: math.MaxInt32,
		field: func(c *Config) any { return &c.Timeout }},
	{Directive: Directive{"tcp-keepalive", "300", "TCP keepalive period in seconds; 0 disables"},
		kind: kindInt, min: 0, max: math.MaxInt32,
		field: func(c *Config) any { return &c.TCPKeepAlive }},
	{Directive: Directive{"io-model", "loop", "how client connections are served: loop (a few event loops, each owning many connections) or goroutine (one goroutine per connection); read at start"},
		kind: kindEnum, values: []string{"loop", "goroutine"},
		field: func(c *Config) any { return &c.IOModel }},
	{Directive: Directive{"io-loops", "1", "event loops of io-model loop, read at start; 0 means one per GOMAXPROCS"},
		kind: kindInt, min: 0, max: 1024,
		field: func(c *Config) any { return &c.IOLoops }},
	{Directive: Directive{"proto-max-bulk-len", "512mb", "maximum size of one bulk string in a request (at least 1mb)"},
		kind: kindSize, min: 1 * mb, max: math.MaxInt64,
		field: func(c *Config) any { return &c.ProtoMaxBulkLen }},
	{Directive: Directive{"client-query-buffer-limit", "1gb", "maximum size of one client's query buffer (at least 1mb)"},
		kind: kindSize, min: 1 * mb, max: math.MaxInt64,
		field: func(c *Config) any { return &c.ClientQueryBufferLimit }},
	{Directive: Directive{"appendfsync", "everysec", "when to fsync writes: always, everysec or no"},
		kind: kindEnum, values: []string{"always", "everysec", "no"},
		field: func(c *Config) any { return &c.AppendFsync }},
	{Directive: Directive{"appendonly", "yes", "always yes: every write goes to the journal, synced as appendfsync says (answered for Redis tools)"},
		kind: kindEnum, values: []string{"yes"},
		field: func(c *Config) any { return &c.AppendOnly }},
	{Directive: Directive{"save", "", `Redis's snapshot schedule: always "" (no scheduled snapshots; BGSAVE and SAVE take one)`},
		kind: kindString, check: func(s string) error {
			if s != "" {
				return fmt.Errorf("Strata takes no scheduled snapshots; only \"\" is accepted (BGSAVE takes one)")
			}
			return nil
		},
		field: func(c *Config) any { return &c.Save }},
	{Directive: Directive{"metrics-addr", "127.0.0.1:9121", "host:port of the metrics HTTP endpoint; empty disables it"},
		kind: kindString, check: checkHostPort,
		field: func(c *Config) any { return &c.MetricsAddr }},
	{Directive: Directive{"leveldb-block-size", "4kb", "LevelDB uncompressed block size"},
		kind: kindSize, min: 1 * kb, max: 1 * gb,
		field: func(c *Config) any { return &c.LevelDBBlockSize }},
	{Directive: Directive{"leveldb-write-buffer-size", "64mb", "LevelDB memtable size before it is flushed to disk"},
		kind: kindSize, min: 1 * mb, max: 1 * gb,
		field: func(c *Config) any { return &c.LevelDBWriteBufferSize }},
	{Directive: Directive{"leveldb-block-cache-size", "256mb", "LevelDB block cache size; 0 disables the cache"},
		kind: kindSize, min: 0, max: math.MaxInt64,
		field: func(c *Config) any { return &c.LevelDBBlockCacheSize }},
	{Directive: Directive{"leveldb-compression", "snappy", "LevelDB block compression: none or snappy"},
		kind: kindEnum, values: []string{"none", "snappy"},
		field: func(c *Config) any { return &c.LevelDBCompression }},
	{Directive: Directive{"leveldb-max-open-files", "1000", "maximum number of LevelDB table files kept open"},
		kind: kindInt, min: 1, max: math.MaxInt32,
		field: func(c *Config) any { return &c.LevelDBMaxOpenFiles }},
	{Directive: Directive{"leveldb-bloom-bits", "10", "LevelDB bloom filter bits per key (0..64); 0 disables the filter"},
		kind: kindInt, min: 0, max: 64,
		field: func(c *Config) any { return &c.LevelDBBloomBits }},
	{Directive: Directive{"hz", "10", "active key expiry cycles per second (1..500)"},
		kind: kindInt, min: 1, max: 500,
		field: func(c *Config) any { return &c.ActiveExpireHz }},
	{Directive: Directive{"key-cache-size", "64mb", "memory for recently used key metadata (type, expiry, small values); 0 disables it"},
		kind: kindSize, min: 0, max: math.MaxInt64,
		field: func(c *Config) any { return &c.KeyCacheSize }},
	{Directive: Directive{"backup-dir", "./backup", "directory BGSAVE writes its point-in-time copy to"},
		kind: kindString, check: nonEmpty,
		field: func(c *Config) any { return &c.BackupDir }},
	{Directive: Directive{"compact-cron", "", "cron schedule (minute hour day month weekday) of a full compaction, e.g. \"0 4 * * *\"; empty disables it"},
		kind: kindString, check: checkCronFields,
		field: func(c *Config) any { return &c.CompactCron }},
	{Directive: Directive{"metrics-pprof", "no", "serve /debug/pprof on the metrics listener: yes or no"},
		kind: kindEnum, values: []string{"yes", "no"},
		field: func(c *Config) any { return &c.MetricsPprof }},
	{Directive: Directive{"busy-reply-threshold", "5000", "milliseconds a script may run before other clients get BUSY and SCRIPT KILL can stop it; 0 never (alias lua-time-limit)"},
		kind: kindInt, min: 0, max: math.MaxInt32, alias: "lua-time-limit",
		field: func(c *Config) any { return &c.BusyReplyThreshold }},
	{Directive: Directive{"large-value-threshold", "64kb", "strings of at least this size are stored in the value log (<dir>/vlog) instead of LevelDB; 0 never"},
		kind: kindSize, min: 0, max: 512 * mb,
		field: func(c *Config) any { return &c.LargeValueThreshold }},
	{Directive: Directive{"value-log-gc-ratio", "0.5", "share of garbage (above 0, at most 1) at which a value-log file is rewritten and deleted"},
		kind: kindString, check: checkRatio,
		field: func(c *Config) any { return &c.ValueLogGCRatio }},
	{Directive: Directive{"notify-keyspace-events", "", "keyspace notification classes, Redis's letters (K E g $ l s h z x e t m n A); empty disables them"},
		kind: kindString, check: checkKeyspaceEvents, canon: canonKeyspaceEvents, show: showKeyspaceEvents,
		field: func(c *Config) any { return &c.NotifyKeyspaceEvents }},
	{Directive: Directive{"client-output-buffer-limit", defaultOutputLimits, "per client class (normal, replica, pubsub): hard limit, soft limit, soft seconds; a subscriber past them is disconnected"},
		kind: kindString, check: checkOutputLimits, canon: canonOutputLimits,
		field: func(c *Config) any { return &c.OutputBufferLimit }},
	{Directive: Directive{"protected-mode", "yes", "yes: while the default user has no password, only loopback clients may connect"},
		kind: kindEnum, values: []string{"yes", "no"},
		field: func(c *Config) any { return &c.ProtectedMode }},
	{Directive: Directive{"aclfile", "", "ACL users file, loaded at startup and by ACL LOAD, written by ACL SAVE; empty for none"},
		kind: kindString, redisImmutable: true,
		field: func(c *Config) any { return &c.ACLFile }},
	{Directive: Directive{"acllog-max-len", "128", "entries kept by ACL LOG (denied commands, keys, channels and logins)"},
		kind: kindInt, min: 0, max: math.MaxInt32,
		field: func(c *Config) any { return &c.ACLLogMaxLen }},
	{Directive: Directive{"tls-port", "0", "port of a second listener speaking TLS (on the same bind addresses); 0 disables it"},
		kind: kindInt, min: 0, max: 65535,
		field: func(c *Config) any { return &c.TLSPort }},
	{Directive: Directive{"tls-cert-file", "", "server certificate for the TLS listener (PEM)"},
		kind:  kindString,
		field: func(c *Config) any { return &c.TLSCertFile }},
	{Directive: Directive{"tls-key-file", "", "private key of tls-cert-file (PEM)"},
		kind:  kindString,
		field: func(c *Config) any { return &c.TLSKeyFile }},
	{Directive: Directive{"tls-ca-cert-file", "", "CA certificates (PEM) client certificates must chain to"},
		kind:  kindString,
		field: func(c *Config) any { return &c.TLSCACertFile }},
	{Directive: Directive{"tls-auth-clients", "yes", "client certificates on the TLS listener: yes (required), optional (checked if sent) or no"},
		kind: kindEnum, values: []string{"yes", "no", "optional"},
		field: func(c *Config) any { return &c.TLSAuthClients }},
	{Directive: Directive{"tracking-table-max-keys", "1000000", "keys remembered for CLIENT TRACKING clients; past it the server invalidates keys to forget them; 0 means no limit"},
		kind: kindInt, min: 0, max: math.MaxInt64,
		field: func(c *Config) any { return &c.TrackingTableMaxKeys }},
	{Directive: Directive{"replicaof", "", "host and port of a master to replicate from (alias slaveof); REPLICAOF changes it while running; empty for a master"},
		kind: kindString, alias: "slaveof", redisImmutable: true, canon: canonReplicaOf,
		field: func(c *Config) any { return &c.ReplicaOf }},
}

// allDirectives is Strata's directives, then Redis's that Strata does not act on (redis.go).
var allDirectives = append(append([]*directive{}, directives...), inertDirectives...)

var byName = func() map[string]*directive {
	m := make(map[string]*directive, len(allDirectives))
	for _, d := range allDirectives {
		for _, n := range []string{d.Name, d.alias} {
			if n == "" {
				continue
			}
			if _, dup := m[n]; dup {
				panic("config: duplicate directive " + n)
			}
			m[n] = d
		}
	}
	return m
}()

func lookup(name string) *directive { return byName[strings.ToLower(name)] }

// Directives returns every directive in a stable order: Strata's (the order of the Config
// fields), then Redis's that Strata answers without acting on them.
func Directives() []Directive {
	out := make([]Directive, len(allDirectives))
	for i, d := range allDirectives {
		out[i] = d.Directive
	}
	return out
}

// SetRule says how CONFIG SET treats a directive.
type SetRule int

const (
	// SetByServer: Strata's own directive; the server says which it changes while running.
	SetByServer SetRule = iota
	// SetImmutable: not while running, whatever the value, as in Redis.
	SetImmutable
	// SetStored: a Redis directive Strata does not act on, checked and stored.
	SetStored
	// SetFixed: a Redis directive Strata has one value of; Set accepts that value only.
	SetFixed
	// SetProtected: not with CONFIG SET, as Redis refuses it while enable-protected-configs is no.
	SetProtected
)

// Find returns the canonical name of a directive or alias (case-insensitive) and how
// CONFIG SET treats it, or false for an unknown name.
func Find(name string) (string, SetRule, bool) {
	d := lookup(name)
	switch {
	case d == nil:
		return "", 0, false
	case d.redisImmutable || d.inert == inertImmutable:
		return d.Name, SetImmutable, true
	case d.protected:
		return d.Name, SetProtected, true
	case d.inert == inertStored:
		return d.Name, SetStored, true
	case d.inert == inertFixed:
		return d.Name, SetFixed, true
	}
	return d.Name, SetByServer, true
}

// Names returns the names CONFIG GET patterns match, in Directives' order: each directive's
// name, then its alias if it has one. Hidden directives are left out.
func Names() []string {
	var out []string
	for _, d := range allDirectives {
		if d.hidden {
			continue
		}
		out = append(out, d.Name)
		if d.alias != "" {
			out = append(out, d.alias)
		}
	}
	return out
}

// Usage returns the text that `strata --help` prints: the usage line and
// every directive with its default and help, aligned in columns.
func Usage() string {
	const nameHdr, defHdr = "DIRECTIVE", "DEFAULT"
	nameW, defW := len(nameHdr), len(defHdr)
	for _, d := range directives {
		nameW = max(nameW, len(d.Name))
		defW = max(defW, len(showDefault(d.Default)))
	}
	var b strings.Builder
	b.WriteString("Usage: strata [/path/to/strata.conf] [--directive value ...]\n\n")
	b.WriteString("Each directive can be given in the config file as \"name value\" or on the\n")
	b.WriteString("command line as \"--name value\"; command-line values override the file.\n")
	b.WriteString("Sizes accept the units k, kb, m, mb, g and gb (1k=1000, 1kb=1024).\n\n")
	fmt.Fprintf(&b, "  %-*s  %-*s  %s\n", nameW, nameHdr, defW, defHdr, "DESCRIPTION")
	for _, d := range directives {
		fmt.Fprintf(&b, "  %-*s  %-*s  %s\n", nameW, d.Name, defW, showDefault(d.Default), d.Help)
	}
	return b.String()
}

func showDefault(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// Set applies one directive by name (case-insensitive) with its argument
// words; it is used by the loaders and by CONFIG SET. It returns an error
// describing a bad name or value and leaves c unchanged in that case.
// Set checks the value's own range but not cross-field constraints; call
// Validate for those.
func (c *Config) Set(name string, args []string) error {
	d := lookup(name)
	if d == nil {
		return fmt.Errorf("unknown directive %q", name)
	}
	if err := d.set(c, args); err != nil {
		return fmt.Errorf("bad directive or value for %q: %w", d.Name, err)
	}
	return nil
}

// Get returns the current value of a directive as Redis's CONFIG GET shows
// it (sizes as plain byte counts, bind as space-separated), and false for
// an unknown name.
func (c *Config) Get(name string) (string, bool) {
	d := lookup(name)
	if d == nil {
		return "", false
	}
	if d.inert != 0 {
		return d.inertValue(c), true
	}
	switch p := d.field(c).(type) {
	case *int:
		return strconv.Itoa(*p), true
	case *int64:
		return strconv.FormatInt(*p, 10), true
	case *string:
		if d.show != nil {
			return d.show(*p), true
		}
		return *p, true
	case *[]string:
		return strings.Join(*p, " "), true
	}
	panic("config: bad field type for " + d.Name)
}

// Validate checks that every field holds an allowed value and that the
// cross-field constraints hold. It reports every problem found.
func (c *Config) Validate() error {
	var errs []error
	for _, d := range directives {
		var err error
		switch p := d.field(c).(type) {
		case *int:
			err = d.checkValue(int64(*p), "")
		case *int64:
			err = d.checkValue(*p, "")
		case *string:
			err = d.checkValue(0, *p)
		case *[]string:
			err = d.checkList(*p)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("bad value for %q: %w", d.Name, err))
		}
	}
	if c.ProtoMaxBulkLen > c.ClientQueryBufferLimit {
		errs = append(errs, fmt.Errorf("proto-max-bulk-len (%d) must not exceed client-query-buffer-limit (%d)",
			c.ProtoMaxBulkLen, c.ClientQueryBufferLimit))
	}
	return errors.Join(errs...)
}

// set parses args and stores them in d's field of c, or leaves c unchanged.
func (d *directive) set(c *Config, args []string) error {
	if d.inert != 0 {
		return d.setInert(c, args)
	}
	if p, ok := d.field(c).(*[]string); ok {
		var words []string
		for _, a := range args {
			words = append(words, strings.Fields(a)...)
		}
		if err := d.checkList(words); err != nil {
			return err
		}
		*p = words
		return nil
	}
	if p, ok := d.field(c).(*string); ok && d.canon != nil {
		v, err := d.canon(*p, strings.Join(args, " "))
		if err != nil {
			return err
		}
		*p = v
		return nil
	}
	if len(args) != 1 {
		return fmt.Errorf("wrong number of arguments (want 1, got %d)", len(args))
	}
	arg := args[0]
	switch p := d.field(c).(type) {
	case *int, *int64:
		var n int64
		var err error
		if d.kind == kindSize {
			n, err = parseSize(arg)
		} else {
			n, err = parseInt(arg)
		}
		if err != nil {
			return err
		}
		if err := d.checkValue(n, ""); err != nil {
			return err
		}
		if ip, ok := p.(*int); ok {
			*ip = int(n)
		} else {
			*p.(*int64) = n
		}
	case *string:
		if d.kind == kindEnum {
			arg = strings.ToLower(arg)
		}
		if err := d.checkValue(0, arg); err != nil {
			return err
		}
		*p = arg
	}
	return nil
}

// checkValue checks a numeric value n or a string value s against d's rules.
func (d *directive) checkValue(n int64, s string) error {
	switch d.kind {
	case kindInt, kindSize:
		if n < d.min || n > d.max {
			if d.max == math.MaxInt64 || d.max == math.MaxInt32 {
				return fmt.Errorf("%d is out of range (must be at least %d)", n, d.min)
			}
			return fmt.Errorf("%d is out of range (must be between %d and %d)", n, d.min, d.max)
		}
	case kindEnum:
		for _, v := range d.values {
			if s == v {
				return nil
			}
		}
		return fmt.Errorf("%q is not valid (must be one of %s)", s, strings.Join(d.values, ", "))
	case kindString:
		if d.check != nil {
			return d.check(s)
		}
	}
	return nil
}

// checkList checks the words of a list directive.
func (d *directive) checkList(words []string) error {
	if int64(len(words)) < d.min || int64(len(words)) > d.max {
		return fmt.Errorf("takes between %d and %d addresses, got %d", d.min, d.max, len(words))
	}
	for _, w := range words {
		if d.check != nil {
			if err := d.check(w); err != nil {
				return err
			}
		}
	}
	return nil
}

// Keyspace-notification classes (notify-keyspace-events), Redis's NOTIFY_* flags.
const (
	NotifyKeyspace uint32 = 1 << iota // K: __keyspace@<db>__:<key> channels
	NotifyKeyevent                    // E: __keyevent@<db>__:<event> channels
	NotifyGeneric                     // g: DEL, EXPIRE, RENAME, ...
	NotifyString                      // $
	NotifyList                        // l
	NotifySet                         // s
	NotifyHash                        // h
	NotifyZSet                        // z
	NotifyExpired                     // x
	NotifyEvicted                     // e
	NotifyStream                      // t
	NotifyKeyMiss                     // m
	NotifyModule                      // d
	NotifyNew                         // n
	// NotifyAll is "A": every class but m and n.
	NotifyAll = NotifyGeneric | NotifyString | NotifyList | NotifySet | NotifyHash | NotifyZSet |
		NotifyExpired | NotifyEvicted | NotifyStream | NotifyModule
)

// canonReplicaOf checks replicaof's value: a host and a port, or nothing.
func canonReplicaOf(_, arg string) (string, error) {
	f := strings.Fields(arg)
	switch {
	case len(f) == 0:
		return "", nil
	case len(f) != 2:
		return "", errors.New("want a host and a port")
	}
	if p, err := strconv.Atoi(f[1]); err != nil || p < 0 || p > 65535 {
		return "", fmt.Errorf("invalid master port %q", f[1])
	}
	return f[0] + " " + f[1], nil
}
