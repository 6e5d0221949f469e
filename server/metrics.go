package server

import (
	"errors"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/syndtr/goleveldb/leveldb"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/storage"
)

// metrics is the server's Prometheus registry and the HTTP listener that serves it.
type metrics struct {
	reg     *prometheus.Registry
	latency *prometheus.HistogramVec
	byCmd   sync.Map // *commands.Command -> prometheus.Observer, made on the command's first call
	http    *http.Server
	ln      net.Listener
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "strata_command_duration_seconds",
		Help:    "Time to run a command, from dispatch to reply, by command name.",
		Buckets: []float64{.00001, .00005, .0001, .00025, .0005, .001, .0025, .005, .01, .05, .1, .5, 1, 5},
	}, []string{"command"})
	buildInfo := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "strata_build_info",
		Help: "Strata's version and the Go version it was built with; always 1."}, []string{"version", "goversion"})
	buildInfo.WithLabelValues(Version, runtime.Version()).Set(1)
	m.reg.MustRegister(m.latency, buildInfo, &serverCollector{s: s},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// observe records one command's duration. A command's histogram is made when it first runs,
// so an idle server exports no series for the commands nobody calls. Label values come from
// the command table only, never from client input.
func (m *metrics) observe(cmd *commands.Command, d time.Duration) {
	o, ok := m.byCmd.Load(cmd)
	if !ok {
		o, _ = m.byCmd.LoadOrStore(cmd, m.latency.WithLabelValues(cmd.Name))
	}
	o.(prometheus.Observer).Observe(d.Seconds())
}

// serve starts the metrics listener on addr, with /debug/pprof when pprofOn is set.
func (m *metrics) serve(addr string, pprofOn bool) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	if pprofOn {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	m.ln = ln
	m.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := m.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener was closed under it; Close reports nothing more useful
		}
	}()
	return nil
}

// MetricsAddr returns the address of the metrics listener, or "" when it is off.
func (s *Server) MetricsAddr() string {
	if s.metrics == nil || s.metrics.ln == nil {
		return ""
	}
	return s.metrics.ln.Addr().String()
}

func (m *metrics) close() {
	if m.http != nil {
		m.http.Close()
	}
}

// serverCollector reads the server's and the storage engine's counters at scrape time.
type serverCollector struct{ s *Server }

func (c *serverCollector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

var (
	descCalls      = desc("strata_commands_processed_total", "Commands run, by command name.", "command")
	descFailed     = desc("strata_commands_failed_total", "Commands that answered an error, by command name.", "command")
	descRejected   = desc("strata_commands_rejected_total", "Commands refused before running (arity, auth), by command name.", "command")
	descConnected  = desc("strata_connected_clients", "Clients connected now.")
	descBlocked    = desc("strata_blocked_clients", "Clients waiting in a blocking command or a pause.")
	descAccepted   = desc("strata_connections_received_total", "Connections accepted.")
	descRefused    = desc("strata_connections_rejected_total", "Connections refused because of maxclients.")
	descNetIn      = desc("strata_net_input_bytes_total", "Bytes read from clients.")
	descNetOut     = desc("strata_net_output_bytes_total", "Bytes written to clients.")
	descErrors     = desc("strata_error_replies_total", "Error replies by their prefix (ERR, WRONGTYPE, ...), as INFO errorstats.", "prefix")
	descPanics     = desc("strata_client_panics_total", "Panics recovered in goroutines serving clients; each closed that client's connection.")
	descKeys       = desc("strata_keys", "Keys per database, counting expired keys not yet reclaimed.", "db")
	descExpires    = desc("strata_keys_with_expiry", "Keys with an expiry per database.", "db")
	descExpired    = desc("strata_expired_keys_total", "Keys deleted by the active expiry cycle.")
	descHits       = desc("strata_keyspace_hits_total", "Key lookups of read commands that found the key (INFO keyspace_hits).")
	descMisses     = desc("strata_keyspace_misses_total", "Key lookups of read commands that did not find the key (INFO keyspace_misses).")
	descReclaimed  = desc("strata_gc_reclaimed_records_total", "Records deleted by the garbage collector.")
	descBacklog    = desc("strata_gc_backlog", "Garbage-queue entries waiting for the collector (up to 64 counted per pass).")
	descLevelBytes = desc("strata_leveldb_level_bytes", "Bytes of table files per LevelDB level.", "level")
	descLevelTabs  = desc("strata_leveldb_level_tables", "Table files per LevelDB level.", "level")
	descCompRead   = desc("strata_leveldb_compaction_read_bytes_total", "Bytes read by compactions, per level.", "level")
	descCompWrite  = desc("strata_leveldb_compaction_write_bytes_total", "Bytes written by compactions, per level.", "level")
	descCompTime   = desc("strata_leveldb_compaction_seconds_total", "Time spent compacting, per level.", "level")
	descComps      = desc("strata_leveldb_compactions_total", "Compactions by kind (memtable, level0, nonlevel0, seek).", "kind")
	descStalls     = desc("strata_leveldb_write_stalls_total", "Writes delayed because compaction fell behind.")
	descStallTime  = desc("strata_leveldb_write_stall_seconds_total", "Time writes spent delayed by compaction.")
	descPaused     = desc("strata_leveldb_write_paused", "1 while LevelDB pauses writes for compaction.")
	descCache      = desc("strata_leveldb_block_cache_bytes", "Bytes held in the LevelDB block cache.")
	descMemLimit   = desc("strata_leveldb_memtable_limit_bytes", "Configured memtable size (leveldb-write-buffer-size).")
	descOpenTabs   = desc("strata_leveldb_open_tables", "Table files held open.")
	descIORead     = desc("strata_leveldb_io_read_bytes_total", "Bytes read from disk by LevelDB.")
	descIOWrite    = desc("strata_leveldb_io_write_bytes_total", "Bytes written to disk by LevelDB.")
	descDirBytes   = desc("strata_data_dir_bytes", "Size of the data directory.")
	descBackupRun  = desc("strata_backup_in_progress", "1 while BGSAVE is copying.")
	descBackupTime = desc("strata_last_backup_timestamp_seconds", "Unix time of the last successful backup's snapshot.")

	descReplicas   = desc("strata_connected_replicas", "Replicas linked to this master (connected_slaves).")
	descReplOffset = desc("strata_repl_offset_bytes", "Replication offset: bytes of the write stream so far (master_repl_offset).")
	descReplHist   = desc("strata_repl_backlog_bytes", "Bytes held in the replication backlog (repl_backlog_histlen).")
	descReplSize   = desc("strata_repl_backlog_size_bytes", "Size of the replication backlog (repl-backlog-size, repl_backlog_size).")
	descSyncFull   = desc("strata_sync_full_total", "Full synchronisations served to replicas.")
	descSyncPOK    = desc("strata_sync_partial_ok_total", "Partial resynchronisations accepted.")
	descSyncPErr   = desc("strata_sync_partial_err_total", "Partial resynchronisations refused (a full one followed).")
	descLagBytes   = desc("strata_replica_lag_bytes", "Bytes of the stream a replica has not acknowledged, by its slaveN index in INFO replication.", "replica")
	descLagSecs    = desc("strata_replica_lag_seconds", "Seconds since a replica's last acknowledgement, by its slaveN index.", "replica")
	descLinkUp     = desc("strata_master_link_up", "On a replica: 1 while the link to its master is up.")
)

func (c *serverCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	st := s.Stats()
	for _, cs := range st.Commands {
		counter(descCalls, float64(cs.Calls), cs.Name)
		counter(descFailed, float64(cs.Failed), cs.Name)
		counter(descRejected, float64(cs.Rejected), cs.Name)
	}
	gauge(descConnected, float64(st.ConnectedClients))
	gauge(descBlocked, float64(st.BlockedClients))
	counter(descAccepted, float64(st.TotalConnections))
	counter(descRefused, float64(st.Rejected))
	counter(descNetIn, float64(st.NetInput))
	counter(descNetOut, float64(st.NetOutput))
	counter(descPanics, float64(st.ClientPanics))
	for prefix, n := range st.Errors {
		counter(descErrors, float64(n), prefix)
	}

	r := st.Replication
	gauge(descReplicas, float64(r.Replicas))
	gauge(descReplOffset, float64(r.Offset))
	gauge(descReplHist, float64(r.BacklogHist))
	gauge(descReplSize, float64(r.BacklogSize))
	counter(descSyncFull, float64(r.SyncFull))
	counter(descSyncPOK, float64(r.PartialOK))
	counter(descSyncPErr, float64(r.PartialErr))
	for i, l := range r.Links {
		gauge(descLagBytes, float64(max(r.Offset-l.Offset, 0)), strconv.Itoa(i))
		gauge(descLagSecs, float64(l.Lag), strconv.Itoa(i))
	}
	if rs := r.Replica; rs != nil {
		up := 0.0
		if rs.LinkUp {
			up = 1
		}
		gauge(descLinkUp, up)
	}

	store := s.store
	for db := 0; db < store.Databases(); db++ {
		keys, expires := store.KeyCounts(db)
		gauge(descKeys, float64(keys), strconv.Itoa(db))
		gauge(descExpires, float64(expires), strconv.Itoa(db))
	}
	counter(descExpired, float64(store.Stats.ExpiredKeys.Load()))
	hits, misses := store.KeyspaceStats()
	counter(descHits, float64(hits))
	counter(descMisses, float64(misses))
	counter(descReclaimed, float64(store.Stats.ReclaimedKeys.Load()))
	gauge(descBacklog, float64(store.Stats.GarbagePending.Load()))

	var ls leveldb.DBStats
	if err := store.LevelDB().Stats(&ls); err == nil {
		// LevelDB reports only levels that have held tables; levels 0-6 are always exported.
		for i := 0; i < max(len(ls.LevelSizes), 7); i++ {
			l := strconv.Itoa(i)
			var size, read, write int64
			var tables int
			var dur time.Duration
			if i < len(ls.LevelSizes) {
				size, tables, read, write, dur = ls.LevelSizes[i], ls.LevelTablesCounts[i], ls.LevelRead[i], ls.LevelWrite[i], ls.LevelDurations[i]
			}
			gauge(descLevelBytes, float64(size), l)
			gauge(descLevelTabs, float64(tables), l)
			counter(descCompRead, float64(read), l)
			counter(descCompWrite, float64(write), l)
			counter(descCompTime, dur.Seconds(), l)
		}
		counter(descComps, float64(ls.MemComp), "memtable")
		counter(descComps, float64(ls.Level0Comp), "level0")
		counter(descComps, float64(ls.NonLevel0Comp), "nonlevel0")
		counter(descComps, float64(ls.SeekComp), "seek")
		counter(descStalls, float64(ls.WriteDelayCount))
		counter(descStallTime, ls.WriteDelayDuration.Seconds())
		paused := 0.0
		if ls.WritePaused {
			paused = 1
		}
		gauge(descPaused, paused)
		gauge(descCache, float64(ls.BlockCacheSize))
		gauge(descOpenTabs, float64(ls.OpenedTablesCount))
		counter(descIORead, float64(ls.IORead))
		counter(descIOWrite, float64(ls.IOWrite))
	}
	gauge(descMemLimit, float64(s.cfg.LevelDBWriteBufferSize))
	if n, err := storage.DirSize(s.cfg.Dir); err == nil {
		gauge(descDirBytes, float64(n))
	}
	b := store.BackupInfo()
	running := 0.0
	if b.InProgress {
		running = 1
	}
	gauge(descBackupRun, running)
	gauge(descBackupTime, float64(b.LastTime.Unix()))
}
