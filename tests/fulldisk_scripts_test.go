package tests

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/internal/testutil"
)

// TestFullDiskScripts checks that scripts and functions cannot write while the disk refuses
// writes, as plain write commands cannot: a script without flags gets MISCONF from the first
// write command it calls (raised by redis.call, returned by redis.pcall), and a script or
// function that does not declare no-writes is refused before it runs. Reads still work.
func TestFullDiskScripts(t *testing.T) {
	t.Parallel()
	disk := mountTmpfs(t, "32m")
	// A ballast file, deleted at the end, gives the server room to resume writing and close.
	ballast := filepath.Join(disk, "ballast")
	if err := os.WriteFile(ballast, make([]byte, 12<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	inst := testutil.StartStrata(t, func(c *config.Config) {
		c.Dir = filepath.Join(disk, "data")
		c.LevelDBWriteBufferSize = 1 << 20
		c.LevelDBCompression = "none"
	})
	c := dial(t, inst)
	mustDo(t, c, "OK", "SET", "k", "before")
	mustDo(t, c, `"lib"`, "FUNCTION", "LOAD",
		"#!lua name=lib\n"+
			"redis.register_function('wr', function(keys) return redis.call('set', keys[1], 'fn') end)\n"+
			"redis.register_function{function_name='rd', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}")

	const misconf = "MISCONF Errors writing to the AOF file: No space left on device"
	// Values below large-value-threshold fill LevelDB's journal and tables, so the disk
	// probe (a journal write and a table) fails too and writes stay refused.
	value := strings.Repeat("v", 4000)
	full := false
	for i := 0; i < 20000 && !full; i++ {
		r, err := c.Do("SET", fmt.Sprintf("fill:%d", i), value)
		if err != nil {
			t.Fatal(err)
		}
		if r.IsError() {
			if r.Str != misconf {
				t.Fatalf("first refused write answered %q, want %q", r.Str, misconf)
			}
			full = true
		}
	}
	if !full {
		t.Fatal("20000 SETs of 4000 bytes fit on a 24 MiB disk")
	}
	mustDo(t, c, "(error) "+misconf, "SET", "k", "plain")

	set := "return redis.call('set', 'k', 'script')"
	mustDo(t, c, "(error) "+misconf+" script: "+scriptSHA(set)+", on @user_script:1.", "EVAL", set, "0")
	mustDo(t, c, "(error) "+misconf, "EVAL", "return redis.pcall('set', 'k', 'script')", "0")
	mustDo(t, c, `"before"`, "EVAL", "return redis.call('get', 'k')", "0")
	mustDo(t, c, "(error) "+misconf, "EVAL", "#!lua\nreturn redis.call('get', KEYS[1])", "1", "k")
	mustDo(t, c, `"before"`, "EVAL", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", "k")
	mustDo(t, c, "(error) "+misconf, "FCALL", "wr", "1", "k")
	mustDo(t, c, `"before"`, "FCALL", "rd", "1", "k")
	mustDo(t, c, `"before"`, "FCALL_RO", "rd", "1", "k")
	mustDo(t, c, `"before"`, "GET", "k")

	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r, err := c.Do("EVAL", set, "0")
		if err != nil {
			t.Fatal(err)
		}
		if !r.IsError() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("scripts still cannot write 30 s after space was freed: %s", r)
		}
	}
	mustDo(t, c, `"script"`, "GET", "k")
}

func scriptSHA(body string) string {
	sum := sha1.Sum([]byte(body))
	return hex.EncodeToString(sum[:])
}
