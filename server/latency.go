package server

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/config"
)

// The latency monitor (LATENCY): per-command latency histograms, always on, and latency
// events, the commands that took at least latency-monitor-threshold milliseconds ("command",
// or "fast-command" for commands flagged fast) and the active expiry cycles ("expire-cycle"), kept as the last latencySamples one-second
// samples per event as Redis keeps them.

// latencyBuckets is the number of histogram buckets: bucket k counts the calls that took at
// most 1024<<k nanoseconds, as Redis reports its histograms (about 1, 2, 4, ... microseconds).
const latencyBuckets = 40

// latencySamples is the number of samples kept per event.
const latencySamples = 160

type latHist struct{ b [latencyBuckets]atomic.Int64 }

func (h *latHist) add(d time.Duration) {
	k := 0
	for ns := d.Nanoseconds(); k < latencyBuckets-1 && ns > 1024<<k; k++ {
	}
	h.b[k].Add(1)
}

func (h *latHist) reset() {
	for i := range h.b {
		h.b[i].Store(0)
	}
}

// cdf returns the calls and the cumulative counts at each bucket where the count grows.
func (h *latHist) cdf() (calls int64, out []commands.LatencyBucket) {
	for k := range h.b {
		n := h.b[k].Load()
		if n == 0 {
			continue
		}
		calls += n
		out = append(out, commands.LatencyBucket{Usec: (1024 << k) / 1000, Count: calls})
	}
	return calls, out
}

type latEvent struct {
	samples [latencySamples]commands.LatencySample
	idx     int // next slot
	max     int64
}

type latencyMonitor struct {
	threshold atomic.Int64 // milliseconds; 0: events off
	mu        sync.Mutex
	events    map[string]*latEvent
}

func (s *Server) applyLatencyConfig(cfg *config.Config) {
	if v, ok := cfg.Get("latency-monitor-threshold"); ok {
		n, _ := strconv.ParseInt(v, 10, 64)
		s.lat.threshold.Store(n)
	}
}

// latencyCall records a call of cmd that took d: its histogram and, past the threshold, an
// event.
func (s *Server) latencyCall(cs *cmdStat, cmd *commands.Command, d time.Duration) {
	if cs != nil {
		cs.hist.add(d)
	}
	limit := s.lat.threshold.Load()
	ms := d.Milliseconds()
	if limit <= 0 || ms < limit || cmd == nil {
		return
	}
	name := "command"
	if cmd.Flags&commands.FlagFast != 0 {
		name = "fast-command"
	}
	s.latencyEvent(name, ms)
}

// latencyExpireCycle is the store's SetOnExpireCycle hook: an active expiry cycle that took at
// least latency-monitor-threshold is an expire-cycle event.
func (s *Server) latencyExpireCycle(d time.Duration) {
	if limit, ms := s.lat.threshold.Load(), d.Milliseconds(); limit > 0 && ms >= limit {
		s.latencyEvent("expire-cycle", ms)
	}
}

// latencyEvent adds a sample of ms milliseconds to the event called name.
func (s *Server) latencyEvent(name string, ms int64) {
	now := time.Now().Unix()
	s.lat.mu.Lock()
	defer s.lat.mu.Unlock()
	if s.lat.events == nil {
		s.lat.events = map[string]*latEvent{}
	}
	e := s.lat.events[name]
	if e == nil {
		e = &latEvent{}
		s.lat.events[name] = e
	}
	e.max = max(e.max, ms)
	prev := (e.idx + latencySamples - 1) % latencySamples
	if e.samples[prev].Time == now {
		e.samples[prev].MS = max(e.samples[prev].MS, ms)
		return
	}
	e.samples[e.idx] = commands.LatencySample{Time: now, MS: ms}
	e.idx = (e.idx + 1) % latencySamples
}

// LatencyLatest returns each event's latest sample and its maximum (commands.LatencyMonitor).
func (s *Server) LatencyLatest() []commands.LatencyEvent {
	s.lat.mu.Lock()
	defer s.lat.mu.Unlock()
	var out []commands.LatencyEvent
	for name, e := range s.lat.events {
		last := e.samples[(e.idx+latencySamples-1)%latencySamples]
		out = append(out, commands.LatencyEvent{Name: name, Time: last.Time, Latest: last.MS, Max: e.max})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LatencyHistory returns an event's samples, oldest first, and whether the event is known.
func (s *Server) LatencyHistory(name string) ([]commands.LatencySample, bool) {
	s.lat.mu.Lock()
	defer s.lat.mu.Unlock()
	e := s.lat.events[name]
	if e == nil {
		return nil, false
	}
	var out []commands.LatencySample
	for i := range latencySamples {
		if sm := e.samples[(e.idx+i)%latencySamples]; sm.Time != 0 {
			out = append(out, sm)
		}
	}
	return out, true
}

// LatencyReset forgets the events named (all when none) and returns how many it forgot.
func (s *Server) LatencyReset(names []string) int {
	s.lat.mu.Lock()
	defer s.lat.mu.Unlock()
	n := 0
	if len(names) == 0 {
		n = len(s.lat.events)
		s.lat.events = nil
		return n
	}
	for _, name := range names {
		if _, ok := s.lat.events[name]; ok {
			delete(s.lat.events, name)
			n++
		}
	}
	return n
}

// LatencyHistograms returns the latency histograms of the commands named (with their
// subcommands), or of every command that ran when names is empty; commands not known are
// skipped, as are those never called.
func (s *Server) LatencyHistograms(names []string) []commands.CommandHistogram {
	s.buildCmdStats()
	var out []commands.CommandHistogram
	add := func(name string, cs *cmdStat) {
		if cs == nil {
			return
		}
		if calls, b := cs.hist.cdf(); calls > 0 {
			out = append(out, commands.CommandHistogram{Name: name, Calls: calls, Buckets: b})
		}
	}
	withSubs := func(cmd *commands.Command) {
		add(cmd.Name, s.x.cmdStats[cmd])
		for _, sub := range cmd.Sub {
			add(cmd.Name+"|"+sub, s.x.subStats[cmd.Name+"|"+sub])
		}
	}
	if len(names) == 0 {
		for _, cmd := range commands.All() {
			withSubs(cmd)
		}
		return out
	}
	for _, name := range names {
		name = strings.ToLower(name)
		if top, sub, ok := strings.Cut(name, "|"); ok {
			if cmd := commands.Lookup([]byte(top)); cmd != nil {
				add(cmd.Name+"|"+sub, s.x.subStats[cmd.Name+"|"+sub])
			}
			continue
		}
		if cmd := commands.Lookup([]byte(name)); cmd != nil {
			withSubs(cmd)
		}
	}
	return out
}

// LatencyDoctor returns a short report on the latency events.
func (s *Server) LatencyDoctor() string {
	events := s.LatencyLatest()
	if len(events) == 0 {
		return "No latency spike was observed during the lifetime of this Strata instance " +
			"(latency-monitor-threshold " + strconv.FormatInt(s.lat.threshold.Load(), 10) + " ms; 0 means the monitor is off).\n"
	}
	var b strings.Builder
	b.WriteString("Latency spikes observed (milliseconds):\n\n")
	for i, e := range events {
		hist, _ := s.LatencyHistory(e.Name)
		var sum int64
		for _, sm := range hist {
			sum += sm.MS
		}
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, max %dms, latest %dms at %s).\n",
			i+1, e.Name, len(hist), sum/int64(max(len(hist), 1)), e.Max, e.Latest,
			time.Unix(e.Time, 0).UTC().Format(time.RFC3339))
	}
	b.WriteString("\nSlow commands: SLOWLOG GET lists them; LevelDB's write stalls show in INFO storage.\n")
	return b.String()
}

// LatencyGraph draws an event's samples as text, one column per sample, and false when the
// event is not known.
func (s *Server) LatencyGraph(name string) (string, bool) {
	hist, ok := s.LatencyHistory(name)
	if !ok {
		return "", false
	}
	var top int64 = 1
	for _, sm := range hist {
		top = max(top, sm.MS)
	}
	const rows = 8
	var b strings.Builder
	fmt.Fprintf(&b, "%s - high %d ms, low %d ms (all time high %d ms)\n", name, top, low(hist), top)
	for r := rows; r >= 1; r-- {
		for _, sm := range hist {
			if sm.MS*rows >= int64(r)*top {
				b.WriteByte('#')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	b.WriteString(strings.Repeat("-", len(hist)) + "\n")
	return b.String(), true
}

func low(hist []commands.LatencySample) int64 {
	if len(hist) == 0 {
		return 0
	}
	m := hist[0].MS
	for _, sm := range hist {
		m = min(m, sm.MS)
	}
	return m
}

var _ commands.LatencyMonitor = (*Server)(nil)
