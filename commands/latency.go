package commands

import "fmt"

func init() {
	register(&Command{Name: "latency", Arity: -2, Flags: FlagAdmin | FlagNoScript | FlagLoading | FlagStale,
		Handler: cmdLatency, Sub: []string{"doctor", "graph", "help", "histogram", "history", "latest", "reset"}})
	configMutable["latency-monitor-threshold"] = configIntCheck(0, 1<<63-1)
}

// LatencySample is one second's worst latency of an event, in milliseconds.
type LatencySample struct{ Time, MS int64 }

// LatencyEvent is an event's latest sample and its all-time maximum.
type LatencyEvent struct {
	Name              string
	Time, Latest, Max int64
}

// LatencyBucket is one point of a command's latency distribution: Count calls took at most
// Usec microseconds.
type LatencyBucket struct{ Usec, Count int64 }

// CommandHistogram is a command's latency distribution for LATENCY HISTOGRAM.
type CommandHistogram struct {
	Name    string
	Calls   int64
	Buckets []LatencyBucket
}

// LatencyMonitor is implemented by a server that keeps latency events and histograms.
type LatencyMonitor interface {
	LatencyLatest() []LatencyEvent
	LatencyHistory(event string) ([]LatencySample, bool)
	LatencyReset(events []string) int
	LatencyHistograms(commands []string) []CommandHistogram
	LatencyDoctor() string
	LatencyGraph(event string) (string, bool)
}

var latencyHelpLines = []string{
	"LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return a human readable latency analysis report.",
	"GRAPH <event>",
	"    Return an ASCII latency graph for the <event> class.",
	"HISTORY <event>",
	"    Return time-latency samples for the <event> class.",
	"LATEST",
	"    Return the latest latency samples for all events.",
	"RESET [<event> ...]",
	"    Reset latency data of one or more <event> classes.",
	"    (default: reset all data for all event classes)",
	"HISTOGRAM [COMMAND ...]",
	"    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
	"    If no commands are specified then all histograms are replied.",
	"HELP",
	"    Prints this help.",
}

// withLatency runs fn with the server's latency monitor, or answers an error.
func withLatency(c *Ctx, fn func(LatencyMonitor)) {
	if lm, ok := c.Env.(LatencyMonitor); ok {
		fn(lm)
		return
	}
	c.W.Error("ERR this command needs a running server")
}

var latencySubs = map[string]clientSub{
	"help": {2, func(c *Ctx) { writeHelp(c.W, latencyHelpLines) }},
	"latest": {2, func(c *Ctx) {
		withLatency(c, func(lm LatencyMonitor) {
			events := lm.LatencyLatest()
			c.W.Array(len(events))
			for _, e := range events {
				c.W.Array(4)
				c.W.BulkString(e.Name)
				c.W.Int(e.Time)
				c.W.Int(e.Latest)
				c.W.Int(e.Max)
			}
		})
	}},
	"history": {3, func(c *Ctx) {
		withLatency(c, func(lm LatencyMonitor) {
			samples, _ := lm.LatencyHistory(c.Arg(2))
			c.W.Array(len(samples))
			for _, sm := range samples {
				c.W.Array(2)
				c.W.Int(sm.Time)
				c.W.Int(sm.MS)
			}
		})
	}},
	"reset": {-2, func(c *Ctx) {
		withLatency(c, func(lm LatencyMonitor) {
			var names []string
			for _, a := range c.Args[2:] {
				names = append(names, string(a))
			}
			c.W.Int(int64(lm.LatencyReset(names)))
		})
	}},
	"doctor": {2, func(c *Ctx) { withLatency(c, func(lm LatencyMonitor) { c.W.Verbatim(lm.LatencyDoctor()) }) }},
	"graph": {3, func(c *Ctx) {
		withLatency(c, func(lm LatencyMonitor) {
			if g, ok := lm.LatencyGraph(c.Arg(2)); ok {
				c.W.Verbatim(g)
			} else {
				c.W.Error(fmt.Sprintf("ERR No samples available for event '%s'", c.Arg(2)))
			}
		})
	}},
	"histogram": {-2, func(c *Ctx) {
		withLatency(c, func(lm LatencyMonitor) {
			var names []string
			for _, a := range c.Args[2:] {
				names = append(names, string(a))
			}
			hs := lm.LatencyHistograms(names)
			c.W.Map(len(hs))
			for _, h := range hs {
				c.W.BulkString(h.Name)
				c.W.Map(2)
				c.W.BulkString("calls")
				c.W.Int(h.Calls)
				c.W.BulkString("histogram_usec")
				c.W.Map(len(h.Buckets))
				for _, b := range h.Buckets {
					c.W.Int(b.Usec)
					c.W.Int(b.Count)
				}
			}
		})
	}},
}

// cmdLatency implements LATENCY LATEST, HISTORY, RESET, GRAPH, DOCTOR, HISTOGRAM and HELP.
func cmdLatency(c *Ctx) { runSub(c, "latency", latencySubs) }
