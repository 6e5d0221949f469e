package commands

import (
	"bytes"
	"errors"
	"fmt"
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
	// proto-max-bulk-len: sizes are checked by config (at least 1mb, at most
	// client-query-buffer-limit); the request guard reads the live value.
	"proto-max-bulk-len": func(string) string { return "" },
	// appendfsync: the store reads it at every commit.
	"appendfsync": func(v string) string {
		switch strings.ToLower(v) {
		case "everysec", "always", "no":
			return ""
		}
		return "argument(s) must be one of the following: everysec, always, no"
	},
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
	if err := config.Rewrite(path, c.Env.Config()); err != nil {
		c.W.Error("ERR Rewriting config file: " + err.Error())
		return
	}
	c.W.OK()
}
