package server

import (
	"fmt"
	"net"

	"github.com/tidwall/redcon"

	"github.com/strata-db/strata/acl"
	"github.com/strata-db/strata/commands"
)

// This file holds who may connect and as whom: the ACL users (package acl) of the server,
// requirepass as the default user's password, and protected mode. server.go calls in through
// initACL (New) and admit (accept); the dispatcher asks the users whether a client must
// authenticate (commands.Dispatch).

// initACL creates the users, gives the default user requirepass and loads the aclfile; an
// error in the aclfile stops the server from starting, as in Redis.
func (s *Server) initACL() error {
	s.acl = commands.NewACL()
	s.acl.SyncRequirePass(s.cfg.RequirePass)
	if s.cfg.ACLFile != "" {
		if _, err := s.acl.LoadFile(s.cfg.ACLFile); err != nil {
			return fmt.Errorf("aborting startup because of ACL errors: %w", err)
		}
	}
	return nil
}

// ACL returns the server's users (commands.ACLEnv).
func (s *Server) ACL() *acl.Registry { return s.acl }

// protectedModeError is Redis 7.0.15's reply to a client refused by protected mode, byte for
// byte (including its "Setup a an" typo).
const protectedModeError = "-DENIED Redis is running in protected mode because protected mode is enabled and no " +
	"password is set for the default user. In this mode connections are only accepted from the loopback " +
	"interface. If you want to connect from external computers to Redis you may adopt one of the following " +
	"solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the " +
	"loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE " +
	"Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change " +
	"permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration " +
	"file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started " +
	"the server manually just for testing, restart it with the '--protected-mode no' option. 4) Setup a an " +
	"authentication password for the default user. NOTE: You only need to do one of the above things in order " +
	"for the server to start accepting connections from the outside.\r\n"

// protectedRefuses is protected mode's decision, as Redis 7.0's clientAcceptHandler: with
// protected-mode yes and a default user without password, a client whose address is not a
// loopback one (127.0.0.0/8, ::1) is refused. Only a server bound to a non-loopback address
// (or 0.0.0.0) can see such clients; the rule does not depend on the bind list itself.
func protectedRefuses(protectedMode string, defaultNopass bool, remote string) bool {
	if protectedMode != "yes" || !defaultNopass {
		return false
	}
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// admit prepares a new connection's authentication state, or refuses it in protected mode
// with Redis's DENIED error and returns false (the caller closes it).
func (s *Server) admit(conn redcon.Conn, c *client) bool {
	s.acl.SyncRequirePass(s.Config().RequirePass)
	if protectedRefuses(s.Config().ProtectedMode, s.acl.DefaultNopass(), conn.RemoteAddr()) {
		s.stats.rejected.Add(1)
		conn.WriteRaw([]byte(protectedModeError))
		flushConn(conn)
		return false
	}
	c.Authed = s.acl.DefaultAuthed()
	c.ACLUser = s.acl.Default()
	return true
}

// KillRevokedSubscribers closes the connections of u that are subscribed to a channel, pattern
// or shard channel u may no longer use, after ACL SETUSER changed u (commands.SubscriberKiller),
// as Redis's ACLKillPubsubClientsIfNeeded. The calling client is closed after its reply.
func (s *Server) KillRevokedSubscribers(self *commands.Client, u *acl.User) {
	var ids []int64
	for _, ci := range s.Clients() {
		if ci.ACLUser == u {
			ids = append(ids, ci.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	revoked := map[int64]bool{}
	s.mu.Lock()
	conns := make([]*client, 0, len(ids))
	for _, id := range ids {
		if c := s.clients[id]; c != nil {
			conns = append(conns, c)
		}
	}
	s.mu.Unlock()
	s.ps.mu.RLock() // subscriptions change only under it
	for _, c := range conns {
		for kind, names := range c.ps.subs {
			for name := range names {
				if !u.MayUseChannel([]byte(name), commands.SubKind(kind) == commands.SubPattern) {
					revoked[c.ID] = true
				}
			}
		}
	}
	s.ps.mu.RUnlock()
	if len(revoked) > 0 {
		s.KillClients(self, func(ci *commands.ClientInfo) bool { return revoked[ci.ID] })
	}
}
