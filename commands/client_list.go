package commands

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strata-db/strata/internal/num"
)

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
	b.WriteString(" sub=")
	b.WriteString(strconv.Itoa(ci.Subs[SubChannel]))
	b.WriteString(" psub=")
	b.WriteString(strconv.Itoa(ci.Subs[SubPattern]))
	b.WriteString(" ssub=")
	b.WriteString(strconv.Itoa(ci.Subs[SubShard]))
	b.WriteString(" multi=-1 qbuf=")
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
	c.W.Verbatim(clientLine(&ci, time.Now()) + "\n")
}

// clientType checks a CLIENT LIST / KILL type name.
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
			id, err := num.ParseInt(a)
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
		if typ != "" && typ != ci.Type() {
			continue
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
	c.W.Verbatim(b.String())
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
			n, err := num.ParseInt(c.Args[i+1])
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
			typ != "" && typ != ci.Type(),
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
