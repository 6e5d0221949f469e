package server

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/scripting"
)

// Stats is what the server counts for INFO and /metrics.
type Stats struct {
	Version          string // Strata's own version
	Started          time.Time
	Port             int
	ConfigFile       string
	ConnectedClients int
	BlockedClients   int
	PausedClients    int
	TotalConnections int64
	TotalCommands    int64
	NetInput         int64
	NetOutput        int64
	Rejected         int64
	TotalErrors      int64
	ClientPanics     int64 // panics recovered in goroutines serving clients (each closed the client)
	Tracking         TrackingStats
	Replication      ReplicationStats
	Commands         []CommandStat    // commands called at least once, by name
	Errors           map[string]int64 // error replies by their code ("ERR", "WRONGTYPE", ...)
}

// TrackingStats are INFO's client-side caching figures (CLIENT TRACKING).
type TrackingStats struct {
	Clients  int // clients with tracking on
	Keys     int // keys remembered for clients in the default mode
	Items    int // (key, client) pairs
	Prefixes int // distinct BCAST prefixes
}

// ReplicationStats is INFO replication's view of the server's replication state.
type ReplicationStats struct {
	Role          string // "master" or "slave"
	ID, ID2       string // master_replid, master_replid2
	Offset        int64  // master_repl_offset
	SecondOffset  int64  // second_repl_offset
	Replicas      int    // connected_slaves
	Links         []ReplicaLinkStats
	GoodReplicas  int    // min_slaves_good_slaves, -1 while min-replicas-to-write is off
	FailoverState string // master_failover_state
	// SyncFull, PartialOK and PartialErr count the synchronisations served (sync_full,
	// sync_partial_ok, sync_partial_err).
	SyncFull, PartialOK, PartialErr int64
	ReplOutput                      int64 // total_net_repl_output_bytes
	BacklogActive                   bool
	BacklogSize                     int
	BacklogFirst                    int64
	BacklogHist                     int
	// Replica, for a replica (Role "slave"), is the state of its link to the master.
	Replica *ReplicaStats
}

// ReplicaLinkStats is one linked replica as INFO replication lists it (slaveN).
type ReplicaLinkStats struct {
	IP     string
	Port   int
	State  string // wait_bgsave, send_bulk, online
	Offset int64  // acknowledged
	Lag    int64  // seconds since its last ACK
}

// ReplicaStats is INFO replication's view of a replica's link to its master.
type ReplicaStats struct {
	MasterHost     string
	MasterPort     int
	LinkUp         bool
	LastIO         int64 // seconds since the last byte from the master, -1 without a link
	SyncInProgress bool
	// SyncTotal and SyncRead are the bytes of the snapshot being loaded (total -1 before its
	// framing arrives, 0 when the master streams it without a length) and the bytes read.
	SyncTotal, SyncRead int64
	ReadOffset          int64 // slave_read_repl_offset
	Offset              int64 // slave_repl_offset
	DownSince           int64 // seconds since the link went down, -1 if it never was up
	Priority            int
	ReadOnly            bool
	Announced           bool
}

// CommandStat counts one command's calls for INFO commandstats.
type CommandStat struct {
	Name                          string
	Calls, Usec, Rejected, Failed int64
}

// infoSection is one INFO section: its name as INFO takes it, its title, and whether INFO
// with no argument ("default") and INFO all include it (everything includes all sections).
type infoSection struct {
	name, title string
	dflt, all   bool
	gen         func(b *infoBuilder, s *Server, st *Stats)
}

var infoSections = []infoSection{
	{"server", "Server", true, true, infoServer},
	{"clients", "Clients", true, true, infoClients},
	{"memory", "Memory", true, true, infoMemory},
	{"persistence", "Persistence", true, true, infoPersistence},
	{"stats", "Stats", true, true, infoStats},
	{"replication", "Replication", true, true, infoReplication},
	{"cpu", "CPU", true, true, infoCPU},
	{"modules", "Modules", true, false, func(*infoBuilder, *Server, *Stats) {}},
	{"commandstats", "Commandstats", false, true, infoCommandStats},
	{"errorstats", "Errorstats", true, true, infoErrorStats},
	{"cluster", "Cluster", true, true, func(b *infoBuilder, _ *Server, _ *Stats) { b.kv("cluster_enabled", "0") }},
	{"keyspace", "Keyspace", true, true, infoKeyspace},
	{"storage", "Storage", true, true, infoStorage},
}

// infoBuilder accumulates "key:value\r\n" lines.
type infoBuilder struct{ bytes.Buffer }

func (b *infoBuilder) kv(k, v string) {
	b.WriteString(k)
	b.WriteByte(':')
	b.WriteString(v)
	b.WriteString("\r\n")
}

func (b *infoBuilder) kvi(k string, v int64) { b.kv(k, strconv.FormatInt(v, 10)) }

// Info renders INFO for the sections asked (lower-cased names; none means "default"), as
// Redis 7.0 lays them out, with Strata's storage section.
func (s *Server) Info(sections []string) string {
	want := map[string]bool{}
	everything, all := false, false
	if len(sections) == 0 {
		want["default"] = true
	}
	for _, name := range sections {
		switch name {
		case "everything":
			everything = true
		case "all":
			all = true
		default:
			want[name] = true
		}
	}
	st := s.Stats()
	var b infoBuilder
	n := 0
	for _, sec := range infoSections {
		if !(everything || all && sec.all || want[sec.name] || want["default"] && sec.dflt) {
			continue
		}
		if n > 0 {
			b.WriteString("\r\n")
		}
		n++
		b.WriteString("# " + sec.title + "\r\n")
		sec.gen(&b, s, st)
	}
	return b.String()
}

// runID names this run of the server in INFO (run_id): 40 random hex characters.
var runID = sync.OnceValue(func() string {
	var p [20]byte
	rand.Read(p[:])
	return hex.EncodeToString(p[:])
})

func utsString(a [65]int8) string {
	var b []byte
	for _, ch := range a {
		if ch == 0 {
			break
		}
		b = append(b, byte(ch))
	}
	return string(b)
}

func infoServer(b *infoBuilder, s *Server, st *Stats) {
	cfg := s.Config()
	now := time.Now()
	uptime := int64(now.Sub(st.Started) / time.Second)
	osName := runtime.GOOS
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		osName = utsString(u.Sysname) + " " + utsString(u.Release) + " " + utsString(u.Machine)
	}
	exe, _ := os.Executable()
	port := int64(st.Port)
	if port == 0 {
		port = int64(cfg.Port)
	}
	b.kv("redis_version", commands.RedisVersion)
	b.kv("strata_version", st.Version)
	b.kv("redis_git_sha1", "00000000")
	b.kv("redis_git_dirty", "0")
	b.kv("redis_build_id", "0")
	b.kv("redis_mode", "standalone")
	b.kv("os", osName)
	b.kvi("arch_bits", strconv.IntSize)
	b.kv("monotonic_clock", "POSIX clock_gettime")
	b.kv("multiplexing_api", "epoll")
	b.kv("atomicvar_api", "go-atomic")
	b.kv("go_version", runtime.Version())
	b.kvi("process_id", int64(os.Getpid()))
	b.kv("process_supervised", "no")
	b.kv("run_id", runID())
	b.kvi("tcp_port", port)
	b.kvi("server_time_usec", now.UnixMicro())
	b.kvi("uptime_in_seconds", uptime)
	b.kvi("uptime_in_days", uptime/86400)
	b.kvi("hz", int64(cfg.ActiveExpireHz))
	b.kvi("configured_hz", int64(cfg.ActiveExpireHz))
	b.kvi("lru_clock", now.Unix()&(1<<24-1))
	b.kv("executable", exe)
	b.kv("config_file", st.ConfigFile)
	b.kv("io_threads_active", "0")
}

func infoClients(b *infoBuilder, s *Server, st *Stats) {
	b.kvi("connected_clients", int64(st.ConnectedClients))
	b.kv("cluster_connections", "0")
	b.kvi("maxclients", int64(s.Config().MaxClients))
	b.kv("client_recent_max_input_buffer", "0")
	b.kv("client_recent_max_output_buffer", "0")
	b.kvi("blocked_clients", int64(st.BlockedClients))
	b.kvi("tracking_clients", int64(st.Tracking.Clients))
	b.kv("clients_in_timeout_table", "0")
}

// infoHuman formats a byte count as Redis's bytesToHuman does.
func infoHuman(n int64) string {
	f := float64(n)
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + "B"
	case n < 1024*1024:
		return fmt.Sprintf("%.2fK", f/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.2fM", f/(1024*1024))
	case n < 1024*1024*1024*1024:
		return fmt.Sprintf("%.2fG", f/(1024*1024*1024))
	default:
		return fmt.Sprintf("%.2fT", f/(1024*1024*1024*1024))
	}
}

// infoRSS returns the resident set size from /proc/self/statm, or 0.
func infoRSS() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

var infoPeak atomic.Int64

func infoMemory(b *infoBuilder, s *Server, _ *Stats) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	used := int64(ms.HeapAlloc)
	peak := infoPeak.Load()
	for used > peak && !infoPeak.CompareAndSwap(peak, used) {
		peak = infoPeak.Load()
	}
	peak = max(peak, used)
	rss := infoRSS()
	var si syscall.Sysinfo_t
	total := int64(0)
	if syscall.Sysinfo(&si) == nil {
		total = int64(si.Totalram) * int64(si.Unit)
	}
	b.kvi("used_memory", used)
	b.kv("used_memory_human", infoHuman(used))
	b.kvi("used_memory_rss", rss)
	b.kv("used_memory_rss_human", infoHuman(rss))
	b.kvi("used_memory_peak", peak)
	b.kv("used_memory_peak_human", infoHuman(peak))
	b.kv("used_memory_peak_perc", fmt.Sprintf("%.2f%%", 100*float64(used)/float64(max(peak, 1))))
	b.kvi("total_system_memory", total)
	b.kv("total_system_memory_human", infoHuman(total))

	b.kvi("number_of_cached_scripts", scripting.CachedScripts(s.store))
	b.kv("maxmemory", "0")
	b.kv("maxmemory_human", "0B")
	b.kv("maxmemory_policy", "noeviction")
	b.kv("mem_not_counted_for_evict", "0") // nothing is evicted: the data lives on disk
	b.kv("mem_fragmentation_ratio", fmt.Sprintf("%.2f", float64(rss)/float64(max(used, 1))))
	b.kv("mem_allocator", "go-"+runtime.Version())
	b.kvi("go_heap_sys", int64(ms.HeapSys))
	b.kvi("go_heap_idle", int64(ms.HeapIdle))
	b.kvi("go_heap_released", int64(ms.HeapReleased))
	b.kvi("go_sys", int64(ms.Sys))
	b.kvi("go_num_gc", int64(ms.NumGC))
	b.kvi("go_goroutines", int64(runtime.NumGoroutine()))
	b.kvi("leveldb_block_cache_capacity", s.Config().LevelDBBlockCacheSize)

	var ds leveldb.DBStats
	if s.store.LevelDB().Stats(&ds) == nil {
		b.kvi("leveldb_block_cache_used", int64(ds.BlockCacheSize))
	}
	b.kvi("lazyfree_pending_objects", s.store.Stats.LazyPending.Load())
	b.kvi("lazyfreed_objects", s.store.Stats.LazyFreed.Load())
}

func infoPersistence(b *infoBuilder, s *Server, _ *Stats) {
	b.kv("loading", "0")
	b.kv("async_loading", "0")
	bi := s.store.BackupInfo()
	status := "ok"
	if bi.LastErr != "" {
		status = "err"
	}
	dur := int64(-1)
	if bi.Duration > 0 {
		dur = int64(bi.Duration / time.Second)
	}
	b.kvi("rdb_changes_since_last_save", s.store.Changes())
	b.kv("rdb_bgsave_in_progress", boolDigit(bi.InProgress))
	b.kvi("rdb_last_save_time", bi.LastTime.Unix())
	b.kv("rdb_last_bgsave_status", status)
	b.kvi("rdb_last_bgsave_time_sec", dur)
	b.kv("rdb_current_bgsave_time_sec", "-1")
	b.kvi("backup_last_size", bi.Size)
	// Every write goes to the journal (CONFIG GET appendonly answers yes); BGREWRITEAOF compacts it.
	writeStatus := "ok"
	if s.store.WriteError() != nil {
		writeStatus = "err"
	}
	b.kv("aof_enabled", "1")
	b.kv("aof_rewrite_in_progress", boolDigit(s.store.CompactInfo().InProgress))
	b.kv("aof_rewrite_scheduled", "0")
	b.kv("aof_last_write_status", writeStatus)
	b.kv("appendfsync", s.Config().AppendFsync)
}

func boolDigit(v bool) string {
	if v {
		return "1"
	}
	return "0"
}

func infoStats(b *infoBuilder, s *Server, st *Stats) {
	expired := s.store.Stats.ExpiredKeys.Load()
	reclaimed := s.store.Stats.ReclaimedKeys.Load()
	garbage := s.store.Stats.GarbagePending.Load()
	b.kvi("total_connections_received", st.TotalConnections)
	b.kvi("total_commands_processed", st.TotalCommands)
	b.kv("instantaneous_ops_per_sec", "0")
	b.kvi("total_net_input_bytes", st.NetInput)
	b.kvi("total_net_output_bytes", st.NetOutput)
	b.kv("total_net_repl_input_bytes", "0")
	b.kvi("total_net_repl_output_bytes", st.Replication.ReplOutput)
	b.kv("instantaneous_input_kbps", "0.00")
	b.kv("instantaneous_output_kbps", "0.00")
	b.kvi("rejected_connections", st.Rejected)
	b.kvi("sync_full", st.Replication.SyncFull)
	b.kvi("sync_partial_ok", st.Replication.PartialOK)
	b.kvi("sync_partial_err", st.Replication.PartialErr)
	b.kvi("expired_keys", expired)
	b.kv("expired_stale_perc", "0.00")
	b.kv("expired_time_cap_reached_count", "0")
	b.kv("evicted_keys", "0")
	b.kv("evicted_clients", "0")
	hits, misses := s.store.KeyspaceStats()
	b.kvi("keyspace_hits", hits)
	b.kvi("keyspace_misses", misses)
	b.kv("pubsub_channels", "0")
	b.kv("pubsub_patterns", "0")
	b.kv("pubsubshard_channels", "0")
	b.kv("latest_fork_usec", "0")
	b.kv("total_forks", "0")
	b.kvi("migrate_cached_sockets", int64(commands.MigrateCachedSockets()))
	b.kvi("tracking_total_keys", int64(st.Tracking.Keys))
	b.kvi("tracking_total_items", int64(st.Tracking.Items))
	b.kvi("tracking_total_prefixes", int64(st.Tracking.Prefixes))
	b.kv("unexpected_error_replies", "0")
	b.kvi("total_error_replies", st.TotalErrors)
	b.kvi("reclaimed_keys", reclaimed)
	b.kvi("garbage_pending", garbage)
	b.kvi("client_panics", st.ClientPanics)
}

func infoReplication(b *infoBuilder, _ *Server, st *Stats) {
	r := st.Replication
	b.kv("role", r.Role)
	if rs := r.Replica; rs != nil {
		b.kv("master_host", rs.MasterHost)
		b.kvi("master_port", int64(rs.MasterPort))
		b.kv("master_link_status", map[bool]string{true: "up", false: "down"}[rs.LinkUp])
		b.kvi("master_last_io_seconds_ago", rs.LastIO)
		b.kv("master_sync_in_progress", boolDigit(rs.SyncInProgress))
		b.kvi("slave_read_repl_offset", rs.ReadOffset)
		b.kvi("slave_repl_offset", rs.Offset)
		if rs.SyncInProgress {
			perc := 0.0
			if rs.SyncTotal > 0 {
				perc = float64(rs.SyncRead) / float64(rs.SyncTotal) * 100
			}
			b.kvi("master_sync_total_bytes", rs.SyncTotal)
			b.kvi("master_sync_read_bytes", rs.SyncRead)
			b.kvi("master_sync_left_bytes", rs.SyncTotal-rs.SyncRead)
			b.kv("master_sync_perc", fmt.Sprintf("%.2f", perc))
			b.kvi("master_sync_last_io_seconds_ago", rs.LastIO)
		}
		if !rs.LinkUp {
			b.kvi("master_link_down_since_seconds", rs.DownSince)
		}
		b.kvi("slave_priority", int64(rs.Priority))
		b.kv("slave_read_only", boolDigit(rs.ReadOnly))
		b.kv("replica_announced", boolDigit(rs.Announced))
	}
	b.kvi("connected_slaves", int64(r.Replicas))
	if r.GoodReplicas >= 0 {
		b.kvi("min_slaves_good_slaves", int64(r.GoodReplicas))
	}
	for i, l := range r.Links {
		b.kv("slave"+strconv.Itoa(i), fmt.Sprintf("ip=%s,port=%d,state=%s,offset=%d,lag=%d", l.IP, l.Port, l.State, l.Offset, l.Lag))
	}
	b.kv("master_failover_state", r.FailoverState)
	b.kv("master_replid", r.ID)
	b.kv("master_replid2", r.ID2)
	b.kvi("master_repl_offset", r.Offset)
	b.kvi("second_repl_offset", r.SecondOffset)
	b.kv("repl_backlog_active", boolDigit(r.BacklogActive))
	b.kvi("repl_backlog_size", int64(r.BacklogSize))
	b.kvi("repl_backlog_first_byte_offset", r.BacklogFirst)
	b.kvi("repl_backlog_histlen", int64(r.BacklogHist))
}

func infoCPU(b *infoBuilder, _ *Server, _ *Stats) {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) string {
		return fmt.Sprintf("%d.%06d", t.Sec, t.Usec)
	}
	b.kv("used_cpu_sys", tv(self.Stime))
	b.kv("used_cpu_user", tv(self.Utime))
	b.kv("used_cpu_sys_children", tv(children.Stime))
	b.kv("used_cpu_user_children", tv(children.Utime))
}

func infoCommandStats(b *infoBuilder, _ *Server, st *Stats) {
	for _, cs := range st.Commands {
		perCall := 0.0
		if cs.Calls > 0 {
			perCall = float64(cs.Usec) / float64(cs.Calls)
		}
		fmt.Fprintf(b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d\r\n",
			cs.Name, cs.Calls, cs.Usec, perCall, cs.Rejected, cs.Failed)
	}
}

func infoErrorStats(b *infoBuilder, _ *Server, st *Stats) {
	codes := make([]string, 0, len(st.Errors))
	for k := range st.Errors {
		codes = append(codes, k)
	}
	sort.Strings(codes)
	for _, k := range codes {
		fmt.Fprintf(b, "errorstat_%s:count=%d\r\n", k, st.Errors[k])
	}
}

func infoKeyspace(b *infoBuilder, s *Server, _ *Stats) {
	for db := 0; db < s.store.Databases(); db++ {
		keys, expires := s.store.KeyCounts(db)
		if keys == 0 && expires == 0 {
			continue
		}
		fmt.Fprintf(b, "db%d:keys=%d,expires=%d,avg_ttl=0\r\n", db, keys, expires)
	}
}

// infoStorage reports the LevelDB engine: per-level tables and sizes, compactions, I/O,
// caches and write stalls.
func infoStorage(b *infoBuilder, s *Server, _ *Stats) {
	cfg := s.Config()
	b.kv("storage_engine", "leveldb")
	b.kv("data_dir", cfg.Dir)
	var ds leveldb.DBStats
	if err := s.store.LevelDB().Stats(&ds); err != nil {
		b.kv("leveldb_stats_error", strings.ReplaceAll(err.Error(), "\n", " "))
		return
	}
	var tables int
	var size int64
	for i, n := range ds.LevelTablesCounts {
		tables += n
		size += ds.LevelSizes[i]
	}
	b.kvi("leveldb_tables", int64(tables))
	b.kvi("leveldb_size", size)
	b.kv("leveldb_size_human", infoHuman(size))
	for i, n := range ds.LevelTablesCounts {
		if n == 0 && ds.LevelSizes[i] == 0 {
			continue
		}
		fmt.Fprintf(b, "leveldb_level%d:tables=%d,size=%d,read=%d,write=%d,compaction_sec=%.3f\r\n",
			i, n, ds.LevelSizes[i], ds.LevelRead[i], ds.LevelWrite[i], ds.LevelDurations[i].Seconds())
	}
	b.kvi("leveldb_io_read", int64(ds.IORead))
	b.kvi("leveldb_io_write", int64(ds.IOWrite))
	b.kvi("leveldb_block_cache_used", int64(ds.BlockCacheSize))
	b.kvi("leveldb_opened_tables", int64(ds.OpenedTablesCount))
	b.kvi("leveldb_alive_snapshots", int64(ds.AliveSnapshots))
	b.kvi("leveldb_alive_iterators", int64(ds.AliveIterators))
	b.kvi("leveldb_write_delay_count", int64(ds.WriteDelayCount))
	b.kvi("leveldb_write_delay_ms", ds.WriteDelayDuration.Milliseconds())
	b.kv("leveldb_write_paused", boolDigit(ds.WritePaused))
	b.kvi("leveldb_mem_compactions", int64(ds.MemComp))
	b.kvi("leveldb_level0_compactions", int64(ds.Level0Comp))
	b.kvi("leveldb_nonlevel0_compactions", int64(ds.NonLevel0Comp))
	b.kvi("leveldb_seek_compactions", int64(ds.SeekComp))
	b.kvi("leveldb_block_size", int64(cfg.LevelDBBlockSize))
	b.kvi("leveldb_write_buffer_size", int64(cfg.LevelDBWriteBufferSize))
	b.kv("leveldb_compression", cfg.LevelDBCompression)
	b.kvi("expired_keys", s.store.Stats.ExpiredKeys.Load())
	b.kvi("reclaimed_keys", s.store.Stats.ReclaimedKeys.Load())
	b.kvi("garbage_pending", s.store.Stats.GarbagePending.Load())
	ci := s.store.CompactInfo()
	b.kv("strata_compaction_in_progress", boolDigit(ci.InProgress))
	b.kvi("strata_compactions_run", ci.Runs)
	b.kvi("strata_last_compaction_ms", ci.LastTime.Milliseconds())
	vs := s.store.ValueLogStats()
	b.kvi("value_log_files", int64(vs.Files))
	b.kvi("value_log_bytes", vs.Bytes)
	b.kvi("value_log_live_bytes", vs.LiveBytes)
	b.kvi("value_log_staged_values", vs.Staged)
	cacheBytes, hits, misses := s.store.CacheStats()
	b.kvi("key_cache_bytes", cacheBytes)
	b.kvi("key_cache_hits", hits)
	b.kvi("key_cache_misses", misses)
}
