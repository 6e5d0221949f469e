package server

// Propagation: every committed write reaches the receivers of the server's write stream (the
// replication backlog and its replicas) in Redis's propagated form, through Ctx.Propagate,
// which commands.Run, EXEC and scripts call once a batch has committed and while its keys are
// still locked. A server with no receiver leaves Ctx.Propagate unset, so writes pay nothing.

// PropagateFunc receives the effects of one committed batch, to run in database db. The
// arguments may be reused once it returns: it copies what it keeps.
type PropagateFunc func(db int, effects [][][]byte)

// SetPropagate makes f the receiver of every committed write's effects from the next command
// on; nil stops propagation.
func (s *Server) SetPropagate(f PropagateFunc) {
	if f == nil {
		s.propagateTo.Store(nil)
		return
	}
	s.propagateTo.Store(&f)
}

// propagateFunc returns the receiver to set in a command's Ctx.Propagate, or nil.
func (s *Server) propagateFunc() func(db int, effects [][][]byte) {
	if f := s.propagateTo.Load(); f != nil {
		return *f
	}
	return nil
}
