package server

import (
	"io"
	"net"

	"github.com/tidwall/redcon"
)

// The redcon.Conn methods handle and the code it calls use.

func (lc *loopConn) RemoteAddr() string { return lc.g.RemoteAddr().String() }

// Close asks the connection's owner to close it once the replies gathered so far are written.
func (lc *loopConn) Close() error {
	lc.notifyClosed()
	return nil
}

func (lc *loopConn) WriteError(msg string) {
	lc.out = redcon.AppendError(lc.out, msg)
}
func (lc *loopConn) WriteString(str string) {
	lc.out = redcon.AppendString(lc.out, str)
}
func (lc *loopConn) WriteBulk(bulk []byte)          { lc.out = redcon.AppendBulk(lc.out, bulk) }
func (lc *loopConn) WriteBulkString(bulk string)    { lc.out = redcon.AppendBulkString(lc.out, bulk) }
func (lc *loopConn) WriteInt(num int)               { lc.out = redcon.AppendInt(lc.out, int64(num)) }
func (lc *loopConn) WriteInt64(num int64)           { lc.out = redcon.AppendInt(lc.out, num) }
func (lc *loopConn) WriteUint64(num uint64)         { lc.out = redcon.AppendUint(lc.out, num) }
func (lc *loopConn) WriteArray(count int)           { lc.out = redcon.AppendArray(lc.out, count) }
func (lc *loopConn) WriteNull()                     { lc.out = redcon.AppendNull(lc.out) }
func (lc *loopConn) WriteRaw(data []byte)           { lc.out = append(lc.out, data...) }
func (lc *loopConn) WriteAny(v any)                 { lc.out = redcon.AppendAny(lc.out, v) }
func (lc *loopConn) Context() any                   { return lc.ctx }
func (lc *loopConn) SetContext(v any)               { lc.ctx = v }
func (lc *loopConn) SetReadBuffer(int)              {}
func (lc *loopConn) Detach() redcon.DetachedConn    { return nil } // never called: detach is runDetached
func (lc *loopConn) ReadPipeline() []redcon.Command { return nil }
func (lc *loopConn) PeekPipeline() []redcon.Command { return nil }
func (lc *loopConn) NetConn() net.Conn              { return lc.g }
func (lc *loopConn) WriteBulkFrom(n int64, rb io.Reader) {
	b, _ := io.ReadAll(io.LimitReader(rb, n))
	lc.out = redcon.AppendBulk(lc.out, b)
}
