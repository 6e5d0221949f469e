package commands

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/strata-db/strata/acl"
	"github.com/strata-db/strata/internal/cmddoc"
)

// This file holds the ACL command and the glue between the command layer and the ACL model
// (package acl): the command universe the rules range over, AUTH and HELLO AUTH against the
// users, the permission check the dispatcher runs (CheckACL), and the ACL LOG entries of
// denials. Replies and error texts follow Redis 7.0.15.

func init() {
	register(&Command{Name: "acl", Arity: -2, Flags: FlagNoScript | FlagLoading | FlagStale, Handler: cmdACL,
		Sub: aclSubNames()})
}

var aclUniverse struct {
	sync.Once
	t *acl.Table
}

// ACLTable returns the command universe ACL rules range over: Strata's command table plus every
// Redis 7.0 command and subcommand of cmddoc.Redis (introspect.go), with Redis's categories, so
// that rules naming commands Strata lacks are accepted and ACL LIST/GETUSER/CAT describe rules
// as Redis does. It is built on first use, after every init registered its commands.
func ACLTable() *acl.Table {
	aclUniverse.Do(func() { aclUniverse.t = acl.NewTable(aclSpecs()) })
	return aclUniverse.t
}

// NewACL returns a registry of users over ACLTable with only the default user.
func NewACL() *acl.Registry { return acl.New(ACLTable()) }

// aclSpecs describes the command universe to the ACL: Strata's commands, each followed by its
// subcommands, then Redis's other commands and subcommands in name order.
func aclSpecs() []acl.CommandSpec {
	spec := func(name string, flags Flag, noAuth bool) acl.CommandSpec {
		m, inRedis := cmddoc.Redis[name]
		s := acl.CommandSpec{Name: name, NoAuth: noAuth, Write: flags&FlagWrite != 0,
			Redis70: inRedis && !strings.HasPrefix(m.Since, "7.2")}
		for _, c := range commandACL(name, flags) {
			s.Categories = append(s.Categories, strings.TrimPrefix(c, "@"))
		}
		if strings.Contains(name, "|") {
			s.Arity = m.Arity
		}
		return s
	}
	var specs []acl.CommandSpec
	for _, cmd := range All() {
		s := spec(cmd.Name, cmd.Flags, cmd.Flags&FlagNoAuth != 0)
		s.Keys = acl.KeySpec{First: cmd.FirstKey, Last: cmd.LastKey, Step: cmd.Step, Find: cmd.Keys}
		specs = append(specs, s)
		for _, sub := range cmd.Sub {
			specs = append(specs, spec(cmd.Name+"|"+sub, cmd.Flags, false))
		}
	}
	var names []string
	for name := range cmddoc.Redis {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !strings.Contains(name, "|") {
			specs = append(specs, spec(name, 0, name == "auth" || name == "hello" || name == "quit"))
		}
	}
	for _, name := range names {
		if strings.Contains(name, "|") {
			specs = append(specs, spec(name, 0, false))
		}
	}
	return specs
}

// SubscriberKiller is implemented by Envs with pub/sub (the server): after ACL SETUSER changed
// a user, it closes the connections of that user subscribed to channels or patterns it may no
// longer use (acl.User.MayUseChannel), as Redis's ACLKillPubsubClientsIfNeeded. self is the
// calling client, closed after its reply if it is one of them.
type SubscriberKiller interface {
	KillRevokedSubscribers(self *Client, u *acl.User)
}

// ACLEnv is implemented by Envs with users (the server). Without it, commands run unchecked
// and AUTH checks requirepass only.
type ACLEnv interface {
	ACL() *acl.Registry
}

func aclOf(c *Ctx) *acl.Registry {
	if e, ok := c.Env.(ACLEnv); ok {
		return e.ACL()
	}
	return nil
}

// authenticate logs the client in as user, or logs the failure in the ACL LOG (object: the
// command name as sent) and returns false.
func authenticate(c *Ctx, a *acl.Registry, user, pass []byte) bool {
	u := a.Authenticate(user, pass)
	if u == nil {
		addACLLog(c, a, acl.LogEntry{Reason: acl.DeniedAuth, Context: "toplevel", Object: string(c.Args[0]),
			Username: string(user)}, strings.ToLower(string(c.Args[0])))
		return false
	}
	c.Client.Authed, c.Client.User, c.Client.ACLUser = true, u.Name, u
	return true
}

// aclAuth implements AUTH [username] password against the users (connection.go calls it).
func aclAuth(c *Ctx, a *acl.Registry) {
	a.SyncRequirePass(c.Env.Config().RequirePass)
	user, pass := []byte("default"), c.Args[len(c.Args)-1]
	if len(c.Args) == 2 {
		if a.DefaultNopass() {
			c.W.Error(ErrAuthNotSet)
			return
		}
	} else {
		user = c.Args[1]
	}
	if !authenticate(c, a, user, pass) {
		c.W.Error(ErrWrongPass)
		return
	}
	c.W.OK()
}

// userExists reports whether CLIENT KILL USER may name user.
func userExists(c *Ctx, user string) bool {
	if a := aclOf(c); a != nil {
		return a.User(user) != nil
	}
	return user == "default"
}

// CheckACL reports whether the client's user may run cmd with c.Args. When it may not, it
// answers Redis's NOPERM error, records the denial in the ACL LOG under context ("toplevel",
// "multi" while queueing in MULTI) and returns false. Clients without a user (no ACLs, as in
// unit tests) may run everything.
func CheckACL(c *Ctx, cmd *Command, context string) bool {
	u := c.Client.ACLUser
	if u == nil || u.Unrestricted() {
		return true
	}
	d := u.Check(cmd.Name, c.Args)
	if d == nil {
		return true
	}
	logACLDenial(c, u, d, context)
	c.W.Error(d.NoPerm())
	return false
}

// ACLAllows reports whether the client's user may run cmd with args, logging nothing (what a
// script's redis.acl_check_cmd answers).
func ACLAllows(c *Ctx, cmd *Command, args [][]byte) bool {
	u := c.Client.ACLUser
	return u == nil || u.Check(cmd.Name, args) == nil
}

// ACLValidCall reports whether args call cmd as the ACL knows it: false for a container
// called with a subcommand it does not have.
func ACLValidCall(cmd *Command, args [][]byte) bool {
	e, _ := ACLTable().Resolve(cmd.Name, args)
	return e == nil || !e.Container() || len(args) < 2
}

// aclDeny checks a call made on the client's behalf and logs a denial under context.
func aclDeny(c *Ctx, cmd *Command, args [][]byte, context string) *acl.Denial {
	u := c.Client.ACLUser
	if u == nil {
		return nil
	}
	d := u.Check(cmd.Name, args)
	if d != nil {
		logACLDenial(c, u, d, context)
	}
	return d
}

// logACLDenial records a denial of u's in the ACL LOG under context.
func logACLDenial(c *Ctx, u *acl.User, d *acl.Denial, context string) {
	if a := aclOf(c); a != nil {
		addACLLog(c, a, acl.LogEntry{Reason: d.Reason, Context: context, Object: d.Object, Username: u.Name},
			d.Command)
	}
}

// ACLScriptDenial checks a script's redis.call on behalf of the client running the script: it
// returns "" when the client's user may run cmd with args, else Redis 7.0's error text
// ("The user executing the script can't run this command or subcommand", ...) after logging
// the denial in the ACL LOG (context "lua").
func ACLScriptDenial(c *Ctx, cmd *Command, args [][]byte) string {
	if d := aclDeny(c, cmd, args, "lua"); d != nil {
		return d.ScriptError()
	}
	return ""
}

// ACLExecDenial checks a queued command when EXEC runs it, as Redis 7.0 does in case the rules
// changed since it was queued: "" when allowed, else the NOPERM error to answer for it (logged
// with context "multi"). Queueing itself should call CheckACL(c, cmd, "multi").
func ACLExecDenial(c *Ctx, cmd *Command, args [][]byte) string {
	if d := aclDeny(c, cmd, args, "multi"); d != nil {
		return d.ExecNoPerm()
	}
	return ""
}

// addACLLog adds an ACL LOG entry with the client's CLIENT LIST line, cmdName as its cmd, and
// keeps the acllog-max-len newest.
func addACLLog(c *Ctx, a *acl.Registry, e acl.LogEntry, cmdName string) {
	maxLen := 128
	if c.Env != nil {
		if cfg := c.Env.Config(); cfg != nil {
			maxLen = cfg.ACLLogMaxLen
		}
	}
	var list []ClientInfo
	if srv, ok := c.Env.(ServerEnv); ok {
		list = srv.Clients()
	}
	ci := selfInfo(c, list, cmdName)
	e.ClientInfo = clientLine(&ci, time.Now())
	a.AddLog(e, maxLen)
}

// aclFileError is the reply of ACL LOAD and ACL SAVE without an aclfile.
const aclFileError = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users " +
	"via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file " +
	"set) in order to store users in the Redis configuration."

// killUsers closes the connections authenticated as the given users (the caller's own after
// its reply), as Redis does when a user is deleted or replaced.
func killUsers(c *Ctx, users []*acl.User) {
	srv, ok := c.Env.(ServerEnv)
	if !ok || len(users) == 0 {
		return
	}
	srv.KillClients(c.Client, func(ci *ClientInfo) bool {
		for _, u := range users {
			if ci.ACLUser == u {
				return true
			}
		}
		return false
	})
	for _, u := range users {
		if c.Client.ACLUser == u {
			c.Client.Quit = true
		}
	}
}

// ACL subcommands with their arity (counting "acl" and the subcommand).
var aclSubs = map[string]struct {
	arity   int
	handler func(c *Ctx, a *acl.Registry)
}{
	"cat":     {-2, aclCat},
	"deluser": {-3, aclDelUser},
	"dryrun":  {-4, aclDryRun},
	"genpass": {-2, aclGenPass},
	"getuser": {3, aclGetUser},
	"help":    {2, func(c *Ctx, _ *acl.Registry) { writeHelp(c.W, aclHelpLines) }},
	"list":    {2, aclList},
	"load":    {2, aclLoad},
	"log":     {-2, aclLog},
	"save":    {2, aclSave},
	"setuser": {-3, aclSetUser},
	"users":   {2, aclUsers},
	"whoami":  {2, aclWhoAmI},
}

func aclSubNames() []string {
	var names []string
	for n := range aclSubs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var aclHelpLines = []string{
	"ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CAT [<category>]",
	"    List all commands that belong to <category>, or all command categories",
	"    when no category is specified.",
	"DELUSER <username> [<username> ...]",
	"    Delete a list of users.",
	"DRYRUN <username> <command> [<arg> ...]",
	"    Returns whether the user can execute the given command without executing the command.",
	"GETUSER <username>",
	"    Get the user's details.",
	"GENPASS [<bits>]",
	"    Generate a secure 256-bit user password. The optional `bits` argument can",
	"    be used to specify a different size.",
	"LIST",
	"    Show users details in config file format.",
	"LOAD",
	"    Reload users from the ACL file.",
	"LOG [<count> | RESET]",
	"    Show the ACL log entries.",
	"SAVE",
	"    Save the current config to the ACL file.",
	"SETUSER <username> <attribute> [<attribute> ...]",
	"    Create or modify a user with the specified attributes.",
	"USERS",
	"    List all the registered usernames.",
	"WHOAMI",
	"    Return the current connection username.",
	"HELP",
	"    Prints this help.",
}

func cmdACL(c *Ctx) {
	name := strings.ToLower(c.Arg(1))
	sub, ok := aclSubs[name]
	if !ok {
		c.W.Error(fmt.Sprintf(ErrUnknownSub, c.Arg(1), "ACL"))
		return
	}
	if !subArityOK(sub.arity, len(c.Args)) {
		c.W.Error(fmt.Sprintf(ErrWrongArity, "acl|"+name))
		return
	}
	a := aclOf(c)
	if a == nil {
		c.W.Error("ERR this command needs a running server")
		return
	}
	a.SyncRequirePass(c.Env.Config().RequirePass)
	sub.handler(c, a)
}

// aclSyntaxError is Redis's addReplySubcommandSyntaxError.
func aclSyntaxError(c *Ctx) {
	c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%.128s'. Try ACL HELP.", c.Arg(1)))
}

func aclSetUser(c *Ctx, a *acl.Registry) {
	rules := make([]string, len(c.Args)-3)
	for i, arg := range c.Args[3:] {
		rules[i] = string(arg)
	}
	u, existed, err := a.SetUser(c.Arg(2), rules)
	if err != nil {
		c.W.Error("ERR " + err.Error())
		return
	}
	if k, ok := c.Env.(SubscriberKiller); ok && existed {
		k.KillRevokedSubscribers(c.Client, u)
	}
	c.W.OK()
}

func aclDelUser(c *Ctx, a *acl.Registry) {
	names := make([]string, len(c.Args)-2)
	for i, n := range c.Args[2:] {
		names[i] = string(n)
	}
	gone, err := a.DeleteUsers(names)
	if err != nil {
		c.W.Error("ERR " + err.Error())
		return
	}
	killUsers(c, gone)
	c.W.Int(int64(len(gone)))
}

func aclGetUser(c *Ctx, a *acl.Registry) {
	u := a.User(c.Arg(2))
	if u == nil {
		c.W.Null()
		return
	}
	in := u.Info()
	c.W.Map(6)
	c.W.BulkString("flags")
	c.W.Set(len(in.Flags))
	for _, f := range in.Flags {
		c.W.BulkString(f)
	}
	c.W.BulkString("passwords")
	c.W.Array(len(in.Passwords))
	for _, p := range in.Passwords {
		c.W.BulkString(p)
	}
	writeSelector := func(s acl.SelectorInfo) {
		c.W.BulkString("commands")
		c.W.BulkString(s.Commands)
		c.W.BulkString("keys")
		c.W.BulkString(s.Keys)
		c.W.BulkString("channels")
		c.W.BulkString(s.Channels)
	}
	writeSelector(in.Selectors[0])
	c.W.BulkString("selectors")
	c.W.Array(len(in.Selectors) - 1)
	for _, s := range in.Selectors[1:] {
		c.W.Map(3)
		writeSelector(s)
	}
}

func aclList(c *Ctx, a *acl.Registry) {
	l := a.List()
	c.W.Array(len(l))
	for _, s := range l {
		c.W.BulkString(s)
	}
}

func aclUsers(c *Ctx, a *acl.Registry) {
	names := a.Users()
	c.W.Array(len(names))
	for _, n := range names {
		c.W.BulkString(n)
	}
}

func aclWhoAmI(c *Ctx, _ *acl.Registry) {
	name := c.Client.User
	if c.Client.ACLUser != nil {
		name = c.Client.ACLUser.Name
	}
	if name == "" {
		name = "default"
	}
	c.W.BulkString(name)
}

func aclCat(c *Ctx, a *acl.Registry) {
	switch len(c.Args) {
	case 2:
		cats := acl.Categories()
		c.W.Array(len(cats))
		for _, cat := range cats {
			c.W.BulkString(cat)
		}
	case 3:
		names, ok := a.Table().CategoryCommands(c.Arg(2))
		if !ok {
			c.W.Error(fmt.Sprintf("ERR Unknown category '%.128s'", c.Arg(2)))
			return
		}
		c.W.Array(len(names))
		for _, n := range names {
			c.W.BulkString(n)
		}
	default:
		aclSyntaxError(c)
	}
}

func aclGenPass(c *Ctx, _ *acl.Registry) {
	if len(c.Args) > 3 {
		aclSyntaxError(c)
		return
	}
	bits := int64(256)
	if len(c.Args) == 3 {
		n, ok := c.Int(2)
		if !ok {
			return
		}
		bits = n
	}
	if bits <= 0 || bits > 4096 {
		c.W.Error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
		return
	}
	chars := int((bits + 3) / 4)
	buf := make([]byte, (chars+1)/2)
	rand.Read(buf)
	c.W.BulkString(hex.EncodeToString(buf)[:chars])
}

func aclLog(c *Ctx, a *acl.Registry) {
	if len(c.Args) > 3 {
		aclSyntaxError(c)
		return
	}
	count := int64(10)
	if len(c.Args) == 3 {
		if strings.EqualFold(c.Arg(2), "reset") {
			a.ResetLog()
			c.W.OK()
			return
		}
		n, ok := c.Int(2)
		if !ok {
			return
		}
		count = max(n, 0)
	}
	entries := a.Log(int(min(count, math.MaxInt32)))
	now := time.Now()
	c.W.Array(len(entries))
	for _, e := range entries {
		c.W.Map(7)
		c.W.BulkString("count")
		c.W.Int(e.Count)
		c.W.BulkString("reason")
		c.W.BulkString(e.Reason.String())
		c.W.BulkString("context")
		c.W.BulkString(e.Context)
		c.W.BulkString("object")
		c.W.BulkString(e.Object)
		c.W.BulkString("username")
		c.W.BulkString(e.Username)
		c.W.BulkString("age-seconds")
		c.W.Double(float64(now.Sub(e.Created).Milliseconds()) / 1000)
		c.W.BulkString("client-info")
		c.W.BulkString(e.ClientInfo)
	}
}

func aclDryRun(c *Ctx, a *acl.Registry) {
	u := a.User(c.Arg(2))
	if u == nil {
		c.W.Error(fmt.Sprintf("ERR User '%s' not found", c.Arg(2)))
		return
	}
	args := c.Args[3:]
	cmd := Lookup(args[0])
	if cmd == nil || !ACLValidCall(cmd, args) {
		c.W.Error(fmt.Sprintf("ERR Command '%s' not found", args[0]))
		return
	}
	e, _ := a.Table().Resolve(cmd.Name, args)
	arity := cmd.Arity
	if e.Arity() != 0 {
		arity = e.Arity()
	}
	if !subArityOK(arity, len(args)) {
		c.W.Error(fmt.Sprintf(ErrWrongArity, e.Name()))
		return
	}
	if d := u.Check(cmd.Name, args); d != nil {
		c.W.BulkString(d.DryRun())
		return
	}
	c.W.OK()
}

func aclLoad(c *Ctx, a *acl.Registry) {
	path := c.Env.Config().ACLFile
	if path == "" {
		c.W.Error(aclFileError)
		return
	}
	replaced, err := a.LoadFile(path)
	if err != nil {
		c.W.Error("ERR " + err.Error())
		return
	}
	killUsers(c, replaced)
	c.W.OK()
}

func aclSave(c *Ctx, a *acl.Registry) {
	path := c.Env.Config().ACLFile
	if path == "" {
		c.W.Error(aclFileError)
		return
	}
	if err := a.SaveFile(path); err != nil {
		slog.Warn("ACL SAVE failed", "file", path, "err", err)
		c.W.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	c.W.OK()
}
