package replication

import (
	"crypto/rand"
	"encoding/hex"
)

// NoID is the replication ID of no history: the second ID of a node never promoted.
const NoID = "0000000000000000000000000000000000000000"

// IDs is a node's replication identity: the history it serves (ID, up to Offset) and the
// history it served before its last promotion (ID2, valid up to SecondOffset).
type IDs struct {
	ID           string
	ID2          string
	Offset       int64 // bytes of the command stream so far (master_repl_offset)
	SecondOffset int64 // last offset of ID2's history plus one, or -1 (second_repl_offset)
}

// NewID returns a fresh random replication ID.
func NewID() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// NewIDs returns the identity of a node that starts a new history at offset 0.
func NewIDs() IDs {
	return IDs{ID: NewID(), ID2: NoID, SecondOffset: -1}
}

// Shift starts a new history at the current offset, keeping the old one as the second ID so
// that replicas of the old master continue partially (a replica promoted to master does this).
func (ids *IDs) Shift() {
	ids.ID2 = ids.ID
	ids.SecondOffset = ids.Offset + 1
	ids.ID = NewID()
}

// Continues reports whether a replica's PSYNC id offset names a point of this node's history:
// the current ID at any offset up to the current one, or the second ID up to where it ended.
// Whether the bytes after that point are still in the backlog is the backlog's question.
func (ids *IDs) Continues(id string, offset int64) bool {
	switch {
	case id == ids.ID:
		return offset <= ids.Offset+1
	case id == ids.ID2 && id != NoID:
		return offset <= ids.SecondOffset
	}
	return false
}
