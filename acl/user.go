package acl

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync/atomic"

	"github.com/strata-db/strata/internal/glob"
)

// User flags, in the order Redis describes them.
const (
	userOn = 1 << iota
	userOff
	userNopass
	userSkipSanitize
	userSanitize
)

var userFlagNames = []struct {
	f    int
	name string
}{{userOn, "on"}, {userOff, "off"}, {userNopass, "nopass"}, {userSkipSanitize, "skip-sanitize-payload"},
	{userSanitize, "sanitize-payload"}}

// userRules is an immutable snapshot of a user's settings; ACL SETUSER builds a new one.
type userRules struct {
	flags        int
	passwords    []string // SHA-256 hex of each password
	selectors    []*selector
	unrestricted bool // one selector allowing every command, key and channel: nothing to check
}

func newUserRules(t *Table) *userRules {
	return &userRules{flags: userOff, selectors: []*selector{newSelector(t, true)}}
}

func (r *userRules) clone() *userRules {
	d := &userRules{flags: r.flags, passwords: append([]string(nil), r.passwords...)}
	for _, s := range r.selectors {
		d.selectors = append(d.selectors, s.clone())
	}
	return d
}

func (r *userRules) seal() *userRules {
	root := r.selectors[0]
	r.unrestricted = len(r.selectors) == 1 && root.allCommands && root.allKeys && root.allChannels
	return r
}

// hashPassword returns the SHA-256 hex digest Redis stores for a password.
func hashPassword(p []byte) string {
	h := sha256.Sum256(p)
	return hex.EncodeToString(h[:])
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// set applies one user rule (Redis's ACLSetUser).
func (r *userRules) set(op string) error {
	if op == "" {
		return nil
	}
	eq := func(w string) bool { return strings.EqualFold(op, w) }
	switch {
	case eq("on"):
		r.flags = r.flags&^userOff | userOn
	case eq("off"):
		r.flags = r.flags&^userOn | userOff
	case eq("skip-sanitize-payload"):
		r.flags = r.flags&^userSanitize | userSkipSanitize
	case eq("sanitize-payload"):
		r.flags = r.flags&^userSkipSanitize | userSanitize
	case eq("nopass"):
		r.flags |= userNopass
		r.passwords = nil
	case eq("resetpass"):
		r.flags &^= userNopass
		r.passwords = nil
	case op[0] == '>' || op[0] == '#':
		h := op[1:]
		if op[0] == '>' {
			h = hashPassword([]byte(h))
		} else if !validHash(h) {
			return errBadHash
		}
		found := false
		for _, p := range r.passwords {
			found = found || p == h
		}
		if !found {
			r.passwords = append(r.passwords, h)
		}
		r.flags &^= userNopass
	case op[0] == '<' || op[0] == '!':
		h := op[1:]
		if op[0] == '<' {
			h = hashPassword([]byte(h))
		} else if !validHash(h) {
			return errBadHash
		}
		for i, p := range r.passwords {
			if p == h {
				r.passwords = append(r.passwords[:i:i], r.passwords[i+1:]...)
				return nil
			}
		}
		return errNoSuchPass
	case op[0] == '(' && op[len(op)-1] == ')':
		s := newSelector(r.selectors[0].t, false)
		args, _ := splitArgs(op[1 : len(op)-1])
		for _, a := range args {
			if err := s.set(a); err != nil {
				return err
			}
		}
		r.selectors = append(r.selectors, s)
	case eq("clearselectors"):
		r.selectors = r.selectors[:1]
	case eq("reset"):
		for _, o := range []string{"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload",
			"clearselectors", "-@all"} {
			r.set(o)
		}
	default:
		return r.selectors[0].set(op)
	}
	return nil
}

// describe returns the user's rules as ACL LIST shows them (ACLDescribeUser).
func (r *userRules) describe() string {
	var b strings.Builder
	for _, f := range userFlagNames {
		if r.flags&f.f != 0 {
			b.WriteString(f.name)
			b.WriteByte(' ')
		}
	}
	for _, p := range r.passwords {
		b.WriteByte('#')
		b.WriteString(p)
		b.WriteByte(' ')
	}
	for _, s := range r.selectors {
		if s.root {
			b.WriteString(s.describe())
		} else {
			b.WriteString(" (" + s.describe() + ")")
		}
	}
	return b.String()
}

// User is an ACL user. Connections hold the user they are authenticated as; ACL SETUSER
// replaces its rules in place, so they apply to those connections at once, as in Redis.
type User struct {
	Name  string
	rules atomic.Pointer[userRules]
	reg   *Registry
}

func (u *User) get() *userRules { return u.rules.Load() }

// Registry returns the registry the user belongs to.
func (u *User) Registry() *Registry { return u.reg }

// Describe returns the user's rules as ACL LIST shows them after the name.
func (u *User) Describe() string { return u.get().describe() }

// MayUseChannel reports whether u may subscribe to a channel, or (pattern) to a pattern, which
// is compared literally with the user's channel patterns, as Redis's ACLUserCheckChannelPerm.
func (u *User) MayUseChannel(name []byte, pattern bool) bool {
	for _, s := range u.get().selectors {
		if s.allChannels {
			return true
		}
		for _, p := range s.channels {
			if pattern && p == string(name) || !pattern && glob.Match([]byte(p), name, false) {
				return true
			}
		}
	}
	return false
}

// SelectorInfo is one selector as ACL GETUSER shows it.
type SelectorInfo struct {
	Commands, Keys, Channels string
}

// UserInfo is a user as ACL GETUSER shows it: its flags in Redis's order, its password hashes,
// and its selectors, the root one first.
type UserInfo struct {
	Flags     []string
	Passwords []string
	Selectors []SelectorInfo
}

// Info returns the user's settings for ACL GETUSER.
func (u *User) Info() UserInfo {
	r := u.get()
	var in UserInfo
	for _, f := range userFlagNames {
		if r.flags&f.f != 0 {
			in.Flags = append(in.Flags, f.name)
		}
	}
	in.Passwords = append([]string(nil), r.passwords...)
	for _, s := range r.selectors {
		in.Selectors = append(in.Selectors, SelectorInfo{s.describeCommands(), s.keysString(), s.channelsString()})
	}
	return in
}
