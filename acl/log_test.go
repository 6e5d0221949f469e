package acl

import "testing"

// TestLogFoldsAndTrims checks that a denial like one of the 10 newest entries bumps it to the
// front, that a different one is a new entry, and that the log keeps maxLen entries.
func TestLogFoldsAndTrims(t *testing.T) {
	r := New(NewTable(nil))
	r.AddLog(LogEntry{Reason: DeniedKey, Context: "toplevel", Object: "k", Username: "u", ClientInfo: "a"}, 3)
	r.AddLog(LogEntry{Reason: DeniedCmd, Context: "toplevel", Object: "get", Username: "u"}, 3)
	r.AddLog(LogEntry{Reason: DeniedKey, Context: "toplevel", Object: "k", Username: "u", ClientInfo: "b"}, 3)
	log := r.Log(10)
	if len(log) != 2 || log[0].Object != "k" || log[0].Count != 2 || log[0].ClientInfo != "b" || log[1].Count != 1 {
		t.Fatalf("folded log: %+v", log)
	}
	r.AddLog(LogEntry{Reason: DeniedKey, Context: "multi", Object: "k", Username: "u"}, 3)
	r.AddLog(LogEntry{Reason: DeniedChannel, Context: "lua", Object: "c", Username: "u"}, 3)
	if log = r.Log(10); len(log) != 3 || log[0].Reason.String() != "channel" || log[2].Object != "k" || log[2].Count != 2 {
		t.Fatalf("trimmed log: %+v", log)
	}
	if len(r.Log(-1)) != 0 || len(r.Log(1)) != 1 {
		t.Error("Log(n) does not bound n")
	}
	r.ResetLog()
	if len(r.Log(10)) != 0 {
		t.Error("ResetLog left entries")
	}
}

func TestDenialTexts(t *testing.T) {
	d := &Denial{Reason: DeniedKey, Command: "get", Object: "k1"}
	if got := d.DryRun(); got != "This user has no permissions to access the 'k1' key" {
		t.Errorf("dry run: %s", got)
	}
	if got := d.ScriptError(); got != "The user executing the script can't access at least one of the keys mentioned in the command arguments" {
		t.Errorf("script: %s", got)
	}
	d.Reason = DeniedCmd
	if got := d.NoPerm(); got != "NOPERM this user has no permissions to run the 'get' command" {
		t.Errorf("noperm: %s", got)
	}
	d.Reason = DeniedChannel
	if got := d.ExecNoPerm(); got != "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. "+
		"This command is no longer allowed for the following reason: no permission to access one of the channels used as arguments" {
		t.Errorf("exec: %s", got)
	}
}
