package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Load parses command-line arguments the way redis-server does: an optional
// first argument that does not start with "--" is a config file path; then
// any number of "--directive value [value...]" (values run until the next
// argument starting with "--"). The file is applied first, then the
// command-line options override it, and finally the result is validated.
// Errors name the file, line number and directive, or "command line" for
// errors in the arguments. Unknown directives are an error.
func Load(args []string) (*Config, error) {
	c := Default()
	if len(args) > 0 && !strings.HasPrefix(args[0], "--") {
		if err := c.LoadFile(args[0]); err != nil {
			return nil, err
		}
		args = args[1:]
	}
	for i := 0; i < len(args); {
		arg := args[i]
		if !strings.HasPrefix(arg, "--") {
			return nil, fmt.Errorf("command line: unexpected argument %q (directives start with \"--\")", arg)
		}
		name := arg[2:]
		if name == "" {
			return nil, errors.New(`command line: missing directive name after "--"`)
		}
		j := i + 1
		for j < len(args) && !strings.HasPrefix(args[j], "--") {
			j++
		}
		if err := c.Set(name, args[i+1:j]); err != nil {
			return nil, fmt.Errorf("command line: %w", err)
		}
		i = j
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("invalid configuration: %w", err)
	}
	return c, nil
}

// LoadFile parses redis.conf syntax from a file into c. Each non-blank line
// that does not start with '#' holds a directive name followed by its
// arguments, split like Redis's sdssplitargs. If any line is bad, LoadFile
// returns an error naming the file, line and directive, and c is left
// unchanged. LoadFile does not check cross-field constraints; call Validate.
func (c *Config) LoadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	tmp := *c
	for i, line := range strings.Split(text, "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		words, err := SplitArgs(line)
		if err != nil {
			name := strings.ToLower(strings.Fields(line)[0])
			return fmt.Errorf("%s:%d: bad directive or value for %q: %w", path, i+1, name, err)
		}
		if len(words) == 0 {
			continue
		}
		if err := tmp.Set(words[0], words[1:]); err != nil {
			return fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
	}
	*c = tmp
	return nil
}

// SplitArgs splits a line into words the way Redis's sdssplitargs does:
// words are separated by whitespace; "double quoted" words support the
// escapes \n \r \t \b \a \xHH and \<any char>; 'single quoted' words
// support \'. A closing quote must be followed by whitespace or the end of
// the line. Quotes may also start in the middle of a word.
func SplitArgs(line string) ([]string, error) {
	var words []string
	i, n := 0, len(line)
	for {
		for i < n && isSpace(line[i]) {
			i++
		}
		if i >= n {
			return words, nil
		}
		var cur []byte
		inDouble, inSingle := false, false
		for done := false; !done; {
			switch {
			case inDouble:
				if i >= n {
					return nil, errors.New("unbalanced quotes")
				}
				ch := line[i]
				switch {
				case ch == '\\' && i+3 < n && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					cur = append(cur, unhex(line[i+2])<<4|unhex(line[i+3]))
					i += 3
				case ch == '\\' && i+1 < n:
					i++
					switch c := line[i]; c {
					case 'n':
						cur = append(cur, '\n')
					case 'r':
						cur = append(cur, '\r')
					case 't':
						cur = append(cur, '\t')
					case 'b':
						cur = append(cur, '\b')
					case 'a':
						cur = append(cur, '\a')
					default:
						cur = append(cur, c)
					}
				case ch == '"':
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, errors.New("closing quote must be followed by a space")
					}
					done = true
				default:
					cur = append(cur, ch)
				}
			case inSingle:
				if i >= n {
					return nil, errors.New("unbalanced quotes")
				}
				ch := line[i]
				switch {
				case ch == '\\' && i+1 < n && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case ch == '\'':
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, errors.New("closing quote must be followed by a space")
					}
					done = true
				default:
					cur = append(cur, ch)
				}
			default:
				if i >= n {
					done = true
					break
				}
				switch ch := line[i]; {
				case isSpace(ch):
					done = true
				case ch == '"':
					inDouble = true
				case ch == '\'':
					inSingle = true
				default:
					cur = append(cur, ch)
				}
			}
			if i < n {
				i++
			}
		}
		words = append(words, string(cur))
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0 }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// parseInt parses a decimal integer.
func parseInt(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		return 0, fmt.Errorf("%q is not a valid integer", s)
	}
	return n, nil
}

// units maps Redis memory units to their multipliers.
var units = map[string]int64{
	"": 1, "b": 1,
	"k": 1000, "kb": 1024,
	"m": 1000 * 1000, "mb": 1024 * 1024,
	"g": 1000 * 1000 * 1000, "gb": 1024 * 1024 * 1024,
}

// ParseSize parses a byte count with an optional Redis memory unit, as the directives'
// sizes are parsed (parseSize).
func ParseSize(s string) (int64, error) { return parseSize(s) }

// parseSize parses a byte count with an optional Redis memory unit
// (b, k, kb, m, mb, g, gb; case-insensitive), e.g. "512mb" or "1000".
func parseSize(s string) (int64, error) {
	lower := strings.ToLower(s)
	end := 0
	if end < len(lower) && lower[end] == '-' {
		end++
	}
	for end < len(lower) && '0' <= lower[end] && lower[end] <= '9' {
		end++
	}
	mul, ok := units[lower[end:]]
	if !ok || end == 0 || lower[:end] == "-" {
		return 0, fmt.Errorf("%q is not a valid size (use a byte count or a unit: k, kb, m, mb, g, gb)", s)
	}
	n, err := strconv.ParseInt(lower[:end], 10, 64)
	if err != nil || n > math.MaxInt64/mul || n < math.MinInt64/mul {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return n * mul, nil
}
