package cmddoc

// KeySpec is one of Redis 7.0's key specifications: where a command's keys begin (Begin
// "index": at argument Index; "keyword": after the argument Keyword, searched from From,
// backwards when From is negative; "unknown") and how many follow (Find "range": up to
// LastKey, every KeyStep, LastKey -1 being the last argument and Limit dividing what is
// left; "keynum": a count at KeyNumIdx, the first key at FirstKey, both relative to the
// beginning; "unknown"), with the flags (RO, RW, OW, RM; access, update, insert, delete;
// not_key, incomplete, variable_flags) that COMMAND INFO and COMMAND GETKEYSANDFLAGS show.
type KeySpec struct {
	Notes                   string
	Flags                   string // space-separated
	Begin                   string
	Index                   int
	Keyword                 string
	From                    int
	Find                    string
	LastKey, KeyStep, Limit int
	KeyNumIdx, FirstKey     int
}
