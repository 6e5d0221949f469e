package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Step is one command of a transcript.
type Step struct {
	Line   int      // 1-based line number in the script
	Text   string   // the command line as written
	Args   []string // the command split like redis-cli does
	Sort   bool     // !sort: sort the elements of the reply before comparing
	Ignore bool     // !ignore: run on both servers but don't compare
	Sleep  time.Duration
	// Sleep > 0 marks a "!sleep N" step, which has no Args.
}

// ParseScript parses a transcript: one command per line, split like
// redis-cli (whitespace; double quotes with \n \r \t \b \a \" \\ \xHH
// escapes; single quotes with \'). Blank lines and lines starting with '#'
// are ignored. Directives:
//
//	!sort [CMD ...]    sort the elements of the reply (of CMD, or of the next command)
//	!ignore [CMD ...]  run the command but don't compare the replies
//	!sleep MS          sleep MS milliseconds
func ParseScript(script string) ([]Step, error) {
	var steps []Step
	var pendingSort, pendingIgnore bool
	for i, line := range strings.Split(script, "\n") {
		lineno := i + 1
		text := strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		st := Step{Line: lineno, Text: text}
		for strings.HasPrefix(text, "!") {
			word, rest, _ := strings.Cut(text, " ")
			rest = strings.TrimSpace(rest)
			switch word {
			case "!sort":
				st.Sort = true
			case "!ignore":
				st.Ignore = true
			case "!sleep":
				ms, err := strconv.Atoi(rest)
				if err != nil || ms < 0 {
					return nil, fmt.Errorf("line %d: bad !sleep %q", lineno, rest)
				}
				if pendingSort || pendingIgnore || st.Sort || st.Ignore {
					return nil, fmt.Errorf("line %d: !sleep after !sort/!ignore", lineno)
				}
				st.Sleep = time.Duration(ms) * time.Millisecond
				rest = ""
			default:
				return nil, fmt.Errorf("line %d: unknown directive %q", lineno, word)
			}
			text = rest
		}
		if st.Sleep > 0 {
			steps = append(steps, st)
			continue
		}
		if text == "" {
			// A bare directive applies to the next command.
			pendingSort = pendingSort || st.Sort
			pendingIgnore = pendingIgnore || st.Ignore
			continue
		}
		args, err := SplitArgs(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", lineno, err)
		}
		if len(args) == 0 {
			return nil, fmt.Errorf("line %d: empty command", lineno)
		}
		st.Args = args
		st.Sort = st.Sort || pendingSort
		st.Ignore = st.Ignore || pendingIgnore
		pendingSort, pendingIgnore = false, false
		steps = append(steps, st)
	}
	if pendingSort || pendingIgnore {
		return nil, fmt.Errorf("directive at end of script without a command")
	}
	return steps, nil
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func hexVal(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// SplitArgs splits a command line the way redis-cli (sdssplitargs) does.
func SplitArgs(line string) ([]string, error) {
	var args []string
	i, n := 0, len(line)
	for {
		for i < n && isSpace(line[i]) {
			i++
		}
		if i >= n {
			return args, nil
		}
		var cur []byte
		inDQ, inSQ := false, false
		for done := false; !done; {
			if inDQ {
				if i >= n {
					return nil, fmt.Errorf("unbalanced double quotes in %q", line)
				}
				c := line[i]
				switch {
				case c == '\\' && i+3 < n && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					cur = append(cur, hexVal(line[i+2])<<4|hexVal(line[i+3]))
					i += 3
				case c == '\\' && i+1 < n:
					i++
					switch line[i] {
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
						cur = append(cur, line[i])
					}
				case c == '"':
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, fmt.Errorf("closing quote must be followed by a space in %q", line)
					}
					done = true
				default:
					cur = append(cur, c)
				}
			} else if inSQ {
				if i >= n {
					return nil, fmt.Errorf("unbalanced single quotes in %q", line)
				}
				c := line[i]
				switch {
				case c == '\\' && i+1 < n && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case c == '\'':
					if i+1 < n && !isSpace(line[i+1]) {
						return nil, fmt.Errorf("closing quote must be followed by a space in %q", line)
					}
					done = true
				default:
					cur = append(cur, c)
				}
			} else {
				if i >= n {
					break
				}
				switch c := line[i]; {
				case isSpace(c):
					done = true
				case c == '"':
					inDQ = true
				case c == '\'':
					inSQ = true
				default:
					cur = append(cur, c)
				}
			}
			if i < n {
				i++
			}
		}
		args = append(args, string(cur))
	}
}

// render runs one step on c and returns the canonical rendering of the
// reply (sorted if the step asks for it).
func runStep(c *Conn, st Step) (string, error) {
	r, err := c.Do(st.Args...)
	if err != nil {
		return "", err
	}
	if st.Sort {
		r = r.Sorted()
	}
	return r.String(), nil
}

// RunTranscript runs script on conn and returns the rendering of each
// command's reply, in order (one entry per command; sleeps produce none).
func RunTranscript(t testing.TB, conn *Conn, script string) []string {
	t.Helper()
	steps, err := ParseScript(script)
	if err != nil {
		t.Fatalf("parse transcript: %v", err)
	}
	var out []string
	for _, st := range steps {
		if st.Sleep > 0 {
			time.Sleep(st.Sleep)
			continue
		}
		s, err := runStep(conn, st)
		if err != nil {
			t.Fatalf("line %d: %s: %v", st.Line, st.Text, err)
		}
		out = append(out, s)
	}
	return out
}

// EnvDiffReport names a file to which every differential mismatch is
// appended (for summarising a run); unset means no report file.
const EnvDiffReport = "STRATA_DIFF_REPORT"

var reportMu sync.Mutex

func appendReport(msg string) {
	path := os.Getenv(EnvDiffReport)
	if path == "" {
		return
	}
	reportMu.Lock()
	defer reportMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, msg)
}

func indentRest(s, pad string) string {
	return strings.ReplaceAll(s, "\n", "\n"+pad)
}

// Diff starts a reference redis-server and a Strata server, runs script on
// both and reports every reply that differs. It is skipped when
// redis-server is not installed (see StartRedis).
func Diff(t *testing.T, name, script string) {
	t.Helper()
	want := StartRedis(t)
	got := StartStrata(t)
	DiffInstances(t, name, script, want, got)
}

// DiffInstances runs script on fresh connections to want (the reference)
// and got, step by step, and reports each reply whose rendering differs:
// the line number, the command, and both replies.
func DiffInstances(t *testing.T, name, script string, want, got *Instance) {
	t.Helper()
	steps, err := ParseScript(script)
	if err != nil {
		t.Fatalf("%s: parse: %v", name, err)
	}
	wc := Connect(t, want.Addr)
	gc := Connect(t, got.Addr)
	gc.Timeout = 5 * time.Second
	wantName, gotName := want.Name, got.Name
	if wantName == gotName {
		gotName += "#2"
	}
	mismatches := 0
	for _, st := range steps {
		if st.Sleep > 0 {
			time.Sleep(st.Sleep)
			continue
		}
		ws, err := runStep(wc, st)
		if err != nil {
			t.Fatalf("%s:%d: %s: %s failed: %v", name, st.Line, st.Text, want.Name, err)
		}
		gs, gerr := runStep(gc, st)
		if gerr != nil {
			gs = fmt.Sprintf("<i/o error: %v>", gerr)
		}
		if gerr == nil && (st.Ignore || gs == ws) {
			continue
		}
		mismatches++
		msg := fmt.Sprintf("%s:%d: %s\n    %-7s %s\n    %-7s %s", name, st.Line, st.Text,
			wantName+":", indentRest(ws, "            "),
			gotName+":", indentRest(gs, "            "))
		t.Error(msg)
		appendReport(msg)
		if gerr != nil {
			// The connection is unusable (closed, or out of sync after a
			// timeout): reconnect and go on with the rest of the script.
			gc.Close()
			gc, err = Dial(got.Addr)
			if err != nil {
				t.Fatalf("%s:%d: reconnect to %s: %v", name, st.Line, gotName, err)
			}
			gc.Timeout = 5 * time.Second
			t.Cleanup(func() { gc.Close() })
		}
	}
	if mismatches > 0 {
		t.Logf("%s: %d of %d commands differ between %s and %s", name, mismatches, len(steps), wantName, gotName)
	}
}

// FlushAll empties every database of inst, failing the test if it can't.
func FlushAll(t testing.TB, inst *Instance) {
	t.Helper()
	c, err := Dial(inst.Addr)
	if err != nil {
		t.Fatalf("flush %s: %v", inst.Name, err)
	}
	defer c.Close()
	r, err := c.Do("FLUSHALL")
	if err != nil {
		t.Fatalf("FLUSHALL on %s: %v", inst.Name, err)
	}
	if !r.IsError() {
		return
	}
	// Fall back to FLUSHDB on every database.
	dbs := 16
	if inst.cfg != nil && inst.cfg.Databases > 0 {
		dbs = inst.cfg.Databases
	}
	for db := 0; db < dbs; db++ {
		if r, err := c.Do("SELECT", strconv.Itoa(db)); err != nil || r.IsError() {
			t.Fatalf("FLUSHALL on %s failed (%v) and SELECT %d failed: %v %v", inst.Name, r, db, r, err)
		}
		if r, err := c.Do("FLUSHDB"); err != nil || r.IsError() {
			t.Fatalf("FLUSHALL and FLUSHDB on %s failed: %v %v", inst.Name, r, err)
		}
	}
}

// DiffFiles runs every transcript file matching glob as a subtest, comparing
// one redis-server with one Strata server (shared by all the files, with
// FLUSHALL on both before each file). Skipped without redis-server.
func DiffFiles(t *testing.T, glob string) {
	t.Helper()
	want := StartRedis(t)
	got := StartStrata(t)
	DiffFilesBetween(t, glob, want, got)
}

// DiffFilesBetween is DiffFiles with the servers given: want is the
// reference. Use it with two redis-servers to check that transcripts are
// deterministic.
func DiffFilesBetween(t *testing.T, glob string, want, got *Instance) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil {
		t.Fatalf("glob %q: %v", glob, err)
	}
	if len(files) == 0 {
		t.Fatalf("no transcript matches %q", glob)
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(strings.TrimSuffix(name, filepath.Ext(name)), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			FlushAll(t, want)
			FlushAll(t, got)
			DiffInstances(t, name, string(data), want, got)
		})
	}
}
