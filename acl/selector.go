package acl

import (
	"math"
	"strings"
)

// Key permissions of a key pattern (%R~, %W~, ~).
const (
	keyRead  = 1
	keyWrite = 2
	keyAll   = keyRead | keyWrite
)

type keyPattern struct {
	flags   int
	pattern string
	glob    []byte // pattern, for matching
}

func (p keyPattern) String() string {
	switch p.flags {
	case keyRead:
		return "%R~" + p.pattern
	case keyWrite:
		return "%W~" + p.pattern
	}
	return "~" + p.pattern
}

// selector is a set of command, key and channel permissions: a user's root selector or one of
// its "(...)" selectors. A command is allowed when one selector allows it with its keys and
// channels.
type selector struct {
	t                                 *Table
	root                              bool
	allKeys, allChannels, allCommands bool
	bits                              []uint64 // allowed command ids, plus the future-commands bit
	firstArgs                         map[int][]string
	keys                              []keyPattern
	channels                          []string
}

func newSelector(t *Table, root bool) *selector {
	return &selector{t: t, root: root, bits: make([]uint64, t.words)}
}

func (s *selector) clone() *selector {
	d := *s
	d.bits = append([]uint64(nil), s.bits...)
	d.keys = append([]keyPattern(nil), s.keys...)
	d.channels = append([]string(nil), s.channels...)
	d.firstArgs = nil
	for id, fa := range s.firstArgs {
		if d.firstArgs == nil {
			d.firstArgs = map[int][]string{}
		}
		d.firstArgs[id] = append([]string(nil), fa...)
	}
	return &d
}

func (s *selector) bit(id int) bool { return s.bits[id/64]&(1<<(id%64)) != 0 }

// setBit sets or clears a command bit; clearing one ends "allcommands", as in Redis.
func (s *selector) setBit(id int, v bool) {
	if v {
		s.bits[id/64] |= 1 << (id % 64)
	} else {
		s.bits[id/64] &^= 1 << (id % 64)
		s.allCommands = false
	}
}

// changePerm allows or denies a command; for a container, all its subcommands too.
func (s *selector) changePerm(e *Command, allow bool) {
	s.setBit(e.id, allow)
	delete(s.firstArgs, e.id)
	for _, sub := range e.subs {
		s.setBit(sub.id, allow)
	}
}

func (s *selector) setCategory(cat uint32, allow bool) {
	for _, e := range s.t.top {
		if e.cats&cat != 0 {
			s.changePerm(e, allow)
		}
		for _, sub := range e.subs {
			if sub.cats&cat != 0 {
				s.changePerm(sub, allow)
			}
		}
	}
}

// countCategory counts the Redis 7.0 commands of a category the selector allows and denies.
// Strata's own commands are left out, so that rules are described as Redis describes them.
func (s *selector) countCategory(cat uint32) (on, off int) {
	s.t.walk(func(e *Command) {
		if e.cats&cat != 0 && e.redis70 {
			if s.bit(e.id) {
				on++
			} else {
				off++
			}
		}
	})
	return on, off
}

// set applies one selector rule (Redis's ACLSetSelector).
func (s *selector) set(op string) error {
	t := s.t
	eq := func(w string) bool { return strings.EqualFold(op, w) }
	switch {
	case eq("allkeys") || op == "~*":
		s.allKeys, s.keys = true, nil
	case eq("resetkeys"):
		s.allKeys, s.keys = false, nil
	case eq("allchannels") || op == "&*":
		s.allChannels, s.channels = true, nil
	case eq("resetchannels"):
		s.allChannels, s.channels = false, nil
	case eq("allcommands") || eq("+@all"):
		for i := range s.bits {
			s.bits[i] = math.MaxUint64
		}
		s.allCommands, s.firstArgs = true, nil
	case eq("nocommands") || eq("-@all"):
		clear(s.bits)
		s.allCommands, s.firstArgs = false, nil
	case op[0] == '~' || op[0] == '%':
		return s.addKeyPattern(op)
	case op[0] == '&':
		if s.allChannels {
			return errChansAfterAll
		}
		pat := op[1:]
		if hasSpaces(pat) {
			return errSyntax
		}
		for _, c := range s.channels {
			if c == pat {
				return nil
			}
		}
		s.channels = append(s.channels, pat)
	case (op[0] == '+' || op[0] == '-') && len(op) > 1 && op[1] == '@':
		cat := categoryBit(op[2:])
		if cat == 0 {
			return errUnknown
		}
		s.setCategory(cat, op[0] == '+')
	case op[0] == '+':
		return s.allow(op[1:])
	case op[0] == '-':
		e := t.lookup(op[1:])
		if e == nil {
			return errUnknown
		}
		s.changePerm(e, false)
	default:
		return errSyntax
	}
	return nil
}

// addKeyPattern applies a "~pattern" or "%RW~pattern" rule.
func (s *selector) addKeyPattern(op string) error {
	if s.allKeys {
		return errKeysAfterAll
	}
	flags, off := keyAll, 1
	if op[0] == '%' {
		flags = 0
		for ; off < len(op); off++ {
			if ch := op[off] | 0x20; ch == 'r' && flags&keyRead == 0 {
				flags |= keyRead
			} else if ch == 'w' && flags&keyWrite == 0 {
				flags |= keyWrite
			} else if op[off] == '~' && flags != 0 {
				off++
				break
			} else {
				return errSyntax
			}
		}
		if flags == 0 {
			return errSyntax
		}
	}
	pat := op[off:]
	if hasSpaces(pat) {
		return errSyntax
	}
	for i := range s.keys {
		if s.keys[i].pattern == pat {
			s.keys[i].flags |= flags
			return nil
		}
	}
	s.keys = append(s.keys, keyPattern{flags, pat, []byte(pat)})
	return nil
}

// allow applies a "+command", "+container|sub" or "+command|firstarg" rule (name without '+').
func (s *selector) allow(name string) error {
	t := s.t
	i := strings.LastIndexByte(name, '|')
	if i < 0 {
		e := t.lookup(name)
		if e == nil {
			return errUnknown
		}
		s.changePerm(e, true)
		return nil
	}
	e := t.lookup(name[:i])
	switch {
	case e == nil:
		return errUnknown
	case e.parent != nil:
		return errFirstArgSub
	case i == len(name)-1:
		return errSyntax
	case len(e.subs) > 0:
		sub := t.lookup(name)
		if sub == nil {
			return errUnknown
		}
		s.changePerm(sub, true)
	default:
		// +select|0: that first argument of an otherwise denied command.
		arg := name[i+1:]
		for _, a := range s.firstArgs[e.id] {
			if strings.EqualFold(a, arg) {
				return nil
			}
		}
		if s.firstArgs == nil {
			s.firstArgs = map[int][]string{}
		}
		s.firstArgs[e.id] = append(s.firstArgs[e.id], arg)
	}
	return nil
}

// describeCommands returns the command rules of s as Redis's ACLDescribeSelectorCommandRules
// does: "+@all" or "-@all", the categories that best fit the allowed commands, then the single
// commands (and first arguments) that differ.
func (s *selector) describeCommands() string {
	t := s.t
	fake := newSelector(t, false)
	additive := !s.bit(t.n)
	rules := []string{"-@all"}
	if !additive {
		rules[0] = "+@all"
		fake.set("+@all")
	}
	temp := &selector{t: t, bits: append([]uint64(nil), s.bits...)}
	applied := make([]bool, len(categories))
	sign := func(plus bool) string {
		if plus {
			return "+"
		}
		return "-"
	}
	for {
		best, mindiff, maxsame := -1, math.MaxInt, 0
		for j := range categories {
			if applied[j] {
				continue
			}
			on, off := temp.countCategory(1 << j)
			diff, same := off, on
			if !additive {
				diff, same = on, off
			}
			if same > diff && (diff < mindiff || diff == mindiff && same > maxsame) {
				best, mindiff, maxsame = j, diff, same
			}
		}
		if best < 0 {
			break
		}
		fake.setCategory(1<<best, additive)
		temp.setCategory(1<<best, !additive)
		rules = append(rules, sign(additive)+"@"+categories[best])
		applied[best] = true
	}
	var single func(list []*Command)
	single = func(list []*Command) {
		for _, e := range list {
			ub := s.bit(e.id)
			if ub != fake.bit(e.id) {
				rules = append(rules, sign(ub)+e.name)
				fake.changePerm(e, ub)
			}
			single(e.subs)
			if !ub {
				for _, a := range s.firstArgs[e.id] {
					rules = append(rules, "+"+e.name+"|"+a)
				}
			}
		}
	}
	single(t.top)
	return strings.Join(rules, " ")
}

func (s *selector) keysString() string {
	if s.allKeys {
		return "~*"
	}
	out := make([]string, len(s.keys))
	for i, p := range s.keys {
		out[i] = p.String()
	}
	return strings.Join(out, " ")
}

func (s *selector) channelsString() string {
	if s.allChannels {
		return "&*"
	}
	out := make([]string, len(s.channels))
	for i, c := range s.channels {
		out[i] = "&" + c
	}
	return strings.Join(out, " ")
}

// describe returns the selector as ACL LIST shows it (ACLDescribeSelector).
func (s *selector) describe() string {
	var b strings.Builder
	if k := s.keysString(); k != "" {
		b.WriteString(k)
		b.WriteByte(' ')
	}
	if s.allChannels {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		if c := s.channelsString(); c != "" {
			b.WriteString(c)
			b.WriteByte(' ')
		}
	}
	b.WriteString(s.describeCommands())
	return b.String()
}
