package acl

// Rule errors, for the package's external tests.
var (
	ErrUnknown       = errUnknown
	ErrSyntax        = errSyntax
	ErrKeysAfterAll  = errKeysAfterAll
	ErrChansAfterAll = errChansAfterAll
	ErrNoSuchPass    = errNoSuchPass
	ErrBadHash       = errBadHash
	ErrFirstArgSub   = errFirstArgSub
)

// KeyAccess returns the key-spec access letters of a command ("rw", "b*", ...) and whether
// it has any.
func KeyAccess(name string) (string, bool) {
	s, ok := keySpecs[name]
	return s, ok
}

// Redis70 reports whether the command called name is a Redis 7.0 command of t.
func (t *Table) Redis70(name string) bool {
	e := t.byName[name]
	return e != nil && e.redis70
}
