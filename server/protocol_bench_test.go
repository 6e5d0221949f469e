package server

import (
	"bytes"
	"testing"
)

// BenchmarkGuardScan measures the request guard over a read of a pipeline of 16 GETs and 16
// SETs as redis-benchmark sends them: byte by byte, as for a client not yet authenticated
// (scan), and in one copy a request, as for an authenticated one (whole, wholeRequest).
func BenchmarkGuardScan(b *testing.B) {
	var chunk []byte
	for range 16 {
		chunk = append(chunk, "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"...)
		chunk = append(chunk, "*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n$3\r\nxxx\r\n"...)
	}
	authed := &client{}
	authed.Authed = true
	for _, c := range []struct {
		name  string
		owner *client
	}{{"scan", nil}, {"whole", authed}} {
		b.Run(c.name, func(b *testing.B) {
			g := &guardConn{maxBulk: 512 << 20}
			g.owner = c.owner
			b.SetBytes(int64(len(chunk)))
			b.ReportAllocs()
			for b.Loop() {
				g.scan(chunk)
				if g.failure != "" || !bytes.Equal(g.out, chunk) {
					b.Fatalf("guard passed %q (failure %q)", g.out, g.failure)
				}
				g.out = g.out[:0]
			}
		})
	}
}
