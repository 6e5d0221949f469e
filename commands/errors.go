package commands

import (
	"errors"
	"strings"
	"syscall"
)

// Error replies, byte for byte as Redis 7.0 sends them (without the leading '-').
const (
	ErrSyntax          = "ERR syntax error"
	ErrNotInteger      = "ERR value is not an integer or out of range"
	ErrNotFloat        = "ERR value is not a valid float"
	ErrWrongType       = "WRONGTYPE Operation against a key holding the wrong kind of value"
	ErrOverflow        = "ERR increment or decrement would overflow"
	ErrIncrFloatNaN    = "ERR increment would produce NaN or Infinity"
	ErrInvalidExpire   = "ERR invalid expire time in '%s' command"
	ErrDBIndex         = "ERR DB index is out of range"
	ErrInvalidDBIndex  = "ERR invalid DB index"
	ErrNoSuchKey       = "ERR no such key"
	ErrStringTooLong   = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrBitOffset       = "ERR bit offset is not an integer or out of range"
	ErrBitValue        = "ERR bit is not an integer or out of range"
	ErrOffsetRange     = "ERR offset is out of range"
	ErrNoAuth          = "NOAUTH Authentication required."
	ErrWrongPass       = "WRONGPASS invalid username-password pair or user is disabled."
	ErrAuthNotSet      = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	ErrTimeoutNegative = "ERR timeout is negative"
	ErrTimeoutInvalid  = "ERR timeout is not a float or out of range"
	ErrOutOfRangeIndex = "ERR index out of range"
	ErrCountPositive   = "ERR value is out of range, must be positive"
	ErrSameObject      = "ERR source and destination objects are the same"
	ErrUnknownCommand  = "ERR unknown command '%s', with args beginning with: %s"
	ErrWrongArity      = "ERR wrong number of arguments for '%s' command"
	ErrUnknownSub      = "ERR unknown subcommand '%s'. Try %s HELP."
	ErrSubSyntax       = "ERR unknown subcommand or wrong number of arguments for '%s'. Try %s HELP."
	ErrProtected       = "ERR %s command not allowed. If the %s option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."
	ErrStorage         = "ERR storage error: %s"
)

// misconfPrefix starts the error that writes get while the storage cannot write: Redis 7.0's
// reply when its AOF cannot be written (Strata's journal is its AOF: CONFIG GET appendonly
// answers yes), followed by strerror's text.
const misconfPrefix = "MISCONF Errors writing to the AOF file: "

// MisconfError is the error a write gets while the storage reports the write error err
// (storage.Store.WriteError): MISCONF with strerror's text for an errno.
func MisconfError(err error) string {
	var errno syscall.Errno
	msg := err.Error()
	if errors.As(err, &errno) {
		msg = errno.Error()
		if msg != "" {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
	}
	return misconfPrefix + msg
}

// Error replies of DUMP, RESTORE and MIGRATE (dump.go, migrate.go).
const (
	ErrBusyKey          = "BUSYKEY Target key name already exists."
	ErrRestoreTTL       = "ERR Invalid TTL value, must be >= 0"
	ErrRestoreIdle      = "ERR Invalid IDLETIME value, must be >= 0"
	ErrRestoreFreq      = "ERR Invalid FREQ value, must be >= 0 and <= 255"
	ErrDumpPayload      = "ERR DUMP payload version or checksum are wrong"
	ErrBadDataFormat    = "ERR Bad data format"
	ErrMigrateKeys      = "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
	ErrMigrateConnect   = "IOERR error or timeout connecting to the client"
	ErrMigrateIO        = "IOERR error or timeout %s to target instance" // "reading" or "writing"
	ErrMigrateTargetErr = "ERR Target instance replied with error: %s"
)
