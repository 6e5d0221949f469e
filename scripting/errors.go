package scripting

// Error replies of the scripting engine that the command layer answers too, as Redis 7.0
// words them.
const (
	ErrNotBusy      = "NOTBUSY No scripts in execution right now."
	ErrBusyEval     = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	ErrBusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	ErrUnkillable   = "UNKILLABLE Sorry the script already executed write commands against the dataset. " +
		"You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
)
