package server

import (
	"bytes"
	"sync"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/storage"
)

// Large SET values are streamed into the value log while they arrive. When the request guard
// reaches the third argument of a SET whose length is at least large-value-threshold, it stages
// the value in the storage (storage.StagedValue), writes each chunk read from the socket to it,
// and passes an empty bulk string to the request parser in its place. The value is so never
// held in memory whole, and its disk write overlaps its transfer. The handler finds the staged
// value by the request's number and gives it to SET (commands.Ctx.Staged); anything else that
// gets it (a SET queued by MULTI) reads it back, and a value no command stored is discarded.

// stageCaptureMax bounds the command name and key the guard keeps to decide whether to stage.
const stageCaptureMax = 64 << 10

// stageChunk is the socket read size while a value streams in.
const stageChunk = 1 << 20

var stageBufs = sync.Pool{New: func() any { b := make([]byte, stageChunk); return &b }}

// stageState is the part of guardConn this file owns; the connection goroutine uses it.
type stageState struct {
	reqs    int64     // requests passed to the parser
	argc    int64     // bulk strings in the current request
	argi    int64     // the bulk string being received
	argLen  int64     // its length
	capt    [2][]byte // the request's first two arguments (command name, key), while short
	captOK  [2]bool
	cur     *storage.StagedValue // the value being received
	queue   []stagedArg          // values received, waiting for their command
	buf     *[]byte              // socket read buffer while a value streams in
	handled int64                // requests handled (handler side)
}

type stagedArg struct {
	req int64
	sv  *storage.StagedValue
}

// beginRequest notes the start of a request of argc bulk strings passed to the parser.
func (g *guardConn) beginRequest(argc int64) {
	g.reqs++
	g.argc, g.argi = argc, 0
	g.captOK = [2]bool{}
}

// beginBulk notes a bulk string of n bytes; it reports whether it is staged, in which case the
// bulk header at the end of g.out was replaced by an empty bulk string.
func (g *guardConn) beginBulk(n int64) bool {
	g.argLen = n
	if g.argi < 2 {
		g.captOK[g.argi] = n <= stageCaptureMax
		g.capt[g.argi] = g.capt[g.argi][:0]
		return false
	}
	if g.argi != 2 || !g.captOK[0] || !g.captOK[1] || !bytes.EqualFold(g.capt[0], []byte("set")) ||
		g.owner == nil || !g.owner.Authed || !g.srv.store.CanStage(n) {
		return false
	}
	sv, err := g.srv.store.StageValue(g.owner.DB, g.capt[1], n)
	if err != nil {
		return false // the value goes the usual way, and SET reports the storage's error
	}
	g.cur = sv
	// An empty bulk string stands for the value; its CRLF follows once the value is in, so
	// that the parser does not see the request complete before.
	g.out = append(g.out[:len(g.out)-len(g.line)-2], "$0\r\n"...)
	g.queue = append(g.queue, stagedArg{g.reqs, sv})
	return true
}

// capture keeps the bytes of a payload chunk of the command name or key.
func (g *guardConn) capture(b []byte) {
	if g.argi < 2 && g.captOK[g.argi] {
		g.capt[g.argi] = append(g.capt[g.argi], b...)
	}
}

// endBulk notes the end of the current bulk string.
func (g *guardConn) endBulk() {
	if g.argi < 2 && g.captOK[g.argi] {
		c := g.capt[g.argi]
		g.capt[g.argi] = c[:max(len(c)-2, 0)] // the CRLF
	}
	g.argi++
}

// streamInto writes a chunk of a staged value. A write error is kept in the value and reported
// by SET; the rest of the value is still read, to keep the protocol in step.
func (g *guardConn) streamInto(b []byte) {
	if g.cur.Err() == storage.ErrStageAborted {
		g.cur.Write(b)
	}
}

// endStream ends the stream once the value and the CRLF after it are read. (Like Redis, the
// guard does not check that those two bytes are a CRLF.)
func (g *guardConn) endStream() {
	g.out = append(g.out, '\r', '\n')
	g.cur = nil
	if g.buf != nil {
		stageBufs.Put(g.buf)
		g.buf = nil
	}
}

// readStaged reads the next chunk of a staged value from the socket into a large buffer and
// feeds it to the scanner. It reports false when it does not apply.
func (g *guardConn) readStaged() (bool, error) {
	if g.state != stStaged || g.skip <= 2 || len(g.held) > 0 || g.overQuery || g.failure != "" {
		return false, nil
	}
	if g.buf == nil {
		g.buf = stageBufs.Get().(*[]byte)
	}
	want := min(int64(len(*g.buf)), g.skip-2)
	n, err := g.Conn.Read((*g.buf)[:want])
	if n > 0 {
		g.srv.stats.netIn.Add(int64(n))
		g.scan((*g.buf)[:n])
	}
	return true, err
}

// takeStaged returns the staged value of the request the handler is about to run, if any.
func (g *guardConn) takeStaged() *storage.StagedValue {
	g.handled++
	if len(g.queue) == 0 || g.queue[0].req != g.handled {
		return nil
	}
	sv := g.queue[0].sv
	g.queue[0] = stagedArg{}
	g.queue = g.queue[1:]
	if len(g.queue) == 0 {
		g.queue = nil
	}
	return sv
}

// dropStaged discards the values no command will store (the connection is closing).
func (g *guardConn) dropStaged() {
	if g.cur != nil {
		g.cur.Discard()
		g.endStream()
		g.out = nil
	}
	for _, a := range g.queue {
		a.sv.Discard()
	}
	g.queue = nil
}

// stagedArgument prepares the handler's use of a staged value: SET gets it as ctx.Staged; a SET
// queued by MULTI, which keeps its arguments, gets the bytes instead. It
// reports false, having answered an error, when the value cannot be read back.
func (s *Server) stagedArgument(c *client, ctx *commands.Ctx, sv *storage.StagedValue) bool {
	if !c.tx.active && ctx.Propagate == nil {
		ctx.Staged = sv
		return true
	}
	// Queued in MULTI, or propagated to replicas (master.go), which need the value itself.
	b, err := sv.Bytes()
	if err != nil {
		ctx.Fail(err)
		c.tx.aborted = c.tx.active
		return false
	}
	ctx.Args[2] = b
	return true
}
