package server

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cronSpec is a parsed five-field cron expression (minute hour day-of-month month day-of-week)
// for compact-cron. Each field is "*", "*/step", a number, a range "a-b" (optionally "/step"),
// or a comma-separated list of those.
type cronSpec struct {
	fields [5]map[int]bool // nil: any value
}

var cronBounds = [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 6}}

// parseCron parses a cron expression; the empty string parses to nil (no schedule).
func parseCron(expr string) (*cronSpec, error) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return nil, nil
	}
	parts := strings.Fields(expr)
	if len(parts) != 5 {
		return nil, fmt.Errorf("compact-cron %q: want 5 fields (minute hour day month weekday)", expr)
	}
	var c cronSpec
	for i, p := range parts {
		if p == "*" {
			continue
		}
		c.fields[i] = map[int]bool{}
		for _, item := range strings.Split(p, ",") {
			if err := c.addItem(i, item); err != nil {
				return nil, fmt.Errorf("compact-cron %q: field %d: %v", expr, i+1, err)
			}
		}
	}
	return &c, nil
}

func (c *cronSpec) addItem(field int, item string) error {
	lo, hi := cronBounds[field][0], cronBounds[field][1]
	step := 1
	if base, s, ok := strings.Cut(item, "/"); ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("bad step %q", s)
		}
		step, item = n, base
	}
	from, to := lo, hi
	if item != "*" {
		a, b, isRange := strings.Cut(item, "-")
		x, err := strconv.Atoi(a)
		if err != nil {
			return fmt.Errorf("bad value %q", a)
		}
		from, to = x, x
		if isRange {
			if to, err = strconv.Atoi(b); err != nil {
				return fmt.Errorf("bad value %q", b)
			}
		} else if step > 1 {
			to = hi
		}
	}
	if from < lo || to > hi || from > to {
		return fmt.Errorf("%q out of range %d-%d", item, lo, hi)
	}
	for v := from; v <= to; v += step {
		c.fields[field][v] = true
	}
	return nil
}

// matches reports whether t (to the minute) is a scheduled time.
func (c *cronSpec) matches(t time.Time) bool {
	vals := [5]int{t.Minute(), t.Hour(), t.Day(), int(t.Month()), int(t.Weekday())}
	for i, f := range c.fields {
		if f != nil && !f[vals[i]] {
			return false
		}
	}
	return true
}

// compactCron starts a full compaction at every minute compact-cron names. It checks the clock
// every few seconds and runs at most once per matching minute; a compaction still running is
// not started again.
func (s *Server) compactCron(spec *cronSpec) {
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	var last time.Time
	for {
		select {
		case <-s.closing:
			return
		case now := <-tick.C:
			minute := now.Truncate(time.Minute)
			if minute.Equal(last) || !spec.matches(now) {
				continue
			}
			last = minute
			if s.store.StartCompact() {
				s.log.Info("scheduled compaction started", "compact-cron", s.cfg.CompactCron)
			}
		}
	}
}

// propagateExpired is the store's SetOnExpireCommit hook: a key the active expiry cycle deleted
// propagates as DEL key, or UNLINK with lazyfree-lazy-expire yes, in its database, while the
// key is still locked.
func (s *Server) propagateExpired(db int, key []byte) {
	send := s.propagateFunc()
	if send == nil {
		return
	}
	verb := "DEL"
	if v, _ := s.Config().Get("lazyfree-lazy-expire"); v == "yes" {
		verb = "UNLINK"
	}
	send(db, [][][]byte{{[]byte(verb), key}})
}
