package commands

// The blocking sorted-set pops share the wake-up mechanism of the blocking list pops: a handler
// that finds nothing to pop asks the dispatcher to block on its keys (Ctx.Block), and a command
// that adds members signals the key (ZADD, ZINCRBY and the *STORE commands call Ctx.Signal).

func init() {
	register(
		&Command{Name: "bzpopmin", Arity: -3, Flags: FlagWrite | FlagNoScript | FlagFast | FlagBlocking, FirstKey: 1, LastKey: -2, Step: 1, Handler: cmdBZPop},
		&Command{Name: "bzpopmax", Arity: -3, Flags: FlagWrite | FlagNoScript | FlagFast | FlagBlocking, FirstKey: 1, LastKey: -2, Step: 1, Handler: cmdBZPop},
		&Command{Name: "bzmpop", Arity: -5, Flags: FlagWrite | FlagBlocking, Keys: zNumKeysAt(2), Handler: cmdBZMPop},
	)
}

// BZPOPMIN, BZPOPMAX key [key ...] timeout
func cmdBZPop(c *Ctx) {
	timeout, ok := blockTimeout(c, len(c.Args)-1)
	if !ok {
		return
	}
	keys := c.Args[1 : len(c.Args)-1]
	if zpopGeneric(c, keys, c.Cmd.Name == "bzpopmax", -1, true, false) {
		return
	}
	if c.NonBlocking {
		c.W.NullArray()
		return
	}
	c.Block(keys, timeout)
}

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
func cmdBZMPop(c *Ctx) {
	timeout, ok := blockTimeout(c, 1)
	if !ok {
		return
	}
	keys, max, count, ok := zmpopParse(c, 2)
	if !ok || zpopGeneric(c, keys, max, count, true, true) {
		return
	}
	if c.NonBlocking {
		c.W.NullArray()
		return
	}
	c.Block(keys, timeout)
}
