package acl

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

// Registry is a server's users, its ACL log and the requirepass bookkeeping of the default
// user.
type Registry struct {
	t       *Table
	mu      sync.Mutex // guards users and changes of rules
	users   map[string]*User
	def     *User
	reqpass atomic.Pointer[string] // requirepass last applied to the default user

	logMu sync.Mutex
	log   []*LogEntry // newest first
}

// New returns a registry over the command universe t with only the default user
// ("on nopass ~* &* +@all").
func New(t *Table) *Registry {
	r := &Registry{t: t, users: map[string]*User{}}
	r.def = &User{Name: "default", reg: r}
	r.def.rules.Store(r.defaultUserRules())
	r.users["default"] = r.def
	return r
}

func (r *Registry) defaultUserRules() *userRules {
	ru := newUserRules(r.t)
	for _, op := range []string{"+@all", "~*", "&*", "on", "nopass"} {
		ru.set(op)
	}
	return ru.seal()
}

// Table returns the command universe the registry's rules range over.
func (r *Registry) Table() *Table { return r.t }

// Default returns the default user, which new connections run as.
func (r *Registry) Default() *User { return r.def }

// User returns the user called name, or nil.
func (r *Registry) User(name string) *User {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.users[name]
}

// Users returns the names of the users, sorted (ACL USERS).
func (r *Registry) Users() []string {
	r.mu.Lock()
	names := make([]string, 0, len(r.users))
	for n := range r.users {
		names = append(names, n)
	}
	r.mu.Unlock()
	sort.Strings(names)
	return names
}

// DefaultNopass reports whether the default user needs no password (Redis's protected mode
// and AUTH <password> look at this).
func (r *Registry) DefaultNopass() bool { return r.def.get().flags&userNopass != 0 }

// DefaultAuthed reports whether a new connection starts authenticated: the default user needs
// no password and is on.
func (r *Registry) DefaultAuthed() bool {
	ru := r.def.get()
	return ru.flags&userNopass != 0 && ru.flags&userOff == 0
}

// AuthRequired reports whether connections that have not authenticated must (Redis's
// authRequired): the default user has a password or is off, after making requirepass, which
// CONFIG SET may have changed, the default user's password.
func (r *Registry) AuthRequired(requirepass string) bool {
	r.SyncRequirePass(requirepass)
	return !r.DefaultAuthed()
}

// SyncRequirePass makes requirepass the default user's password when it changed since the
// last call (startup, CONFIG SET): "resetpass >pass", or "nopass" for an empty one, as Redis's
// ACLUpdateDefaultUserPassword. It is cheap when nothing changed.
func (r *Registry) SyncRequirePass(pass string) {
	if p := r.reqpass.Load(); p != nil && *p == pass {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.reqpass.Load(); p != nil && *p == pass {
		return
	}
	ru := r.def.get().clone()
	ru.set("resetpass")
	if pass != "" {
		ru.set(">" + pass)
	} else {
		ru.set("nopass")
	}
	r.def.rules.Store(ru.seal())
	r.reqpass.Store(&pass)
}

// Authenticate returns the user that user and pass authenticate, or nil: the user exists, is
// on, and needs no password or has pass among its passwords.
func (r *Registry) Authenticate(user, pass []byte) *User {
	r.mu.Lock()
	u := r.users[string(user)]
	r.mu.Unlock()
	if u == nil {
		return nil
	}
	ru := u.get()
	if ru.flags&userOff != 0 {
		return nil
	}
	if ru.flags&userNopass != 0 {
		return u
	}
	h := hashPassword(pass)
	ok := false
	for _, p := range ru.passwords {
		if subtle.ConstantTimeCompare([]byte(h), []byte(p)) == 1 {
			ok = true
		}
	}
	if ok {
		return u
	}
	return nil
}

// SetUser creates the user called name or changes its rules, as ACL SETUSER: the rules apply
// in order to a copy of the user's (or a new user's "off" rules), and replace them only when
// every rule applied. Its errors carry Redis's texts, without the "ERR " of the reply. existed
// tells whether the user was there before.
func (r *Registry) SetUser(name string, rules []string) (u *User, existed bool, err error) {
	if hasSpaces(name) {
		return nil, false, errors.New("Usernames can't contain spaces or null characters")
	}
	args, bad := mergeSelectorArgs(rules)
	if bad >= 0 {
		return nil, false, fmt.Errorf("Unmatched parenthesis in acl selector starting at '%s'.", rules[bad])
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	u = r.users[name]
	existed = u != nil
	ru := newUserRules(r.t)
	if existed {
		ru = u.get().clone()
	}
	for _, op := range args {
		if err := ru.set(op); err != nil {
			return nil, existed, fmt.Errorf("Error in ACL SETUSER modifier '%s': %w", op, err)
		}
	}
	if !existed {
		u = &User{Name: name, reg: r}
		r.users[name] = u
	}
	u.rules.Store(ru.seal())
	return u, existed, nil
}

// DeleteUsers removes the users named, as ACL DELUSER, and returns those that existed; their
// rules become "off -@all", so connections still holding them can do nothing. The default
// user cannot be removed: naming it is an error and removes nobody.
func (r *Registry) DeleteUsers(names []string) ([]*User, error) {
	for _, n := range names {
		if n == "default" {
			return nil, errors.New("The 'default' user cannot be removed")
		}
	}
	var gone []*User
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		if u := r.users[n]; u != nil {
			delete(r.users, n)
			u.rules.Store(newUserRules(r.t).seal())
			gone = append(gone, u)
		}
	}
	return gone, nil
}

// List returns "user <name> <rules>" for every user, sorted by name (ACL LIST, ACL SAVE).
func (r *Registry) List() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.users))
	for n := range r.users {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "user " + n + " " + r.users[n].get().describe()
	}
	return out
}
