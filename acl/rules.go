package acl

import "errors"

// Errors of rule application, with Redis's texts (ACLSetUserStringError).
var (
	errUnknown       = errors.New("Unknown command or category name in ACL")
	errSyntax        = errors.New("Syntax error")
	errKeysAfterAll  = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	errChansAfterAll = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	errNoSuchPass    = errors.New("The password you are trying to remove from the user does not exist")
	errBadHash       = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
	errFirstArgSub   = errors.New("Allowing first-arg of a subcommand is not supported")
)

// hasSpaces reports whether s holds white space or NUL (Redis's ACLStringHasSpaces).
func hasSpaces(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r', 0:
			return true
		}
	}
	return false
}

// mergeSelectorArgs joins "(" ... ")" selector rules spread over several arguments into one
// (Redis's ACLMergeSelectorArguments). bad is the index of an unclosed selector's first
// argument, or -1.
func mergeSelectorArgs(args []string) (merged []string, bad int) {
	open := -1
	var cur string
	for i, op := range args {
		if open < 0 && len(op) > 0 && op[0] == '(' && op[len(op)-1] != ')' {
			open, cur = i, op
			continue
		}
		if open >= 0 {
			cur += " " + op
			if len(op) > 0 && op[len(op)-1] == ')' {
				open = -1
				merged = append(merged, cur)
			}
			continue
		}
		merged = append(merged, op)
	}
	if open >= 0 {
		return nil, open
	}
	return merged, -1
}

// splitArgs splits a selector's rules as Redis's sdssplitargs: white space separates words,
// double quotes take \n \r \t \b \a \xHH and \" escapes, single quotes take \'. It returns
// false for unbalanced quotes.
func splitArgs(line string) ([]string, bool) {
	var out []string
	i, n := 0, len(line)
	isSpace := func(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f' }
	unhex := func(c byte) byte {
		switch {
		case c >= '0' && c <= '9':
			return c - '0'
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10
		}
		return c - 'A' + 10
	}
	isHex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	for {
		for i < n && isSpace(line[i]) {
			i++
		}
		if i >= n {
			return out, true
		}
		var cur []byte
		inDq, inSq := false, false
	word:
		for {
			switch {
			case inDq:
				if i >= n {
					return nil, false
				}
				switch ch := line[i]; {
				case ch == '\\' && i+3 < n && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					cur = append(cur, unhex(line[i+2])<<4|unhex(line[i+3]))
					i += 3
				case ch == '\\' && i+1 < n:
					i++
					esc := line[i]
					switch esc {
					case 'n':
						esc = '\n'
					case 'r':
						esc = '\r'
					case 't':
						esc = '\t'
					case 'b':
						esc = '\b'
					case 'a':
						esc = '\a'
					}
					cur = append(cur, esc)
				case ch == '"':
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, false
					}
					i++
					break word
				default:
					cur = append(cur, ch)
				}
			case inSq:
				if i >= n {
					return nil, false
				}
				switch ch := line[i]; {
				case ch == '\\' && i+1 < n && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case ch == '\'':
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, false
					}
					i++
					break word
				default:
					cur = append(cur, ch)
				}
			default:
				if i >= n {
					break word
				}
				switch ch := line[i]; {
				case isSpace(ch):
					break word
				case ch == '"':
					inDq = true
				case ch == '\'':
					inSq = true
				default:
					cur = append(cur, ch)
				}
			}
			i++
		}
		out = append(out, string(cur))
	}
}
