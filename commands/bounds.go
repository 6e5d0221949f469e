package commands

import (
	"bytes"
	"strconv"
)

// Bounds on replies whose size a client's number decides rather than the data that exists
// (docs/compatibility.md, "Bounds on client-given counts").
//
// SRANDMEMBER, HRANDFIELD and ZRANDMEMBER with a negative count draw with repetition: the reply
// has |count| elements however small the collection, and Redis builds it whatever the count
// (SRANDMEMBER key -9223372036854775807 never ends there). Strata draws in chunks and checks
// the reply's size between them against a byte bound: the hard client-output-buffer-limit of
// normal clients when it is set and smaller, else maxDrawReply. Past the output limit the
// partial reply is left for the server to cut the client off, as Redis does; past maxDrawReply
// the command answers errDrawReply instead. A count that must pass the bound (every draw takes
// at least minDrawBytes) is refused before any draw.
const (
	maxDrawReply = 128 << 20
	minDrawBytes = 6 // "$0\r\n\r\n": an empty member in RESP2
	drawChunk    = 1 << 16
)

var errDrawReply = "ERR count is out of range: a reply of random draws is limited to " +
	strconv.Itoa(maxDrawReply) + " bytes"

// drawBound returns the byte bound of a reply of repeated draws for c, and whether it is the
// client's output limit.
func drawBound(c *Ctx) (bound int64, outputLimit bool) {
	if c.Env != nil && !c.NonBlocking {
		if h := c.Env.Config().OutputLimits("normal").Hard; h > 0 && h < maxDrawReply {
			return h, true
		}
	}
	return maxDrawReply, false
}

// drawRepeated replies with count repeated draws: header(n) writes the reply's header for n
// draws, and draw(n) writes n more draws, returning how many it wrote. Draws go drawChunk at a
// time, and the reply's size is checked against drawBound between chunks: past maxDrawReply
// (or certain to pass it) the reply is errDrawReply; past the client's output limit it ends
// with the draws written so far, for the server to cut the client off.
func drawRepeated(c *Ctx, count uint64, header func(n int), draw func(n uint64) (int, error)) {
	start := c.W.Len()
	bound, outputLimit := drawBound(c)
	if !outputLimit && count > uint64(bound/minDrawBytes) {
		c.W.Error(errDrawReply)
		return
	}
	header(int(count))
	bodyStart := c.W.Len()
	got := 0
	for left := count; left > 0; {
		n := min(left, drawChunk)
		left -= n
		k, err := draw(n)
		got += k
		if err != nil {
			c.W.Truncate(start)
			c.Fail(err)
			return
		}
		if int64(c.W.Len()-start) > bound && left > 0 {
			if !outputLimit {
				c.W.Truncate(start)
				c.W.Error(errDrawReply)
				return
			}
			break
		}
	}
	if uint64(got) != count {
		body := bytes.Clone(c.W.Bytes()[bodyStart:])
		c.W.Truncate(start)
		header(got)
		c.W.Raw(body)
	}
}
