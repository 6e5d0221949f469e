// Package acl is Strata's access control lists, as Redis 7.0 has them: users with passwords and
// command, key and channel permissions, the rules ACL SETUSER and the aclfile write them in, the
// permission check every command passes, the ACL LOG of denials, and the aclfile itself. Rule
// syntax, descriptions (ACL LIST, ACL GETUSER) and error texts follow Redis 7.0.15. The package
// knows nothing of the wire protocol, the command table or the server: the command layer
// (package commands) describes the commands to it, answers clients, and writes the replies.
//
// # Model
//
// A Registry holds a server's users by name, the default user among them, and the ACL LOG.
// A User is a name and an immutable snapshot of its rules (flags such as on/off and nopass,
// SHA-256 hashes of its passwords, its selectors), swapped atomically when ACL SETUSER
// changes it: connections keep a *User, so a change applies to them at once, and a check
// reads one consistent snapshot without a lock. requirepass is the default user's password,
// applied again whenever it changed (SyncRequirePass).
//
// The rules range over a Table, the command universe: every command and subcommand with its
// ACL categories, built once by NewTable from CommandSpecs the command layer passes in. The
// table holds Strata's commands and every other Redis 7.0 command too, so that rules naming a
// command Strata lacks are accepted and described as Redis describes them. Each entry has an
// id, its bit in a selector's command bitmap; ids follow name order, subcommands right after
// their container. The key-spec access of Redis's commands (which keys a command reads, which
// it writes) is the package's own table, keySpecs, since it is a fact about Redis's commands
// that only the ACL needs.
//
// # Selectors and rules
//
// A selector is a set of permissions: a command bitmap plus allowed first arguments
// ("+select|0"), key patterns with read and write flags ("%R~cache:*"), and channel patterns.
// A user has a root selector and any number of "(...)" selectors; a call is allowed when one of
// them allows it. Rules apply one by one, in order, to a copy of the user's snapshot, which
// replaces the user's only when every rule applied, as ACL SETUSER requires. Categories set
// or clear the bits of their commands, so "+@all -get" and "-get +@all" differ as in Redis.
// Describing a selector recomputes the shortest Redis-style rule list from the bitmap: the
// categories that best fit the allowed commands, then the single commands that differ,
// counting only Redis 7.0 commands so that the description matches what Redis prints.
//
// # The check
//
// User.Check resolves the call to its command or subcommand, extracts the keys it names (from
// the command's KeySpec, the numkeys of EVAL and FCALL, every argument of WATCH) with the
// access each needs (SET writes, and with GET reads too; BITFIELD with only GET and OVERFLOW
// reads), and the channels of PUBLISH and the SUBSCRIBE family, then asks each selector. The highest
// reason among the selectors' denials wins (command, then key, then channel), as in Redis.
// A user allowed every command, key and channel has nothing to check: Unrestricted is one
// load, which the dispatcher inlines. A Denial carries the texts each caller answers with:
// NOPERM at top level and in MULTI, the EXEC variant, the script error and ACL DRYRUN's line.
//
// # The log
//
// The ACL LOG keeps the newest denials and failed authentications, up to acllog-max-len,
// which the caller passes in. A denial like one of the ten newest (same reason, context,
// object and user, within a minute) bumps that entry's count and moves it to the front
// instead of adding one. The caller supplies the client-info line, which only the command
// layer can build.
//
// # The file
//
// LoadFile reads an aclfile, one "user <name> <rules...>" per line, and replaces every user at
// once, or nothing: all errors of the file are collected and returned with Redis's texts. The
// default user keeps its identity across a load, so its connections stay; other users are
// replaced by new ones and the old ones are turned off, and LoadFile returns them for the
// caller to disconnect. SaveFile writes ACL LIST's lines through a temporary file renamed
// over the old one.
package acl
