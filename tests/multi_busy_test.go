package tests

import (
	"testing"

	"github.com/strata-db/strata/config"
)

// TestMultiDuringBusyScript: while a script runs past busy-reply-threshold, a command sent to
// be queued is refused with BUSY and fails the transaction, and EXEC is refused with EXECABORT
// naming the BUSY error and discards the transaction, so that no part of it runs and the client
// leaves MULTI. Run against redis-server too where it is installed.
func TestMultiDuringBusyScript(t *testing.T) {
	const busy = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	for _, inst := range limitServers(t, func(*config.Config) {}) {
		t.Run(inst.Name, func(t *testing.T) {
			admin, spinner, tx := dial(t, inst), dial(t, inst), dial(t, inst)
			mustDo(t, admin, "OK", "CONFIG", "SET", "busy-reply-threshold", "10")
			for _, queuedFirst := range []bool{true, false} {
				mustDo(t, admin, "OK", "SET", "xx", "1")
				mustDo(t, tx, "OK", "MULTI")
				if queuedFirst {
					mustDo(t, tx, "QUEUED", "INCR", "xx")
				}
				if err := spinner.Send("EVAL", "while true do end", "0"); err != nil {
					t.Fatal(err)
				}
				scriptWaitBusy(t, admin, "SCRIPT KILL")
				mustDo(t, tx, "(error) "+busy, "INCR", "xx")
				mustDo(t, tx, "(error) EXECABORT Transaction discarded because of: "+busy, "EXEC")
				mustDo(t, admin, "OK", "SCRIPT", "KILL")
				if r, err := spinner.ReadReply(); err != nil || !r.IsError() {
					t.Fatalf("killed script answered %v %v", r, err)
				}
				mustDo(t, admin, `"1"`, "GET", "xx")
				mustDo(t, tx, `"asdf"`, "PING", "asdf") // no longer in MULTI
			}
		})
	}
}
