package acl

import (
	"fmt"
	"strings"

	"github.com/strata-db/strata/internal/glob"
)

// Reason is why a call was denied, in Redis's order (the highest wins among selectors).
type Reason int

// Reasons of a denial. OK is no denial.
const (
	OK Reason = iota
	DeniedCmd
	DeniedKey
	DeniedAuth
	DeniedChannel
)

// String returns the reason as the ACL LOG names it: "command", "key", "auth", "channel".
func (r Reason) String() string {
	switch r {
	case DeniedCmd:
		return "command"
	case DeniedKey:
		return "key"
	case DeniedAuth:
		return "auth"
	case DeniedChannel:
		return "channel"
	}
	return ""
}

// Denial is a call a user may not run.
type Denial struct {
	Reason  Reason
	Command string // the command or subcommand checked: "get", "config|get"
	Object  string // what the ACL LOG names: the command for DeniedCmd, else the key or channel
}

// NoPerm returns the error a denied call is answered with at top level or while queued in MULTI.
func (d *Denial) NoPerm() string {
	switch d.Reason {
	case DeniedCmd:
		return fmt.Sprintf("NOPERM this user has no permissions to run the '%s' command", d.Command)
	case DeniedKey:
		return "NOPERM this user has no permissions to access one of the keys used as arguments"
	}
	return "NOPERM this user has no permissions to access one of the channels used as arguments"
}

// ExecNoPerm returns the error of a queued call that EXEC finds denied (the rules changed
// since it was queued).
func (d *Denial) ExecNoPerm() string {
	var reason string
	switch d.Reason {
	case DeniedCmd:
		reason = "no permission to execute the command or subcommand"
	case DeniedKey:
		reason = "no permission to touch the specified keys"
	default:
		reason = "no permission to access one of the channels used as arguments"
	}
	return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. " +
		"This command is no longer allowed for the following reason: " + reason
}

// ScriptError returns the error of a script's redis.call the user may not run (Redis's
// getAclErrorMessage after "The user executing the script ").
func (d *Denial) ScriptError() string {
	msg := "lacking the permissions for the command"
	switch d.Reason {
	case DeniedCmd:
		msg = "can't run this command or subcommand"
	case DeniedKey:
		msg = "can't access at least one of the keys mentioned in the command arguments"
	case DeniedChannel:
		msg = "can't publish to the channel mentioned in the command"
	}
	return "The user executing the script " + msg
}

// DryRun returns ACL DRYRUN's answer for the denial.
func (d *Denial) DryRun() string {
	switch d.Reason {
	case DeniedCmd:
		return fmt.Sprintf("This user has no permissions to run the '%s' command", d.Command)
	case DeniedKey:
		return fmt.Sprintf("This user has no permissions to access the '%s' key", d.Object)
	}
	return fmt.Sprintf("This user has no permissions to access the '%s' channel", d.Object)
}

// check tells whether the selector lets a call of e run (Redis's ACLSelectorCheckCmd); on a
// denial it returns the reason and the denied key or channel and its index.
func (s *selector) check(e *Command, args [][]byte, keys []keyRef) (Reason, []byte, int) {
	if !s.allCommands && !e.noAuth && !s.bit(e.id) {
		idx := 1
		if e.parent != nil {
			idx = 2
		}
		allowed := false
		if fa := s.firstArgs[e.id]; len(args) > idx {
			for _, a := range fa {
				allowed = allowed || strings.EqualFold(a, string(args[idx]))
			}
		}
		if !allowed {
			return DeniedCmd, nil, 0
		}
	}
	if !s.allKeys {
		for i, k := range keys {
			ok := false
			for _, p := range s.keys {
				if p.flags&k.need == k.need && glob.Match(p.glob, k.key, false) {
					ok = true
					break
				}
			}
			if !ok {
				return DeniedKey, k.key, i
			}
		}
	}
	if !s.allChannels {
		chans, pattern := channels(e.top().name, args)
		for i, ch := range chans {
			ok := false
			for _, p := range s.channels {
				if pattern && p == string(ch) || !pattern && glob.Match([]byte(p), ch, false) {
					ok = true
					break
				}
			}
			if !ok {
				return DeniedChannel, ch, i
			}
		}
	}
	return OK, nil, 0
}

// Check tells whether u may run the top-level command called name with args (Redis's
// ACLCheckAllUserCommandPerm): nil when it may, else the denial. A known subcommand called
// with the wrong number of arguments is not denied: its handler answers the arity error.
func (u *User) Check(name string, args [][]byte) *Denial {
	r := u.get()
	if r.unrestricted {
		return nil
	}
	return r.check(name, args)
}

// Unrestricted reports whether u may run every command on every key and channel, so that
// nothing needs checking; it inlines, for the dispatcher's fast path.
func (u *User) Unrestricted() bool { return u.get().unrestricted }

func (r *userRules) check(name string, args [][]byte) *Denial {
	e, ok := r.selectors[0].t.Resolve(name, args)
	if !ok {
		return nil
	}
	var (
		kb   [8][]byte
		refs [8]keyRef
		keys []keyRef
	)
	for _, s := range r.selectors {
		if !s.allKeys {
			keys = e.appendKeys(args, kb[:0], refs[:0])
			break
		}
	}
	reason, lastIdx := DeniedCmd, -1
	var obj []byte
	for _, s := range r.selectors {
		res, o, idx := s.check(e, args, keys)
		if res == OK {
			return nil
		}
		if res > reason || res == reason && idx > lastIdx {
			reason, obj, lastIdx = res, o, idx
		}
	}
	d := &Denial{Reason: reason, Command: e.name, Object: string(obj)}
	if reason == DeniedCmd {
		d.Object = e.name
	}
	return d
}

// MayReadAnyKey reports whether one of u's selectors lets it run the command called name with
// args and read every key (all keys, or a "*" pattern with read access), as SORT requires
// before it takes BY and GET patterns, which name keys the call does not declare.
func (u *User) MayReadAnyKey(name string, args [][]byte) bool {
	r := u.get()
	if r.unrestricted {
		return true
	}
	e, ok := r.selectors[0].t.Resolve(name, args)
	if !ok {
		return true
	}
	var (
		kb   [8][]byte
		refs [8]keyRef
	)
	keys := e.appendKeys(args, kb[:0], refs[:0])
	for _, s := range r.selectors {
		if res, _, _ := s.check(e, args, keys); res != OK {
			continue
		}
		if s.allKeys {
			return true
		}
		for _, p := range s.keys {
			if p.flags&keyRead != 0 && p.pattern == "*" {
				return true
			}
		}
	}
	return false
}
