// Package glob matches Redis's glob patterns, as KEYS, SCAN MATCH, pub/sub patterns, ACL key
// and channel rules, CONFIG GET, COMMAND LIST FILTERBY PATTERN and FUNCTION LIST use them.
//
// # Rules
//
// '*' matches any run of bytes, '?' one byte, '[...]' a class ('^' negates it, 'a-z' a range,
// reversed ranges allowed), and a backslash escapes the next byte. Malformed patterns (an
// unterminated class, a trailing backslash) are treated as Redis treats them, and bytes compare
// as C's signed chars do in ranges.
//
// # Bounds
//
// A pattern nesting more than 1000 '*' never matches, and a match that cannot succeed stops
// trying longer runs for its outer stars, so no pattern a client sends takes more than linear
// passes over the subject per star.
package glob

import "bytes"

// maxNesting is Redis's limit on the recursion of '*' (protection against abusive patterns).
const maxNesting = 1000

// Match reports whether s matches the glob pattern, exactly as Redis 7.0's stringmatchlen
// does: '*', '?', '[abc]', '[^a]', '[a-z]' (reversed ranges allowed), backslash escapes, and the
// same treatment of malformed patterns (an unterminated '[' class, a trailing backslash). Like
// Redis it gives up (no match) past a '*' nesting of 1000.
func Match(pattern, s []byte, nocase bool) bool {
	skip := false
	return match(pattern, s, nocase, &skip, 0)
}

// match is Match's recursion, case for case as Redis matches: where Redis reads one byte past
// the pattern (its strings end in a NUL), at() returns that NUL.
func match(p, s []byte, nocase bool, skipLonger *bool, nesting int) bool {
	if nesting > maxNesting {
		return false
	}
	at := func(i int) byte {
		if i < len(p) && i >= 0 {
			return p[i]
		}
		return 0
	}
	lower := func(c byte) byte {
		if nocase && 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	pi := 0 // index of pattern[0]; patternLen is len(p)-pi
	for len(p)-pi > 0 && len(s) > 0 {
		switch p[pi] {
		case '*':
			for len(p)-pi > 0 && at(pi+1) == '*' {
				pi++
			}
			if len(p)-pi == 1 {
				return true
			}
			for len(s) > 0 {
				if match(p[pi+1:], s, nocase, skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
				s = s[1:]
			}
			*skipLonger = true
			return false
		case '?':
			s = s[1:]
		case '[':
			pi++
			not := at(pi) == '^'
			if not {
				pi++
			}
			match := false
			for {
				if at(pi) == '\\' && len(p)-pi >= 2 {
					pi++
					if at(pi) == s[0] {
						match = true
					}
				} else if at(pi) == ']' {
					break
				} else if len(p)-pi == 0 {
					pi--
					break
				} else if len(p)-pi >= 3 && at(pi+1) == '-' {
					// Redis compares ranges as C chars, which are signed on the
					// platforms it runs on: bytes >= 0x80 sort below NUL.
					start, end, c := int8(at(pi)), int8(at(pi+2)), int8(s[0])
					if start > end {
						start, end = end, start
					}
					if nocase {
						start, end, c = int8(lower(byte(start))), int8(lower(byte(end))), int8(lower(byte(c)))
					}
					pi += 2
					if c >= start && c <= end {
						match = true
					}
				} else if lower(at(pi)) == lower(s[0]) {
					match = true
				}
				pi++
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s = s[1:]
		case '\\':
			if len(p)-pi >= 2 {
				pi++
			}
			fallthrough
		default:
			if lower(at(pi)) != lower(s[0]) {
				return false
			}
			s = s[1:]
		}
		pi++
		if len(s) == 0 {
			for at(pi) == '*' {
				pi++
			}
			break
		}
	}
	return len(p)-pi == 0 && len(s) == 0
}

// Prefix returns the literal bytes every string matching pattern starts with: the pattern
// up to its first special character. Scans seek straight to that prefix.
func Prefix(pattern []byte) []byte {
	if i := bytes.IndexAny(pattern, `*?[\`); i >= 0 {
		return pattern[:i]
	}
	return pattern
}
