package commands

// RegisterForTest adds a command to the table for a test in package commands_test (production
// code has no way to add one) and returns a function that removes it again.
func RegisterForTest(c *Command) (remove func()) {
	register(c)
	return func() { delete(table, c.Name) }
}
