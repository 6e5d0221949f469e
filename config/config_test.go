package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeConf(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "strata.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDefaults(t *testing.T) {
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	want := map[string]string{
		"bind": "127.0.0.1", "port": "6380", "dir": "./data", "databases": "16",
		"loglevel": "notice", "logfile": "", "requirepass": "", "maxclients": "10000",
		"timeout": "0", "tcp-keepalive": "300", "io-model": "loop", "io-loops": "1", "proto-max-bulk-len": "536870912",
		"client-query-buffer-limit": "1073741824", "appendfsync": "everysec", "appendonly": "yes", "save": "",
		"metrics-addr": "127.0.0.1:9121", "leveldb-block-size": "4096",
		"leveldb-write-buffer-size": "67108864", "leveldb-block-cache-size": "268435456",
		"leveldb-compression": "snappy", "leveldb-max-open-files": "1000",
		"leveldb-bloom-bits": "10", "hz": "10", "key-cache-size": "67108864", "backup-dir": "./backup", "compact-cron": "", "metrics-pprof": "no",
		"busy-reply-threshold": "5000", "large-value-threshold": "65536", "value-log-gc-ratio": "0.5",
		"notify-keyspace-events":     "",
		"client-output-buffer-limit": "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
		"protected-mode":             "yes", "aclfile": "", "acllog-max-len": "128", "tls-port": "0",
		"tls-cert-file": "", "tls-key-file": "", "tls-ca-cert-file": "", "tls-auth-clients": "yes",
		"tracking-table-max-keys": "1000000", "replicaof": "",
	}
	if len(want) != len(directives) {
		t.Fatalf("test knows %d directives, package has %d", len(want), len(directives))
	}
	for name, v := range want {
		if got, ok := c.Get(name); !ok || got != v {
			t.Errorf("Get(%q) = %q, %v; want %q", name, got, ok, v)
		}
	}
	// Applying every directive's documented default yields Default().
	c2 := Default()
	for _, d := range Directives() {
		args := strings.Fields(d.Default)
		if len(args) == 0 {
			args = []string{""}
		}
		if err := c2.Set(d.Name, args); err != nil {
			t.Errorf("Set(%q, default %q): %v", d.Name, d.Default, err)
		}
		if d.Help == "" {
			t.Errorf("directive %q has no help", d.Name)
		}
	}
	if !reflect.DeepEqual(c, c2) {
		t.Errorf("documented defaults differ from Default():\n%+v\n%+v", c2, c)
	}
	c3, err := Load(nil)
	if err != nil || !reflect.DeepEqual(c3, c) {
		t.Errorf("Load(nil) = %+v, %v; want defaults", c3, err)
	}
}

func TestDirectivesOrder(t *testing.T) {
	want := []string{"bind", "port", "dir", "databases", "loglevel", "logfile", "requirepass",
		"maxclients", "timeout", "tcp-keepalive", "io-model", "io-loops", "proto-max-bulk-len", "client-query-buffer-limit",
		"appendfsync", "appendonly", "save", "metrics-addr", "leveldb-block-size", "leveldb-write-buffer-size",
		"leveldb-block-cache-size", "leveldb-compression", "leveldb-max-open-files",
		"leveldb-bloom-bits", "hz", "key-cache-size", "backup-dir", "compact-cron", "metrics-pprof",
		"busy-reply-threshold", "large-value-threshold", "value-log-gc-ratio",
		"notify-keyspace-events", "client-output-buffer-limit",
		"protected-mode", "aclfile", "acllog-max-len", "tls-port", "tls-cert-file", "tls-key-file",
		"tls-ca-cert-file", "tls-auth-clients", "tracking-table-max-keys", "replicaof"}
	var got []string
	for _, d := range directives {
		got = append(got, d.Name)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Strata's directives = %v\nwant %v", got, want)
	}
	if n := reflect.TypeFor[Config]().NumField(); n != len(want)+1 { // and inert
		t.Errorf("Config has %d fields, %d directives", n, len(want))
	}
}

func TestLoadFile(t *testing.T) {
	path := writeConf(t, "\ufeff# Strata test config\n"+
		"\n"+
		"   # indented comment\n"+
		"PORT 7000\r\n"+
		"bind 0.0.0.0 ::1\n"+
		"\tdir   \"/var/lib/my strata\"  \n"+
		"requirepass \"p\\\"w\\x41\\n\\t\\\\ d\"\n"+
		"logfile 'it\\'s.log'\n"+
		"LogLevel WARNING\n"+
		"metrics-addr \"\"\n"+
		"hz 100\n")
	c := Default()
	if err := c.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Port = 7000
	want.Bind = []string{"0.0.0.0", "::1"}
	want.Dir = "/var/lib/my strata"
	want.RequirePass = "p\"wA\n\t\\ d"
	want.LogFile = "it's.log"
	want.LogLevel = "warning"
	want.MetricsAddr = ""
	want.ActiveExpireHz = 100
	if !reflect.DeepEqual(c, want) {
		t.Errorf("LoadFile:\n got %+v\nwant %+v", c, want)
	}
}

func TestLoadFileLeavesConfigOnError(t *testing.T) {
	path := writeConf(t, "port 7000\nport abc\n")
	c := Default()
	if err := c.LoadFile(path); err == nil {
		t.Fatal("no error")
	}
	if c.Port != 6380 {
		t.Errorf("port = %d after failed load; want unchanged 6380", c.Port)
	}
	if err := c.LoadFile(filepath.Join(t.TempDir(), "missing.conf")); err == nil || !os.IsNotExist(err) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a b  c", []string{"a", "b", "c"}},
		{`"x y" 'z w'`, []string{"x y", "z w"}},
		{`"" ''`, []string{"", ""}},
		{`"\x4a\x4B\xzz"`, []string{"JKxzz"}},
		{`"a\rb\qc"`, []string{"a\rbqc"}},
		{`foo"bar baz"`, []string{"foobar baz"}},
		{`'a\nb'`, []string{`a\nb`}},
	}
	for _, tt := range tests {
		got, err := SplitArgs(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`"abc`, `'abc`, `"abc"def`, `'abc'def`, `"abc\`} {
		if got, err := SplitArgs(bad); err == nil {
			t.Errorf("SplitArgs(%q) = %q; want error", bad, got)
		}
	}
}

func TestLoadCommandLineOverridesFile(t *testing.T) {
	path := writeConf(t, "port 7000\ndatabases 4\nbind 10.0.0.1\n")
	c, err := Load([]string{path, "--port", "7001", "--bind", "127.0.0.1", "::1", "--REQUIREPASS", "", "--hz", "20"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 7001 || c.Databases != 4 || c.ActiveExpireHz != 20 ||
		!reflect.DeepEqual(c.Bind, []string{"127.0.0.1", "::1"}) || c.RequirePass != "" {
		t.Errorf("got %+v", c)
	}
	// Without a file, options alone.
	c, err = Load([]string{"--port", "0", "--dir", "/tmp/x"})
	if err != nil || c.Port != 0 || c.Dir != "/tmp/x" {
		t.Errorf("got %+v, %v", c, err)
	}
}

func TestErrors(t *testing.T) {
	conf := func(text string) string { return writeConf(t, text) }
	tests := []struct {
		args []string
		want []string // substrings the error must contain
	}{
		{[]string{conf("# c\n\nport 6380\nport abc\n")}, []string{"strata.conf:4:", `"port"`, `"abc" is not a valid integer`}},
		{[]string{conf("port 70000\n")}, []string{"strata.conf:1:", `"port"`, "70000"}},
		{[]string{conf("\n\ndatabases 0\n")}, []string{"strata.conf:3:", `"databases"`}},
		{[]string{conf("appendfsync maybe\n")}, []string{"strata.conf:1:", `"appendfsync"`, `"maybe"`}},
		{[]string{conf("leveldb-compression zstd\n")}, []string{"strata.conf:1:", `"leveldb-compression"`, `"zstd"`}},
		{[]string{conf("x\nnosuchthing 1\n")}, []string{"strata.conf:1:", `unknown directive "x"`}},
		{[]string{conf("requirepass \"abc\n")}, []string{"strata.conf:1:", `"requirepass"`, "unbalanced quotes"}},
		{[]string{conf("port 1 2\n")}, []string{"strata.conf:1:", `"port"`, "wrong number of arguments"}},
		{[]string{conf("bind\n")}, []string{"strata.conf:1:", `"bind"`}},
		{[]string{conf("proto-max-bulk-len 1000kb\n")}, []string{"strata.conf:1:", `"proto-max-bulk-len"`}},
		{[]string{conf("hz 501\n")}, []string{"strata.conf:1:", `"hz"`}},
		{[]string{conf("value-log-gc-ratio 0\n")}, []string{"strata.conf:1:", `"value-log-gc-ratio"`, "ratio"}},
		{[]string{conf("value-log-gc-ratio 1.5\n")}, []string{"strata.conf:1:", `"value-log-gc-ratio"`}},
		{[]string{conf("notify-keyspace-events KEq\n")}, []string{"strata.conf:1:", `"notify-keyspace-events"`, "Invalid event class character"}},
		{[]string{conf("client-output-buffer-limit pubsub 1mb 1mb\n")}, []string{"strata.conf:1:", `"client-output-buffer-limit"`, "Wrong number of arguments"}},
		{[]string{conf("client-output-buffer-limit bogus 1mb 1mb 1\n")}, []string{"strata.conf:1:", "Invalid client class"}},
		{[]string{conf("client-output-buffer-limit pubsub 1mb -1 1\n")}, []string{"strata.conf:1:", "Error in hard, soft or soft_seconds"}},
		{[]string{conf("large-value-threshold 1gb\n")}, []string{"strata.conf:1:", `"large-value-threshold"`}},
		{[]string{conf("protected-mode maybe\n")}, []string{"strata.conf:1:", `"protected-mode"`, "yes, no"}},
		{[]string{conf("tls-auth-clients sometimes\n")}, []string{"strata.conf:1:", `"tls-auth-clients"`, "optional"}},
		{[]string{conf("tls-port 65536\n")}, []string{"strata.conf:1:", `"tls-port"`}},
		{[]string{conf("acllog-max-len -1\n")}, []string{"strata.conf:1:", `"acllog-max-len"`}},
		{[]string{conf("tracking-table-max-keys -1\n")}, []string{"strata.conf:1:", `"tracking-table-max-keys"`}},
		{[]string{conf("tracking-table-max-keys 1k\n")}, []string{"strata.conf:1:", `"tracking-table-max-keys"`}},
		{[]string{conf("leveldb-block-size 4xb\n")}, []string{"strata.conf:1:", `"leveldb-block-size"`, "not a valid size"}},
		{[]string{conf("metrics-addr localhost\n")}, []string{"strata.conf:1:", `"metrics-addr"`}},
		{[]string{"--port", "abc"}, []string{"command line:", `"port"`, `"abc" is not a valid integer`}},
		{[]string{"--databases", "10001"}, []string{"command line:", `"databases"`}},
		{[]string{"--nope", "1"}, []string{"command line:", `unknown directive "nope"`}},
		{[]string{"--port"}, []string{"command line:", `"port"`, "wrong number of arguments"}},
		{[]string{"--loglevel", "loud"}, []string{"command line:", `"loglevel"`}},
		{[]string{"a.conf", "b.conf"}, []string{"command line:", `"b.conf"`}},
		{[]string{"--"}, []string{"command line:"}},
		{[]string{"--proto-max-bulk-len", "2gb", "--client-query-buffer-limit", "1gb"},
			[]string{"proto-max-bulk-len", "client-query-buffer-limit"}},
	}
	for _, tt := range tests {
		// "a.conf" does not exist; the b.conf case must fail before that matters.
		if tt.args[0] == "a.conf" {
			tt.args[0] = conf("")
		}
		_, err := Load(tt.args)
		if err == nil {
			t.Errorf("Load(%q): no error", tt.args)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Load(%q) error %q does not contain %q", tt.args, err, w)
			}
		}
	}
}

func TestErrorFormat(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "strata.conf")
	text := strings.Repeat("\n", 11) + "port abc\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load([]string{path})
	want := path + `:12: bad directive or value for "port": "abc" is not a valid integer`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
	_, err = Load([]string{"--port", "abc"})
	want = `command line: bad directive or value for "port": "abc" is not a valid integer`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

func TestSizes(t *testing.T) {
	tests := map[string]int64{
		"0": 0, "1234": 1234, "10b": 10, "1k": 1000, "1kb": 1024, "1K": 1000, "1KB": 1024,
		"2m": 2000000, "2mb": 2 * 1024 * 1024, "2Mb": 2 * 1024 * 1024, "3g": 3000000000,
		"3gb": 3 << 30, "3GB": 3 << 30,
	}
	for in, want := range tests {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "kb", "1tb", "1.5mb", "mb1", "1 mb", "-", "99999999999gb"} {
		if got, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) = %d; want error", bad, got)
		}
	}
	c := Default()
	if err := c.Set("leveldb-block-cache-size", []string{"1G"}); err != nil || c.LevelDBBlockCacheSize != 1e9 {
		t.Errorf("block cache = %d, %v", c.LevelDBBlockCacheSize, err)
	}
	if err := c.Set("leveldb-write-buffer-size", []string{"8mb"}); err != nil || c.LevelDBWriteBufferSize != 8<<20 {
		t.Errorf("write buffer = %d, %v", c.LevelDBWriteBufferSize, err)
	}
	if err := c.Set("proto-max-bulk-len", []string{"1mb"}); err != nil || c.ProtoMaxBulkLen != 1<<20 {
		t.Errorf("proto-max-bulk-len = %d, %v", c.ProtoMaxBulkLen, err)
	}
	if err := c.Set("proto-max-bulk-len", []string{"1m"}); err == nil {
		t.Error("proto-max-bulk-len 1m (below 1mb) accepted")
	}
	if err := c.Set("leveldb-block-cache-size", []string{"-1"}); err == nil {
		t.Error("negative size accepted")
	}
}

// samples holds a non-default value for every directive, as CONFIG SET args.
var samples = map[string][]string{
	"bind":                      {"0.0.0.0", "::1"},
	"port":                      {"7777"},
	"dir":                       {"/srv/strata data"},
	"databases":                 {"32"},
	"loglevel":                  {"debug"},
	"logfile":                   {"/var/log/strata.log"},
	"requirepass":               {"s3cret pass"},
	"maxclients":                {"50"},
	"timeout":                   {"60"},
	"tcp-keepalive":             {"0"},
	"io-model":                  {"goroutine"},
	"io-loops":                  {"2"},
	"proto-max-bulk-len":        {"2mb"},
	"client-query-buffer-limit": {"2gb"},
	"appendfsync":               {"always"},
	"appendonly":                {"yes"},
	"save":                      {""},
	"metrics-addr":              {"[::1]:9000"},
	"leveldb-block-size":        {"16kb"},
	"leveldb-write-buffer-size": {"4mb"},
	"leveldb-block-cache-size":  {"0"},
	"leveldb-compression":       {"none"},
	"leveldb-max-open-files":    {"500"},
	"leveldb-bloom-bits":        {"0"},
	"hz":                        {"500"},
	"key-cache-size":            {"1mb"},
	"backup-dir":                {"/srv/strata-backup"},
	"compact-cron":              {"0 4 * * *"},
	"metrics-pprof":             {"yes"},
	"busy-reply-threshold":      {"100"},
	"large-value-threshold":     {"1mb"},
	"value-log-gc-ratio":        {"0.25"},

	// MULTI/EXEC, pub/sub and keyspace notifications
	"notify-keyspace-events":     {"KEA"},
	"client-output-buffer-limit": {"pubsub 64mb 16mb 120"},

	// Who may connect: protected mode, ACL, TLS
	"protected-mode":   {"no"},
	"aclfile":          {"/etc/strata/users.acl"},
	"acllog-max-len":   {"16"},
	"tls-port":         {"6390"},
	"tls-cert-file":    {"/etc/strata/server.crt"},
	"tls-key-file":     {"/etc/strata/server.key"},
	"tls-ca-cert-file": {"/etc/strata/ca.crt"},
	"tls-auth-clients": {"optional"},

	// Client-side caching
	"tracking-table-max-keys": {"0"},

	// Replication
	"replicaof": {"127.0.0.1", "6379"},
}

// fixedDirectives take a single value (appendonly, save): Redis tools read them.
var fixedDirectives = map[string]bool{"appendonly": true, "save": true}

func TestGetSetRoundTrip(t *testing.T) {
	for _, d := range directives {
		args, ok := samples[d.Name]
		if !ok {
			t.Errorf("no sample value for directive %q", d.Name)
			continue
		}
		c := Default()
		before, _ := c.Get(d.Name)
		if err := c.Set(strings.ToUpper(d.Name), args); err != nil {
			t.Errorf("Set(%q, %q): %v", d.Name, args, err)
			continue
		}
		got, ok := c.Get(strings.ToUpper(d.Name))
		if fixedDirectives[d.Name] {
			// Answered for Redis tools, with one value: any other is refused.
			if err := c.Set(d.Name, []string{"no"}); err == nil {
				t.Errorf("Set(%q, no) accepted", d.Name)
			}
		} else if !ok || got == before {
			t.Errorf("Get(%q) = %q, %v after Set; still the default %q", d.Name, got, ok, before)
		}
		// CONFIG SET with the CONFIG GET text gives back the same config.
		c2 := Default()
		if err := c2.Set(d.Name, []string{got}); err != nil {
			t.Errorf("Set(%q, %q) from Get: %v", d.Name, got, err)
		}
		if !reflect.DeepEqual(c, c2) {
			t.Errorf("%s: round trip through %q differs:\n%+v\n%+v", d.Name, got, c, c2)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", d.Name, err)
		}
	}
	if _, ok := Default().Get("nosuch"); ok {
		t.Error("Get of unknown directive reported ok")
	}
	c := Default()
	if err := c.Set("nosuch", []string{"1"}); err == nil || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Errorf("Set unknown: %v", err)
	}
	if err := c.Set("port", []string{"70000"}); err == nil || c.Port != 6380 {
		t.Errorf("Set port 70000: err %v, port %d", err, c.Port)
	}
	if err := c.Set("bind", []string{"  "}); err == nil || len(c.Bind) != 1 {
		t.Errorf("Set empty bind: err %v, bind %q", err, c.Bind)
	}
}

func TestValidate(t *testing.T) {
	c := Default()
	c.Port = 70000
	c.LogLevel = "NOTICE"
	c.Bind = nil
	c.ClientQueryBufferLimit = 2 << 20
	err := c.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{`"port"`, `"loglevel"`, `"bind"`, "proto-max-bulk-len"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Validate error %q does not mention %s", err, w)
		}
	}
}

func TestUsage(t *testing.T) {
	u := Usage()
	if !strings.HasPrefix(u, "Usage: strata [/path/to/strata.conf] [--directive value ...]\n") {
		t.Errorf("usage line missing:\n%s", u)
	}
	col := -1
	for _, d := range directives {
		var line string
		for _, l := range strings.Split(u, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == d.Name {
				line = l
			}
		}
		if line == "" {
			t.Errorf("Usage does not list %q", d.Name)
			continue
		}
		if !strings.Contains(line, showDefault(d.Default)) || !strings.HasSuffix(line, d.Help) {
			t.Errorf("Usage line for %q lacks default or help: %q", d.Name, line)
		}
		// Help texts start in the same column.
		if c := strings.Index(line, d.Help); col == -1 {
			col = c
		} else if c != col {
			t.Errorf("help for %q starts at column %d, want %d", d.Name, c, col)
		}
	}
}

func TestAlias(t *testing.T) {
	c := Default()
	if err := c.Set("LUA-TIME-LIMIT", []string{"250"}); err != nil || c.BusyReplyThreshold != 250 {
		t.Fatalf("Set lua-time-limit: %v, threshold %d", err, c.BusyReplyThreshold)
	}
	for _, name := range []string{"lua-time-limit", "busy-reply-threshold"} {
		if v, ok := c.Get(name); !ok || v != "250" {
			t.Errorf("Get(%q) = %q, %v; want 250", name, v, ok)
		}
	}
	if err := c.Set("lua-time-limit", []string{"-1"}); err == nil || !strings.Contains(err.Error(), `"busy-reply-threshold"`) {
		t.Errorf("Set lua-time-limit -1: %v", err)
	}
	for _, d := range Directives() {
		if d.Name == "lua-time-limit" {
			t.Error("the alias is listed as a directive of its own")
		}
	}
	path := writeConf(t, "lua-time-limit 1000\n")
	if err := c.LoadFile(path); err != nil || c.BusyReplyThreshold != 1000 {
		t.Errorf("LoadFile lua-time-limit: %v, threshold %d", err, c.BusyReplyThreshold)
	}
}

// TestNotifyAndOutputLimits checks the normal forms CONFIG GET shows (Redis 7.0's) and the
// merge of client-output-buffer-limit classes.
func TestNotifyAndOutputLimits(t *testing.T) {
	for in, want := range map[string]string{"KEA": "AKE", "Ex$": "$xE", "gK": "gK", "": "", "x": "x",
		"KA": "AK", "Em": "Em", "An": "A", "lhsz$gxn": "g$lshzxn", "KEAn": "AKE"} {
		c := Default()
		err := c.Set("notify-keyspace-events", []string{in})
		if got, _ := c.Get("notify-keyspace-events"); err != nil || got != want {
			t.Errorf("notify-keyspace-events %q: got %q, %v; want %q", in, got, err, want)
		}
	}
	// "A" hides "n" in CONFIG GET, as in Redis, but the class stays on.
	c0 := Default()
	c0.Set("notify-keyspace-events", []string{"KEAn"})
	if f, _ := ParseKeyspaceEvents(c0.NotifyKeyspaceEvents); f&NotifyNew == 0 || f&NotifyAll != NotifyAll {
		t.Errorf("KEAn stored as %q", c0.NotifyKeyspaceEvents)
	}
	if f, _ := ParseKeyspaceEvents("KEA"); f&NotifyAll != NotifyAll || f&NotifyKeyspace == 0 || f&NotifyNew != 0 {
		t.Errorf("ParseKeyspaceEvents(KEA) = %b", f)
	}
	c := Default()
	if err := c.Set("client-output-buffer-limit", []string{"pubsub", "1mb", "512kb", "10"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Set("client-output-buffer-limit", []string{"replica 1kb 1kb 1"}); err != nil {
		t.Fatal(err)
	}
	want := "normal 0 0 0 slave 1024 1024 1 pubsub 1048576 524288 10"
	if c.OutputBufferLimit != want {
		t.Errorf("merged limits %q, want %q", c.OutputBufferLimit, want)
	}
	if l := c.OutputLimits("pubsub"); l != (OutputLimit{1 << 20, 512 << 10, 10}) {
		t.Errorf("pubsub limit %+v", l)
	}
	if l := Default().OutputLimits("pubsub"); l != (OutputLimit{32 << 20, 8 << 20, 60}) {
		t.Errorf("default pubsub limit %+v", l)
	}
}

func TestMemoryTargetFollowsTheCaches(t *testing.T) {
	c := Default()
	base := MemoryTarget(c)
	if want := int64(256+2*64+64+128) << 20; base != want {
		t.Fatalf("default memory target %d, want %d", base, want)
	}
	c.LevelDBBlockCacheSize = 32 << 20
	c.KeyCacheSize = 0
	if got := MemoryTarget(c); got != base-(224+64)<<20 {
		t.Fatalf("memory target %d after shrinking the caches", got)
	}
}

// TestInertDirectives checks Redis's directives that Strata does not act on: each default
// passes its own check and reads back unchanged, a fixed one refuses any other value, a
// stored one reads back what was set, and a copy of a Config does not see later changes.
func TestInertDirectives(t *testing.T) {
	for _, d := range inertDirectives {
		if v, err := d.normalize(d.Default); err != nil || v != d.Default {
			t.Errorf("%s: default %q normalizes to %q, %v", d.Name, d.Default, v, err)
		}
		if lookup(d.Name) != d {
			t.Errorf("%s: not found by name", d.Name)
		}
	}
	c := Default()
	if err := c.Set("maxmemory", []string{"0mb"}); err != nil {
		t.Errorf("maxmemory 0mb: %v", err)
	}
	if err := c.Set("maxmemory", []string{"100mb"}); err == nil || !strings.Contains(err.Error(), "never evicts") {
		t.Errorf("maxmemory 100mb: %v", err)
	}
	if err := c.Set("maxmemory-policy", []string{"ALLKEYS-LFU"}); err != nil {
		t.Errorf("maxmemory-policy ALLKEYS-LFU: %v", err)
	} else if v, _ := c.Get("maxmemory-policy"); v != "allkeys-lfu" {
		t.Errorf("maxmemory-policy after SET ALLKEYS-LFU: %q", v)
	}
	if err := c.Set("maxmemory-policy", []string{"nosuch"}); err == nil ||
		!strings.HasSuffix(err.Error(), "argument(s) must be one of the following: volatile-lru, volatile-lfu, "+
			"volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction") {
		t.Errorf("maxmemory-policy nosuch: %v", err)
	}
	before := *c
	if err := c.Set("slowlog-max-len", []string{"7"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Set("hash-max-ziplist-entries", []string{"3"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"slowlog-max-len": "7", "hash-max-listpack-entries": "3", "hash-max-ziplist-entries": "3"} {
		if v, _ := c.Get(name); v != want {
			t.Errorf("Get(%s) = %q, want %q", name, v, want)
		}
	}
	if v, _ := before.Get("slowlog-max-len"); v != "128" {
		t.Errorf("a copy made before CONFIG SET reads slowlog-max-len %q", v)
	}
	path := writeConf(t, "slowlog-log-slower-than -1\nlazyfree-lazy-user-del yes\nmaxmemory 0\n")
	c2 := Default()
	if err := c2.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	if v, _ := c2.Get("slowlog-log-slower-than"); v != "-1" {
		t.Errorf("slowlog-log-slower-than from the file: %q", v)
	}
	if err := c2.LoadFile(writeConf(t, "maxmemory-policy allkeys-lru\n")); err != nil {
		t.Errorf("a config file's maxmemory-policy allkeys-lru: %v", err)
	}
}
