package tests

import (
	"strconv"
)

// streamID returns an explicit stream ID from a small range, so that random XADDs collide,
// go backwards and trim each other, and both servers generate the same IDs.
func (g *cmdGen) streamID() string {
	ms := strconv.Itoa(g.rng.Intn(40))
	switch g.rng.Intn(6) {
	case 0:
		return ms
	case 1:
		return ms + "-*"
	}
	return ms + "-" + strconv.Itoa(g.rng.Intn(4))
}

// streamBound returns a range bound: an ID, an exclusive ID, - or +.
func (g *cmdGen) streamBound() string {
	switch g.rng.Intn(5) {
	case 0:
		return g.pick("-", "+")
	case 1:
		return "(" + strconv.Itoa(g.rng.Intn(40)) + "-" + strconv.Itoa(g.rng.Intn(4))
	}
	return strconv.Itoa(g.rng.Intn(40))
}

func (g *cmdGen) group() string    { return g.pick("g1", "g2") }
func (g *cmdGen) consumer() string { return g.pick("alice", "bob", "carol") }

// streamCmd returns a stream command whose reply is the same on both servers: no
// auto-generated IDs, no idle times.
func (g *cmdGen) streamCmd(k string) ([]string, comparer) {
	switch g.rng.Intn(20) {
	case 0, 1, 2, 3, 4:
		args := []string{"XADD", k}
		switch g.rng.Intn(6) {
		case 0:
			args = append(args, "MAXLEN", g.pick("=", "~", "1"), g.integer(0, 8))
		case 1:
			args = append(args, "MINID", g.pick("=", "~"), g.streamID())
		case 2:
			args = append(args, "NOMKSTREAM")
		}
		args = append(args, g.streamID())
		for i := 0; i < 1+g.rng.Intn(2); i++ {
			args = append(args, g.pick("f", "g", "h"), g.value())
		}
		return args, exact
	case 5:
		return []string{"XDEL", k, g.streamID(), g.streamID()}, exact
	case 6:
		return []string{"XRANGE", k, g.streamBound(), g.streamBound(), "COUNT", g.integer(-1, 5)}, exact
	case 7:
		return []string{"XREVRANGE", k, g.streamBound(), g.streamBound()}, exact
	case 8:
		return []string{"XLEN", k}, exact
	case 9:
		if g.chance(0.5) {
			return []string{"XTRIM", k, "MAXLEN", g.pick("=", "~"), g.integer(0, 10)}, exact
		}
		return []string{"XTRIM", k, "MINID", g.streamID()}, exact
	case 10:
		args := []string{"XGROUP", "CREATE", k, g.group(), g.pick("0", "$", "5-0")}
		if g.chance(0.5) {
			args = append(args, "MKSTREAM")
		}
		return args, exact
	case 11, 12:
		args := []string{"XREADGROUP", "GROUP", g.group(), g.consumer(), "COUNT", g.integer(1, 4)}
		if g.chance(0.2) {
			args = append(args, "NOACK")
		}
		return append(args, "STREAMS", k, g.pick(">", ">", "0")), exact
	case 13:
		return []string{"XACK", k, g.group(), g.streamID(), g.streamID()}, exact
	case 14:
		return []string{"XPENDING", k, g.group()}, exact
	case 15:
		return []string{"XINFO", "GROUPS", k}, exact
	case 16:
		return []string{"XCLAIM", k, g.group(), g.consumer(), "0", g.streamID(), g.streamID(), "JUSTID"}, exact
	case 17:
		return []string{"XAUTOCLAIM", k, g.group(), g.consumer(), "0", g.streamBound(), "COUNT", g.integer(1, 3), "JUSTID"}, exact
	case 18:
		return []string{"XREAD", "COUNT", g.integer(1, 3), "STREAMS", k, g.pick("0", "10-0", "$")}, exact
	}
	return []string{"XGROUP", g.pick("DESTROY", "DELCONSUMER"), k, g.group(), g.consumer()}[:4+g.rng.Intn(2)], exact
}
