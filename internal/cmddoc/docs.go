package cmddoc

//go:generate go run ./gen -src /var/tmp/redis-src/redis-7.0.15/src/commands -o docs_data.go

// Doc is the part of a command's or subcommand's COMMAND DOCS entry that Meta does not hold, as
// Redis 7.0's command descriptions give it: the doc flags (space-separated: deprecated, syscmd),
// the version that deprecated it and the command that replaces it, the history of its changes
// (version and text) and its argument tree.
type Doc struct {
	DocFlags        string
	DeprecatedSince string
	ReplacedBy      string
	History         [][2]string
	Args            []Arg
}

// Arg is one argument of a command in COMMAND DOCS: its name and type (string, integer, double,
// key, pattern, unix-time, pure-token, oneof, block), the index of its key specification plus
// one (KeySpec 0: not a key), its token (as the description spells it), summary, the versions that added and deprecated it,
// its flags (space-separated: optional, multiple, multiple_token) and, for oneof and block, the
// arguments inside it.
type Arg struct {
	Name, Type            string
	KeySpec               int
	Token, Summary, Since string
	DeprecatedSince       string
	Flags                 string
	Args                  []Arg
}
