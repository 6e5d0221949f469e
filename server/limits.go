package server

import (
	"errors"
	"strings"
	"syscall"

	"github.com/strata-db/strata/commands"
)

// This file holds the server's side of hostile conditions: refusing writes while the disk
// fails (MISCONF, as Redis does when it cannot persist), the client output buffer limit of
// normal clients, the client query buffer limit and TCP keepalive. server.go and protocol.go
// call in through dispatch (handle), ...

// misconfPrefix starts the error that write commands get while the storage cannot write; Redis
// 7.0 answers "MISCONF Errors writing to the AOF file: <strerror>" when its AOF cannot be written.
const misconfPrefix = "MISCONF Errors writing to the disk: "

// dispatch runs one command through commands.Dispatch. While the storage reports a write
// error, write commands that pass the dispatcher's gates (known, right arity, authenticated) are
// refused with MISCONF instead, as Redis refuses them while it cannot persist; reads go on. A
// write whose commit fails on the disk gets the same reply.
func (s *Server) dispatch(ctx *commands.Ctx) {
	requirePass := s.Config().RequirePass != ""
	if err := s.store.WriteError(); err != nil {
		cmd := commands.Lookup(ctx.Args[0])
		if cmd != nil && cmd.Flags&commands.FlagWrite != 0 && cmd.CheckArity(len(ctx.Args)) &&
			(!requirePass || ctx.Client.Authed) {
			ctx.W.Error(misconfText(err))
			return
		}
	}
	start := ctx.W.Len()
	commands.Dispatch(ctx, requirePass)
	if ctx.Cmd == nil || ctx.W.Len() == start || ctx.W.Bytes()[start] != '-' {
		return
	}
	if err := s.store.WriteError(); err != nil && strings.HasPrefix(string(ctx.W.Bytes()[start:]), "-ERR storage error") {
		ctx.W.Truncate(start)
		ctx.W.Error(misconfText(err))
	}
}

// misconfText describes a storage write error in Redis's words: strerror's text for an errno.
func misconfText(err error) string {
	var errno syscall.Errno
	msg := err.Error()
	if errors.As(err, &errno) {
		msg = errno.Error()
		if msg != "" {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
	}
	return misconfPrefix + msg
}
