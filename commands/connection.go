package commands

func init() {
	register(
		&Command{Name: "ping", Arity: -1, Flags: FlagFast | FlagStale, Handler: cmdPing},
		&Command{Name: "echo", Arity: 2, Flags: FlagFast, Handler: cmdEcho},
		&Command{Name: "select", Arity: 2, Flags: FlagFast | FlagLoading | FlagStale, Handler: cmdSelect},
		&Command{Name: "quit", Arity: -1, Flags: FlagFast | FlagNoAuth | FlagLoading | FlagStale, Handler: cmdQuit},
	)
}

func cmdPing(c *Ctx) {
	switch len(c.Args) {
	case 1:
		c.W.Status("PONG")
	case 2:
		c.W.Bulk(c.Args[1])
	default:
		c.W.Error(ArityError(c.Cmd.Name))
	}
}

func cmdEcho(c *Ctx) { c.W.Bulk(c.Args[1]) }

func cmdSelect(c *Ctx) {
	db, ok := dbIndex(c, 1, ErrDBIndex)
	if !ok {
		return
	}
	c.Client.DB = db
	c.W.OK()
}

func cmdQuit(c *Ctx) {
	c.Client.Quit = true
	c.W.OK()
}
