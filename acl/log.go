package acl

import "time"

// LogEntry is one ACL LOG entry: a denied call or failed authentication.
type LogEntry struct {
	Count      int64 // similar denials folded into this entry
	Reason     Reason
	Context    string // "toplevel", "multi", "lua"
	Object     string // the command, key or channel denied; the command name sent for an AUTH failure
	Username   string
	Created    time.Time // of the latest denial folded in
	ClientInfo string    // the client's CLIENT LIST line at the latest denial
}

// AddLog adds an ACL LOG entry for a denial made now, or bumps a similar recent one (same
// reason, context, object and user within 60 seconds, among the 10 newest), as Redis's
// addACLLogEntry. The log keeps the maxLen newest entries.
func (r *Registry) AddLog(e LogEntry, maxLen int) {
	le := &e
	le.Count, le.Created = 1, time.Now()
	r.logMu.Lock()
	defer r.logMu.Unlock()
	for i, cur := range r.log[:min(10, len(r.log))] {
		d := cur.Created.Sub(le.Created)
		if cur.Reason == le.Reason && cur.Context == le.Context && d < time.Minute && d > -time.Minute &&
			cur.Object == le.Object && cur.Username == le.Username {
			cur.ClientInfo, cur.Created = le.ClientInfo, le.Created
			cur.Count++
			copy(r.log[1:i+1], r.log[:i])
			r.log[0] = cur
			return
		}
	}
	r.log = append([]*LogEntry{le}, r.log...)
	if len(r.log) > maxLen {
		r.log = r.log[:maxLen]
	}
}

// Log returns copies of the n newest entries, newest first (ACL LOG <count>).
func (r *Registry) Log(n int) []LogEntry {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	entries := r.log[:min(max(n, 0), len(r.log))]
	out := make([]LogEntry, len(entries))
	for i, e := range entries {
		out[i] = *e
	}
	return out
}

// ResetLog empties the ACL LOG (ACL LOG RESET).
func (r *Registry) ResetLog() {
	r.logMu.Lock()
	r.log = nil
	r.logMu.Unlock()
}
