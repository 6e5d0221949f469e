package commands

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/strata-db/strata/internal/num"
	"github.com/strata-db/strata/internal/resp"
)

func init() {
	register(&Command{Name: "client", Arity: -2, Flags: FlagNoScript | FlagLoading | FlagStale, Handler: cmdClient,
		Sub: clientSubNames()})
	configMutable["tracking-table-max-keys"] = configIntCheck(0, math.MaxInt64)
}

// clientSub is one subcommand of a container command (CLIENT, SLOWLOG): its arity counts the
// container and the subcommand name.
type clientSub struct {
	arity   int
	handler func(c *Ctx)
}

var clientSubs = map[string]clientSub{
	"caching":      {3, clientCaching},
	"getname":      {2, clientGetName},
	"getredir":     {2, clientGetRedir},
	"help":         {2, clientHelp},
	"id":           {2, func(c *Ctx) { c.W.Int(c.Client.ID) }},
	"info":         {2, clientInfo},
	"kill":         {-3, clientKill},
	"list":         {-2, clientList},
	"no-evict":     {3, func(c *Ctx) { clientOnOff(c, &c.Client.NoEvict) }},
	"no-touch":     {3, func(c *Ctx) { clientOnOff(c, &c.Client.NoTouch) }},
	"pause":        {-3, clientPause},
	"reply":        {3, clientReply},
	"setinfo":      {4, clientSetInfo},
	"setname":      {3, clientSetName},
	"tracking":     {-3, clientTracking},
	"trackinginfo": {2, clientTrackingInfo},
	"unblock":      {-3, clientUnblock},
	"unpause":      {2, clientUnpause},
}

func clientSubNames() []string {
	var names []string
	for n := range clientSubs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// subArityOK checks n arguments against a subcommand arity as Redis does.
func subArityOK(arity, n int) bool {
	if arity >= 0 {
		return n == arity
	}
	return n >= -arity
}

func cmdClient(c *Ctx) { runSub(c, "client", clientSubs) }

// runSub runs the subcommand of container (CLIENT, SLOWLOG, ...) that c names, after its arity
// check, with Redis's errors for an unknown subcommand or a wrong number of arguments.
func runSub(c *Ctx, container string, subs map[string]clientSub) {
	name := strings.ToLower(c.Arg(1))
	sub, ok := subs[name]
	if !ok {
		c.W.Error(fmt.Sprintf(ErrUnknownSub, c.Arg(1), strings.ToUpper(container)))
		return
	}
	if !subArityOK(sub.arity, len(c.Args)) {
		c.W.Error(fmt.Sprintf(ErrWrongArity, container+"|"+name))
		return
	}
	sub.handler(c)
}

// serverEnv returns the running server, or replies with an error and returns nil.
func serverEnv(c *Ctx) ServerEnv {
	if s, ok := c.Env.(ServerEnv); ok {
		return s
	}
	c.W.Error("ERR this command needs a running server")
	return nil
}

func clientGetName(c *Ctx) {
	if c.Client.Name == "" {
		c.W.Null()
		return
	}
	c.W.BulkString(c.Client.Name)
}

func clientSetName(c *Ctx) {
	if !validClientName(c.Args[2]) {
		c.W.Error(errClientName)
		return
	}
	c.Client.Name = c.Arg(2)
	c.W.OK()
}

func clientSetInfo(c *Ctx) {
	var dst *string
	switch strings.ToLower(c.Arg(2)) {
	case "lib-name":
		dst = &c.Client.LibName
	case "lib-ver":
		dst = &c.Client.LibVer
	default:
		c.W.Error(fmt.Sprintf("ERR Unrecognized option '%s'", c.Arg(2)))
		return
	}
	if !validClientName(c.Args[3]) {
		c.W.Error(fmt.Sprintf("ERR %s cannot contain spaces, newlines or special characters.", c.Arg(2)))
		return
	}
	*dst = c.Arg(3)
	c.W.OK()
}

// clientOnOff implements the ON|OFF switches NO-EVICT and NO-TOUCH.
func clientOnOff(c *Ctx, flag *bool) {
	switch strings.ToLower(c.Arg(2)) {
	case "on":
		*flag = true
	case "off":
		*flag = false
	default:
		c.W.Error(ErrSyntax)
		return
	}
	c.W.OK()
}

func clientReply(c *Ctx) {
	switch strings.ToLower(c.Arg(2)) {
	case "on":
		// ON also clears the skip that CLIENT REPLY SKIP set for this very command.
		c.Client.ReplyOff, c.Client.SkipNext, c.Client.SkipThis = false, false, false
		c.W.OK()
	case "off":
		c.Client.ReplyOff = true
	case "skip":
		if !c.Client.ReplyOff {
			c.Client.SkipNext = true
		}
	default:
		c.W.Error(ErrSyntax)
	}
}

func clientPause(c *Ctx) {
	srv := serverEnv(c)
	if srv == nil {
		return
	}
	ms, err := num.ParseInt(c.Args[2])
	if err != nil {
		c.W.Error("ERR timeout is not an integer or out of range")
		return
	}
	if ms < 0 {
		c.W.Error(ErrTimeoutNegative)
		return
	}
	all := true
	if len(c.Args) > 4 {
		c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try CLIENT HELP.", c.Arg(1)))
		return
	}
	if len(c.Args) == 4 {
		switch strings.ToLower(c.Arg(3)) {
		case "write":
			all = false
		case "all":
		default:
			c.W.Error("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	}
	srv.Pause(time.Duration(ms)*time.Millisecond, all)
	c.W.OK()
}

func clientUnpause(c *Ctx) {
	if srv := serverEnv(c); srv != nil {
		srv.Unpause()
		c.W.OK()
	}
}

// Unblocker is implemented by a server that can wake a client blocked in BLPOP & co.
type Unblocker interface {
	// UnblockClient wakes client id if it is blocked, as if its timeout passed (withError
	// false) or with an -UNBLOCKED error, and reports whether it was blocked.
	UnblockClient(id int64, withError bool) bool
}

func clientUnblock(c *Ctx) {
	withError := false
	if len(c.Args) == 4 {
		switch strings.ToLower(c.Arg(3)) {
		case "timeout":
		case "error":
			withError = true
		default:
			c.W.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	} else if len(c.Args) > 4 {
		c.W.Error(fmt.Sprintf(ErrSubSyntax, c.Arg(1), "CLIENT"))
		return
	}
	id, err := num.ParseInt(c.Args[2])
	if err != nil {
		c.W.Error(ErrNotInteger)
		return
	}
	u, ok := c.Env.(Unblocker)
	if !ok {
		c.W.Error("ERR CLIENT UNBLOCK is not supported by this server")
		return
	}
	if u.UnblockClient(id, withError) {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}

var clientHelpLines = []string{
	"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CACHING (YES|NO)",
	"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
	"GETREDIR",
	"    Return the client ID we are redirecting to when tracking is enabled.",
	"GETNAME",
	"    Return the name of the current connection.",
	"ID",
	"    Return the ID of the current connection.",
	"INFO",
	"    Return information about the current client connection.",
	"KILL <ip:port>",
	"    Kill connection made from <ip:port>.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections. Options are:",
	"    * ADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made from the specified address",
	"    * LADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made to specified local address",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Kill connections by type.",
	"    * USER <username>",
	"      Kill connections authenticated by <username>.",
	"    * SKIPME (YES|NO)",
	"      Skip killing current connection (default: yes).",
	"LIST [options ...]",
	"    Return information about client connections. Options:",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Return clients of specified type.",
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"SETINFO <option> <value>",
	"    Set client meta attr. Options are:",
	"    * LIB-NAME: the client lib name.",
	"    * LIB-VER: the client lib version.",
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Control server assisted client side caching.",
	"TRACKINGINFO",
	"    Report tracking status for the current connection.",
	"NO-EVICT (ON|OFF)",
	"    Protect current client connection from eviction.",
	"NO-TOUCH (ON|OFF)",
	"    Will not touch LRU/LFU stats when this mode is on.",
	"HELP",
	"    Prints this help.",
}

func clientHelp(c *Ctx) { writeHelp(c.W, clientHelpLines) }

// writeHelp writes a HELP reply: an array of status lines.
func writeHelp(w *resp.Writer, lines []string) {
	w.Array(len(lines))
	for _, l := range lines {
		w.Status(l)
	}
}
