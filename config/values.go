package config

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// checkRatio accepts a decimal number above 0 and at most 1.
func checkRatio(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0 && f <= 1) {
		return fmt.Errorf("%q is not a ratio above 0 and at most 1", s)
	}
	return nil
}

func nonEmpty(s string) error {
	if s == "" {
		return errors.New("value must not be empty")
	}
	return nil
}

// checkHostPort accepts "" or a host:port address with a numeric port.
func checkHostPort(s string) error {
	if s == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(s)
	if err == nil {
		_, err = strconv.ParseUint(port, 10, 16)
	}
	if err != nil {
		return fmt.Errorf("%q is not a valid host:port address", s)
	}
	return nil
}

var notifyLetters = []struct {
	c byte
	f uint32
}{{'g', NotifyGeneric}, {'$', NotifyString}, {'l', NotifyList}, {'s', NotifySet}, {'h', NotifyHash},
	{'z', NotifyZSet}, {'x', NotifyExpired}, {'e', NotifyEvicted}, {'t', NotifyStream},
	{'d', NotifyModule}, {'n', NotifyNew}}

// ParseKeyspaceEvents turns notify-keyspace-events letters into classes, as Redis's
// keyspaceEventsStringToFlags does.
func ParseKeyspaceEvents(s string) (uint32, error) {
	var f uint32
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case 'A':
			f |= NotifyAll
		case 'K':
			f |= NotifyKeyspace
		case 'E':
			f |= NotifyKeyevent
		case 'm':
			f |= NotifyKeyMiss
		default:
			found := false
			for _, l := range notifyLetters {
				if l.c == ch {
					f |= l.f
					found = true
				}
			}
			if !found {
				return 0, errors.New("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
			}
		}
	}
	return f, nil
}

// KeyspaceEventsString prints classes as Redis's keyspaceEventsFlagsToString does ("AKE").
func KeyspaceEventsString(f uint32) string {
	var b []byte
	if f&NotifyAll == NotifyAll {
		b = append(b, 'A')
	} else {
		for _, l := range notifyLetters {
			if f&l.f != 0 {
				b = append(b, l.c)
			}
		}
	}
	if f&NotifyKeyspace != 0 {
		b = append(b, 'K')
	}
	if f&NotifyKeyevent != 0 {
		b = append(b, 'E')
	}
	if f&NotifyKeyMiss != 0 {
		b = append(b, 'm')
	}
	return string(b)
}

func checkKeyspaceEvents(s string) error { _, err := ParseKeyspaceEvents(s); return err }

// canonKeyspaceEvents stores the classes in Redis's printed form, plus "n" after "A" when
// both are set: Redis prints "A" alone then, but keeps the class.
func canonKeyspaceEvents(_, arg string) (string, error) {
	f, err := ParseKeyspaceEvents(arg)
	if err != nil {
		return "", err
	}
	s := KeyspaceEventsString(f)
	if f&NotifyAll == NotifyAll && f&NotifyNew != 0 {
		s = "An" + s[1:]
	}
	return s, nil
}

// showKeyspaceEvents is what CONFIG GET prints: Redis's form.
func showKeyspaceEvents(s string) string {
	f, err := ParseKeyspaceEvents(s)
	if err != nil {
		return s
	}
	return KeyspaceEventsString(f)
}

// OutputLimit is the client-output-buffer-limit of one client class: a client whose pending
// output passes Hard bytes, or stays past Soft bytes for SoftSeconds, is disconnected. Zero
// limits are off.
type OutputLimit struct {
	Hard, Soft  int64
	SoftSeconds int64
}

// Output-limit client classes, in the order CONFIG GET prints them.
var outputClasses = []string{"normal", "slave", "pubsub"}

const defaultOutputLimits = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"

// OutputLimits returns the client-output-buffer-limit of class "normal", "replica" (or "slave")
// or "pubsub".
func (c *Config) OutputLimits(class string) OutputLimit {
	ls, err := parseOutputLimits(c.OutputBufferLimit, nil)
	if err != nil {
		ls, _ = parseOutputLimits(defaultOutputLimits, nil)
	}
	if class == "replica" {
		class = "slave"
	}
	for i, name := range outputClasses {
		if name == class {
			return ls[i]
		}
	}
	return OutputLimit{}
}

// parseOutputLimits applies "class hard soft seconds" groups to base (nil: all off), as
// Redis's CONFIG SET client-output-buffer-limit does, with its error texts.
func parseOutputLimits(s string, base []OutputLimit) ([]OutputLimit, error) {
	ls := make([]OutputLimit, len(outputClasses))
	copy(ls, base)
	w := strings.Fields(s)
	if len(w)%4 != 0 {
		return nil, errors.New("Wrong number of arguments in buffer limit configuration.")
	}
	for i := 0; i < len(w); i += 4 {
		class := strings.ToLower(w[i])
		if class == "replica" {
			class = "slave"
		}
		idx := -1
		for j, name := range outputClasses {
			if name == class {
				idx = j
			}
		}
		if idx < 0 {
			return nil, errors.New("Invalid client class specified in buffer limit configuration.")
		}
		hard, err1 := parseSize(w[i+1])
		soft, err2 := parseSize(w[i+2])
		secs, err3 := strconv.ParseInt(w[i+3], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || hard < 0 || soft < 0 || secs < 0 {
			return nil, errors.New("Error in hard, soft or soft_seconds setting in buffer limit configuration.")
		}
		ls[idx] = OutputLimit{hard, soft, secs}
	}
	return ls, nil
}

func checkOutputLimits(s string) error {
	base, _ := parseOutputLimits(defaultOutputLimits, nil)
	_, err := parseOutputLimits(s, base)
	return err
}

func canonOutputLimits(cur, arg string) (string, error) {
	base, err := parseOutputLimits(cur, nil)
	if err != nil {
		base, _ = parseOutputLimits(defaultOutputLimits, nil)
	}
	ls, err := parseOutputLimits(arg, base)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, name := range outputClasses {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s %d %d %d", name, ls[i].Hard, ls[i].Soft, ls[i].SoftSeconds)
	}
	return b.String(), nil
}

// checkCronFields accepts an empty schedule or one of five whitespace-separated fields; the
// server parses the fields themselves when it starts.
func checkCronFields(v string) error {
	if n := len(strings.Fields(v)); n != 0 && n != 5 {
		return fmt.Errorf("%q is not a cron schedule of 5 fields (minute hour day month weekday)", v)
	}
	return nil
}

// MemoryTarget returns the soft limit for the Go heap that a server with cfg runs under: the
// block cache, two memtables (the active one and the one being flushed) and the key cache,
// which are live data, plus 128 MB for connections, replies and the runtime.
func MemoryTarget(cfg *Config) int64 {
	return cfg.LevelDBBlockCacheSize + 2*int64(cfg.LevelDBWriteBufferSize) + cfg.KeyCacheSize + 128*mb
}
