package commands

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/glob"
)

func init() {
	register(&Command{Name: "config", Arity: -2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale,
		Handler: cmdConfig, Sub: []string{"get", "help", "resetstat", "rewrite", "set"}})
}

// configMutable lists the directives CONFIG SET may change while the server runs, with their
// Redis-style value check. The others answer "can't set immutable config".
var configMutable = map[string]func(v string) string{
	"requirepass": func(string) string { return "" },
	"maxclients":  configIntCheck(1, 1<<31-1),
	"timeout":     configIntCheck(0, 1<<31-1),
	"loglevel": func(v string) string {
		switch strings.ToLower(v) {
		case "debug", "verbose", "notice", "warning":
			return ""
		}
		return "argument(s) must be one of the following: debug, verbose, notice, warning"
	},
}

func configIntCheck(lo, hi int64) func(string) string {
	return func(v string) string {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "argument couldn't be parsed into an integer"
		}
		if n < lo || n > hi {
			return fmt.Sprintf("argument must be between %d and %d inclusive", lo, hi)
		}
		return ""
	}
}

var configHelpLines = []string{
	"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET <pattern>",
	"    Return parameters matching the glob-like <pattern> and their values.",
	"SET <directive> <value>",
	"    Set the configuration <directive> to <value>.",
	"RESETSTAT",
	"    Reset statistics reported by the INFO command.",
	"REWRITE",
	"    Rewrite the configuration file.",
	"HELP",
	"    Prints this help.",
}

func cmdConfig(c *Ctx) {
	sub := strings.ToLower(c.Arg(1))
	arity := map[string]int{"get": -3, "set": -4, "resetstat": 2, "rewrite": 2, "help": 2}
	a, ok := arity[sub]
	if !ok {
		c.W.Error(fmt.Sprintf(ErrUnknownSub, c.Arg(1), "CONFIG"))
		return
	}
	if !subArityOK(a, len(c.Args)) {
		c.W.Error(fmt.Sprintf(ErrWrongArity, "config|"+sub))
		return
	}
	switch sub {
	case "get":
		configGet(c)
	case "set":
		configSet(c)
	case "resetstat":
		if srv := serverEnv(c); srv != nil {
			srv.ResetStats()
			c.W.OK()
		}
	case "rewrite":
		configRewrite(c)
	case "help":
		writeHelp(c.W, configHelpLines)
	}
}

// configGet implements CONFIG GET pattern [pattern ...]: a map of every matching directive.
// A plain name (a directive's or an alias) answers under the name as given; a pattern matches
// names and aliases, each answered under its own name, hidden directives left out, as in Redis.
func configGet(c *Ctx) {
	cfg := c.Env.Config()
	type pair struct{ shown, name string }
	var out []pair
	seen := map[string]bool{}
	for _, p := range c.Args[2:] {
		if !bytes.ContainsAny(p, "*?[") {
			name := string(p)
			if _, ok := cfg.Get(name); ok && !seen[name] {
				seen[name] = true
				out = append(out, pair{name, name})
			}
			continue
		}
		for _, name := range config.Names() {
			if !seen[name] && glob.Match(p, []byte(name), true) {
				seen[name] = true
				out = append(out, pair{name, name})
			}
		}
	}
	c.W.Map(len(out))
	for _, p := range out {
		v, _ := cfg.Get(p.name)
		c.W.BulkString(p.shown)
		c.W.BulkString(v)
	}
}

func configSetError(name, msg string) string {
	return fmt.Sprintf("ERR CONFIG SET failed (possibly related to argument '%s') - %s", name, msg)
}

// configSet implements CONFIG SET directive value [directive value ...]: every pair is
// checked first (unknown, immutable, duplicate), then the values, then the new configuration
// is validated as a whole and swapped in; nothing changes if any step fails. A directive the
// server does not change while running accepts the value it has, as a no-op.
func configSet(c *Ctx) {
	if len(c.Args)%2 != 0 {
		c.W.Error(ErrSyntax)
		return
	}
	srv := serverEnv(c)
	if srv == nil {
		return
	}
	names := make([]string, 0, (len(c.Args)-2)/2)
	rules := make([]config.SetRule, 0, cap(names))
	for i := 2; i < len(c.Args); i += 2 {
		name, rule, ok := config.Find(c.Arg(i))
		if !ok {
			c.W.Error(fmt.Sprintf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", c.Arg(i)))
			return
		}
		switch rule {
		case config.SetImmutable:
			c.W.Error(configSetError(c.Arg(i), "can't set immutable config"))
			return
		case config.SetProtected:
			c.W.Error(configSetError(c.Arg(i), "can't set protected config"))
			return
		}
		// A directive and its alias are different names here, as in Redis: the later wins.
		for j := 2; j < i; j += 2 {
			if strings.EqualFold(c.Arg(j), c.Arg(i)) {
				c.W.Error(configSetError(c.Arg(i), "duplicate parameter"))
				return
			}
		}
		names, rules = append(names, name), append(rules, rule)
	}
	cur := c.Env.Config()
	next := *cur
	for j, name := range names {
		arg, v := c.Arg(2+2*j), c.Arg(3+2*j)
		check, mutable := configMutable[name]
		if mutable {
			if msg := check(v); msg != "" {
				c.W.Error(configSetError(arg, msg))
				return
			}
		}
		if err := next.Set(name, []string{v}); err != nil {
			if inner := errors.Unwrap(err); inner != nil {
				err = inner
			}
			c.W.Error(configSetError(arg, err.Error()))
			return
		}
		if !mutable && rules[j] == config.SetByServer {
			was, _ := cur.Get(name)
			now, _ := next.Get(name)
			if was != now {
				c.W.Error(configSetError(arg, "can't set immutable config"))
				return
			}
		}
	}
	if err := next.Validate(); err != nil {
		c.W.Error(configSetError(c.Arg(2), strings.ReplaceAll(err.Error(), "\n", "; ")))
		return
	}
	if err := srv.SetConfig(&next); err != nil {
		c.W.Error(configSetError(c.Arg(2), err.Error()))
		return
	}
	c.W.OK()
}

func configRewrite(c *Ctx) {
	srv := serverEnv(c)
	if srv == nil {
		return
	}
	path := srv.ConfigFile()
	if path == "" {
		c.W.Error("ERR The server is running without a config file")
		return
	}
	if err := RewriteConfigFile(path, c.Env.Config()); err != nil {
		c.W.Error("ERR Rewriting config file: " + err.Error())
		return
	}
	c.W.OK()
}

// RewriteConfigFile rewrites the config file at path to hold cfg, as Redis's CONFIG REWRITE
// does: comments and blank lines are kept, the first line of each directive gets the current
// value and its repeats are dropped, and directives that differ from their defaults but were
// not in the file are appended at the end, after a marker comment that is written once. The
// file is replaced atomically.
func RewriteConfigFile(path string, cfg *config.Config) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	known := map[string]config.Directive{}
	for _, d := range config.Directives() {
		known[d.Name] = d
	}
	written := map[string]bool{}
	var out []string
	hasMarker := false
	const marker = "# Generated by CONFIG REWRITE"
	text := strings.TrimRight(strings.ReplaceAll(string(old), "\r\n", "\n"), "\n")
	if text != "" {
		for _, line := range strings.Split(text, "\n") {
			trimmed := strings.TrimSpace(line)
			if trimmed == marker {
				hasMarker = true
			}
			fields := strings.Fields(trimmed)
			if len(fields) == 0 || strings.HasPrefix(trimmed, "#") {
				out = append(out, line)
				continue
			}
			name := strings.ToLower(fields[0])
			if _, ok := known[name]; !ok {
				out = append(out, line) // not ours: keep it as it is
				continue
			}
			if written[name] {
				continue
			}
			written[name] = true
			out = append(out, configLine(cfg, name))
		}
	}
	var added []string
	for _, d := range config.Directives() {
		if written[d.Name] {
			continue
		}
		def := config.Default()
		dv, _ := def.Get(d.Name)
		cv, _ := cfg.Get(d.Name)
		if dv != cv {
			added = append(added, configLine(cfg, d.Name))
		}
	}
	if len(added) > 0 && !hasMarker {
		for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
			out = out[:len(out)-1]
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, marker)
	}
	out = append(out, added...)
	data := strings.Join(out, "\n") + "\n"
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".strata-rewrite-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// configLine formats one directive line for the config file, quoting values that need it.
func configLine(cfg *config.Config, name string) string {
	v, _ := cfg.Get(name)
	if name == "bind" {
		return name + " " + v
	}
	return name + " " + configQuote(v)
}

// configQuote quotes a value the way the config parser reads it back.
func configQuote(v string) string {
	plain := v != ""
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if ch <= ' ' || ch >= 0x7f || ch == '"' || ch == '\'' || ch == '\\' || ch == '#' && i == 0 {
			plain = false
			break
		}
	}
	if plain {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		switch ch := v[i]; {
		case ch == '"' || ch == '\\':
			b.WriteByte('\\')
			b.WriteByte(ch)
		case ch == '\n':
			b.WriteString(`\n`)
		case ch == '\r':
			b.WriteString(`\r`)
		case ch == '\t':
			b.WriteString(`\t`)
		case ch < ' ' || ch >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, ch)
		default:
			b.WriteByte(ch)
		}
	}
	b.WriteByte('"')
	return b.String()
}
