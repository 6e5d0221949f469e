package acl

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// LoadFile replaces the users with those of an ACL file, as Redis's ACLLoadFromFile: one
// "user <name> <rules...>" per line; any error leaves the users as they were and is returned
// with Redis's text. The default user keeps its identity (connections stay with it); it is
// reset to "on nopass ~* &* +@all" when the file does not define it. It returns the users
// replaced, whose connections the caller should close.
func (r *Registry) LoadFile(path string) (replaced []*User, err error) {
	data, rerr := os.ReadFile(path)
	if rerr != nil {
		msg := rerr.Error()
		var pe *os.PathError
		if errors.As(rerr, &pe) {
			msg = pe.Err.Error()
			if len(msg) > 0 {
				msg = strings.ToUpper(msg[:1]) + msg[1:]
			}
		}
		return nil, fmt.Errorf("Error loading ACLs, opening file '%s': %s", path, msg)
	}
	var errs strings.Builder
	users := map[string]*userRules{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", path, i+1)
			continue
		}
		if hasSpaces(argv[1]) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", path, i+1, argv[1])
			continue
		}
		if users[argv[1]] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], i+1)
			continue
		}
		ru := newUserRules(r.t)
		users[argv[1]] = ru
		args, bad := mergeSelectorArgs(argv[2:])
		if bad >= 0 {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", path, i+1)
		}
		for _, op := range args {
			if err := ru.set(strings.Trim(op, "\t\r\n")); err != nil {
				fmt.Fprintf(&errs, "%s:%d: %s. ", path, i+1, err)
			}
		}
	}
	if errs.Len() > 0 {
		errs.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
		return nil, errors.New(errs.String())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	def := users["default"]
	if def == nil {
		def = r.defaultUserRules()
	}
	for name, u := range r.users {
		if name != "default" {
			u.rules.Store(newUserRules(r.t).seal())
			replaced = append(replaced, u)
		}
	}
	r.users = map[string]*User{"default": r.def}
	r.def.rules.Store(def.seal())
	for name, ru := range users {
		if name != "default" {
			u := &User{Name: name, reg: r}
			u.rules.Store(ru.seal())
			r.users[name] = u
		}
	}
	return replaced, nil
}

// SaveFile writes the users to path in ACL file format, through a temporary file renamed over it.
func (r *Registry) SaveFile(path string) error {
	var b strings.Builder
	for _, l := range r.List() {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	tmp := fmt.Sprintf("%s.tmp-%d-%d", path, os.Getpid(), time.Now().UnixMilli())
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
