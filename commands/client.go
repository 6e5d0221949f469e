package commands

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

func init() {
	register(&Command{Name: "client", Arity: -2, Flags: FlagNoScript | FlagLoading | FlagStale, Handler: cmdClient,
		Sub: clientSubNames()})
	configMutable["tracking-table-max-keys"] = configIntCheck(0, math.MaxInt64)
}

// clientSub is one CLIENT subcommand: its arity counts "client" and the subcommand name.
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

func cmdClient(c *Ctx) {
	name := strings.ToLower(c.Arg(1))
	sub, ok := clientSubs[name]
	if !ok {
		c.W.Error(fmt.Sprintf(ErrUnknownSub, c.Arg(1), "CLIENT"))
		return
	}
	if !subArityOK(sub.arity, len(c.Args)) {
		c.W.Error(fmt.Sprintf(ErrWrongArity, "client|"+name))
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

// writeVerbatim writes a RESP3 verbatim string of format "txt", a bulk string in RESP2, as
// Redis does for INFO and CLIENT LIST.
func writeVerbatim(w *Writer, s string) {
	if w.Proto != 3 {
		w.BulkString(s)
		return
	}
	w.Raw([]byte("=" + strconv.Itoa(len(s)+4) + "\r\ntxt:"))
	w.Raw([]byte(s))
	w.Raw([]byte("\r\n"))
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
	ms, err := ParseInt(c.Args[2])
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
	id, err := ParseInt(c.Args[2])
	if err != nil {
		c.W.Error(ErrNotInteger)
		return
	}
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
		c.W.Error(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try CLIENT HELP.", c.Arg(1)))
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

// Tracker is implemented by a server that supports server-assisted client-side caching
// (CLIENT TRACKING, server/tracking.go). The CLIENT subcommands parse and check their options
// here, with Redis 7.0's errors, and hand the result to the server.
type Tracker interface {
	// ClientExists reports whether a client with this ID is connected (REDIRECT's check).
	ClientExists(id int64) bool
	// TrackingState returns the tracking settings of client cl.
	TrackingState(cl *Client) TrackingState
	// EnableTracking turns tracking on for cl with options already checked, or changes the
	// options of a client that tracks already (BCAST prefixes are added to the present ones).
	EnableTracking(cl *Client, o TrackingOptions)
	// DisableTracking turns tracking off for cl.
	DisableTracking(cl *Client)
	// SetCaching records CLIENT CACHING YES (OPTIN) or NO (OPTOUT) for cl's next command.
	SetCaching(cl *Client)
}

// TrackingOptions are the options of CLIENT TRACKING ON.
type TrackingOptions struct {
	Redirect                     int64 // client ID to send invalidations to; 0 for none
	Prefixes                     [][]byte
	BCast, OptIn, OptOut, NoLoop bool
}

// TrackingState is a client's tracking settings, as CLIENT TRACKINGINFO reports them.
type TrackingState struct {
	On, BCast, OptIn, OptOut, NoLoop bool
	Caching                          bool // CLIENT CACHING YES/NO was given for the next command
	BrokenRedirect                   bool // the redirect client went away
	Redirect                         int64
	Prefixes                         [][]byte // sorted
}

// tracker returns the server's Tracker, or nil when the Env has none.
func tracker(c *Ctx) Tracker {
	t, _ := c.Env.(Tracker)
	return t
}

func trackingState(c *Ctx) TrackingState {
	if t := tracker(c); t != nil {
		return t.TrackingState(c.Client)
	}
	return TrackingState{}
}

// clientTracking implements CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p ...] [BCAST] [OPTIN]
// [OPTOUT] [NOLOOP] as Redis 7.0's clientCommand: the options are parsed first (for OFF too),
// then checked against each other and against the client's present mode.
func clientTracking(c *Ctx) {
	tr := tracker(c)
	var o TrackingOptions
	for j := 3; j < len(c.Args); j++ {
		more := j < len(c.Args)-1
		switch opt := strings.ToLower(c.Arg(j)); {
		case opt == "redirect" && more:
			j++
			if o.Redirect != 0 {
				c.W.Error("ERR A client can only redirect to a single other client")
				return
			}
			id, err := ParseInt(c.Args[j])
			if err != nil {
				c.W.Error(ErrNotInteger)
				return
			}
			if tr == nil || !tr.ClientExists(id) {
				c.W.Error("ERR The client ID you want redirect to does not exist")
				return
			}
			o.Redirect = id
		case opt == "bcast":
			o.BCast = true
		case opt == "optin":
			o.OptIn = true
		case opt == "optout":
			o.OptOut = true
		case opt == "noloop":
			o.NoLoop = true
		case opt == "prefix" && more:
			j++
			o.Prefixes = append(o.Prefixes, c.Args[j])
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	switch strings.ToLower(c.Arg(2)) {
	case "on":
		if tr == nil {
			c.W.Error("ERR this command needs a running server")
			return
		}
		cur := tr.TrackingState(c.Client)
		switch {
		case !o.BCast && len(o.Prefixes) > 0:
			c.W.Error("ERR PREFIX option requires BCAST mode to be enabled")
		case cur.On && cur.BCast != o.BCast:
			c.W.Error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, " +
				"and then re-enabling it with a different mode.")
		case o.BCast && (o.OptIn || o.OptOut):
			c.W.Error("ERR OPTIN and OPTOUT are not compatible with BCAST")
		case o.OptIn && o.OptOut:
			c.W.Error("ERR You can't specify both OPTIN mode and OPTOUT mode")
		case o.OptIn && cur.OptOut || o.OptOut && cur.OptIn:
			c.W.Error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, " +
				"and then re-enabling it with a different mode.")
		case o.BCast && !prefixesOK(c, cur.Prefixes, o.Prefixes):
		default:
			tr.EnableTracking(c.Client, o)
			c.W.OK()
		}
	case "off":
		if tr != nil {
			tr.DisableTracking(c.Client)
		}
		c.W.OK()
	default:
		c.W.Error(ErrSyntax)
	}
}

// prefixesOK checks, as Redis's checkPrefixCollisionsOrReply, that no new BCAST prefix is a
// prefix of (or has as prefix) one the client has or another new one, and replies the error.
func prefixesOK(c *Ctx, have, add [][]byte) bool {
	overlap := func(a, b []byte) bool {
		n := min(len(a), len(b))
		return bytes.Equal(a[:n], b[:n])
	}
	for i, p := range add {
		for _, h := range have {
			if overlap(h, p) {
				c.W.Error(fmt.Sprintf("ERR Prefix '%s' overlaps with an existing prefix '%s'. "+
					"Prefixes for a single client must not overlap.", p, h))
				return false
			}
		}
		for _, q := range add[i+1:] {
			if overlap(p, q) {
				c.W.Error(fmt.Sprintf("ERR Prefix '%s' overlaps with another provided prefix '%s'. "+
					"Prefixes for a single client must not overlap.", p, q))
				return false
			}
		}
	}
	return true
}

func clientCaching(c *Ctx) {
	st := trackingState(c)
	if !st.On {
		c.W.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
		return
	}
	switch strings.ToLower(c.Arg(2)) {
	case "yes":
		if !st.OptIn {
			c.W.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
			return
		}
	case "no":
		if !st.OptOut {
			c.W.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
			return
		}
	default:
		c.W.Error(ErrSyntax)
		return
	}
	tracker(c).SetCaching(c.Client)
	c.W.OK()
}

func clientGetRedir(c *Ctx) {
	if st := trackingState(c); st.On {
		c.W.Int(st.Redirect)
		return
	}
	c.W.Int(-1)
}

func clientTrackingInfo(c *Ctx) {
	st := trackingState(c)
	flags := []string{"off"}
	if st.On {
		flags[0] = "on"
	}
	if st.BCast {
		flags = append(flags, "bcast")
	}
	if st.OptIn {
		flags = append(flags, "optin")
		if st.Caching {
			flags = append(flags, "caching-yes")
		}
	}
	if st.OptOut {
		flags = append(flags, "optout")
		if st.Caching {
			flags = append(flags, "caching-no")
		}
	}
	if st.NoLoop {
		flags = append(flags, "noloop")
	}
	if st.BrokenRedirect {
		flags = append(flags, "broken_redirect")
	}
	c.W.Map(3)
	c.W.BulkString("flags")
	c.W.Set(len(flags))
	for _, f := range flags {
		c.W.BulkString(f)
	}
	c.W.BulkString("redirect")
	if st.On {
		c.W.Int(st.Redirect)
	} else {
		c.W.Int(-1)
	}
	c.W.BulkString("prefixes")
	c.W.Array(len(st.Prefixes))
	for _, p := range st.Prefixes {
		c.W.Bulk(p)
	}
}

// clientLine formats one CLIENT LIST line (without the newline) in Redis 7.0's layout, with
// Redis 7.2's lib-name and lib-ver at the end.
func clientLine(ci *ClientInfo, now time.Time) string {
	var b strings.Builder
	b.Grow(320)
	b.WriteString("id=")
	b.WriteString(strconv.FormatInt(ci.ID, 10))
	b.WriteString(" addr=")
	b.WriteString(ci.Addr)
	b.WriteString(" laddr=")
	b.WriteString(ci.LAddr)
	b.WriteString(" fd=")
	b.WriteString(strconv.Itoa(ci.FD))
	b.WriteString(" name=")
	b.WriteString(ci.Name)
	b.WriteString(" age=")
	b.WriteString(strconv.FormatInt(int64(now.Sub(ci.Created)/time.Second), 10))
	b.WriteString(" idle=")
	b.WriteString(strconv.FormatInt(max(int64(now.Sub(ci.LastActive)/time.Second), 0), 10))
	b.WriteString(" flags=")
	b.WriteString(ci.Flags)
	b.WriteString(" db=")
	b.WriteString(strconv.Itoa(ci.DB))
	b.WriteString(" sub=0 psub=0 ssub=0 multi=-1 qbuf=")
	b.WriteString(strconv.Itoa(ci.QueryBuf))
	b.WriteString(" qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=")
	b.WriteString(ci.LastCmd)
	b.WriteString(" user=")
	user := ci.User
	if user == "" {
		user = "default"
	}
	b.WriteString(user)
	b.WriteString(" redir=")
	b.WriteString(strconv.FormatInt(ci.Redir, 10))
	b.WriteString(" resp=")
	b.WriteString(strconv.Itoa(ci.Proto))
	b.WriteString(" lib-name=")
	b.WriteString(ci.LibName)
	b.WriteString(" lib-ver=")
	b.WriteString(ci.LibVer)
	return b.String()
}

// selfInfo returns the calling client's ClientInfo from the server's snapshot, updated with
// its current settings.
func selfInfo(c *Ctx, list []ClientInfo, cmd string) ClientInfo {
	for _, ci := range list {
		if ci.ID == c.Client.ID {
			ci.Client = *c.Client
			ci.LastCmd = cmd
			ci.LastActive = time.Now()
			ci.QueryBuf = requestSize(c.Args)
			return ci
		}
	}
	return ClientInfo{Client: *c.Client, FD: -1, Created: time.Now(), LastActive: time.Now(), LastCmd: cmd, Flags: "N",
		Redir: -1, QueryBuf: requestSize(c.Args)}
}

// requestSize returns the length of args sent as a RESP array of bulk strings: while a
// command runs, its request is still in the client's query buffer (CLIENT LIST's qbuf).
func requestSize(args [][]byte) int {
	n := 1 + len(strconv.Itoa(len(args))) + 2
	for _, a := range args {
		n += 1 + len(strconv.Itoa(len(a))) + 2 + len(a) + 2
	}
	return n
}

func clientInfo(c *Ctx) {
	srv := serverEnv(c)
	if srv == nil {
		return
	}
	ci := selfInfo(c, srv.Clients(), "client|info")
	writeVerbatim(c.W, clientLine(&ci, time.Now())+"\n")
}

// clientType checks a CLIENT LIST / KILL type name; Strata has only normal clients.
func clientType(c *Ctx, name string) (string, bool) {
	t := strings.ToLower(name)
	switch t {
	case "normal", "master", "replica", "pubsub":
		return t, true
	case "slave":
		return "replica", true
	}
	c.W.Error(fmt.Sprintf("ERR Unknown client type '%s'", name))
	return "", false
}

func clientList(c *Ctx) {
	srv := serverEnv(c)
	if srv == nil {
		return
	}
	typ := ""
	var ids map[int64]bool
	switch {
	case len(c.Args) == 2:
	case len(c.Args) == 4 && strings.EqualFold(c.Arg(2), "type"):
		t, ok := clientType(c, c.Arg(3))
		if !ok {
			return
		}
		typ = t
	case len(c.Args) >= 4 && strings.EqualFold(c.Arg(2), "id"):
		ids = map[int64]bool{}
		for _, a := range c.Args[3:] {
			id, err := ParseInt(a)
			if err != nil {
				c.W.Error("ERR Invalid client ID")
				return
			}
			ids[id] = true
		}
	default:
		c.W.Error(ErrSyntax)
		return
	}
	list := srv.Clients()
	now := time.Now()
	var b strings.Builder
	for _, ci := range list {
		if typ != "" && typ != "normal" {
			continue // no replicas, masters or subscribers are tracked as such
		}
		if ids != nil && !ids[ci.ID] {
			continue
		}
		if ci.ID == c.Client.ID {
			ci = selfInfo(c, list, "client|list")
		}
		b.WriteString(clientLine(&ci, now))
		b.WriteByte('\n')
	}
	writeVerbatim(c.W, b.String())
}

func clientKill(c *Ctx) {
	srv := serverEnv(c)
	if srv == nil {
		return
	}
	if len(c.Args) == 3 {
		// Old form: CLIENT KILL addr, which may name the caller itself.
		addr := c.Arg(2)
		n := srv.KillClients(c.Client, func(ci *ClientInfo) bool { return ci.Addr == addr })
		if n == 0 {
			c.W.Error("ERR No such client")
			return
		}
		c.W.OK()
		return
	}
	var (
		id                int64
		typ, addr, laddr  string
		user              string
		hasUser, hasLAddr bool
		skipMe            = true
	)
	for i := 2; i < len(c.Args); i += 2 {
		if i+1 >= len(c.Args) {
			c.W.Error(ErrSyntax)
			return
		}
		v := c.Arg(i + 1)
		switch strings.ToLower(c.Arg(i)) {
		case "id":
			n, err := ParseInt(c.Args[i+1])
			if err != nil || n <= 0 {
				c.W.Error("ERR client-id should be greater than 0")
				return
			}
			id = n
		case "type":
			t, ok := clientType(c, v)
			if !ok {
				return
			}
			typ = t
		case "addr":
			addr = v
		case "laddr":
			laddr, hasLAddr = v, true
		case "user":
			if !userExists(c, v) { // acl.go
				c.W.Error(fmt.Sprintf("ERR No such user '%s'", v))
				return
			}
			user, hasUser = v, true
		case "skipme":
			switch strings.ToLower(v) {
			case "yes":
				skipMe = true
			case "no":
				skipMe = false
			default:
				c.W.Error(ErrSyntax)
				return
			}
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	self := c.Client.ID
	n := srv.KillClients(c.Client, func(ci *ClientInfo) bool {
		switch {
		case id != 0 && ci.ID != id,
			typ != "" && typ != "normal",
			addr != "" && ci.Addr != addr,
			hasLAddr && ci.LAddr != laddr,
			hasUser && ci.User != user && !(ci.User == "" && user == "default"),
			skipMe && ci.ID == self:
			return false
		}
		return true
	})
	c.W.Int(int64(n))
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
func writeHelp(w *Writer, lines []string) {
	w.Array(len(lines))
	for _, l := range lines {
		w.Status(l)
	}
}
