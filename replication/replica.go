package replication

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-db/strata/storage"
)

// Host is what a replica needs from the server it runs in.
type Host interface {
	// Store is the keyspace a full synchronisation loads into.
	Store() *storage.Store
	// Apply runs one command of the master's stream as the master client: in the master
	// client's database (SELECT changes it), inside its transaction after MULTI, its reply
	// discarded. at is the point the stream reaches once the command has run: the server
	// commits at.Record() (or, for an empty ID, the record's deletion) under PointRecord in
	// the batch of the command's writes. The arguments are valid during the call only.
	Apply(args [][]byte, at Point)
	// ResetMaster starts a new master client in database db, with no transaction.
	ResetMaster(db int)
	// Replaced says that a full synchronisation replaced the whole keyspace, as FLUSHALL
	// would have: clients watching keys and tracking them are told.
	Replaced()
}

// Relay is implemented by a Host that serves replicas of its own (chained replication): it
// passes the master's stream on as received, at the master's offsets.
type Relay interface {
	// Resynced says that the stream now continues from offset under replication ID id:
	// after a full synchronisation (full set), or a partial one (which may name a new ID).
	Resynced(id string, offset int64, full bool)
	// Relay passes on one command of the stream, PINGs and REPLCONF GETACK included. The
	// arguments are valid during the call only.
	Relay(args [][]byte)
	// Hold and Release bracket a command of the stream from its Relay to the end of its Apply,
	// a transaction from its MULTI to its EXEC: a snapshot for this server's own replicas is
	// taken between them, never inside, so that it holds exactly what it has relayed.
	Hold()
	Release()
}

// Options configure a replica's link.
type Options struct {
	Host       Host
	MasterHost string
	MasterPort int
	// User and Password authenticate to the master (masteruser, masterauth); no AUTH is
	// sent without a password.
	User, Password string
	// ListeningPort is announced with REPLCONF listening-port; AnnounceIP, when set, with
	// REPLCONF ip-address (replica-announce-port, replica-announce-ip).
	ListeningPort int
	AnnounceIP    string
	// Timeout drops a link silent for this long (repl-timeout); 0 means 60 seconds.
	Timeout time.Duration
	// MaxBulkLen bounds one argument of the stream and one element of the snapshot.
	MaxBulkLen int64
	// Resume is the point to continue from with a partial resynchronisation; an empty ID
	// asks for a full one.
	Resume Point
	// Failover makes the first PSYNC "PSYNC <replid> <offset> FAILOVER": the master, a
	// replica of this node until now, takes over as master (FAILOVER, coordinated).
	Failover bool
	Logger   *slog.Logger
}

// Point is a position in a master's history: its replication ID, the offset of the last
// byte applied, and the database the stream had selected there.
type Point struct {
	ID     string
	Offset int64
	DB     int
}

// PointRecord is the name of the storage system record that holds the point a replica's
// keyspace reflects. It is committed in the batch of every write the replica applies, deleted
// before a full synchronisation starts to load and written with its last batch, so after a
// restart, clean or not, the replica continues from where its data is.
const PointRecord = "replica-point"

// Record encodes p for PointRecord: "replid offset db".
func (p Point) Record() []byte {
	return fmt.Appendf(nil, "%s %d %d", p.ID, p.Offset, p.DB)
}

// ParsePoint decodes a PointRecord value.
func ParsePoint(v []byte) (Point, bool) {
	f := strings.Fields(string(v))
	if len(f) != 3 || len(f[0]) != 40 {
		return Point{}, false
	}
	off, err1 := strconv.ParseInt(f[1], 10, 64)
	db, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || db < 0 {
		return Point{}, false
	}
	return Point{ID: f[0], Offset: off, DB: db}, true
}

// State is the link's state, as ROLE names it.
type State int32

// The states of a replica's link, in the order a connection goes through them.
const (
	StateConnect    State = iota // waiting to connect
	StateConnecting              // TCP connection under way
	StateHandshake               // PING, AUTH, REPLCONF, PSYNC
	StateTransfer                // loading a full synchronisation
	StateConnected               // applying the command stream
)

var stateNames = [...]string{"connect", "connecting", "handshake", "sync", "connected"}

// String returns the state's name in ROLE.
func (s State) String() string { return stateNames[s] }

// Status is a snapshot of a replica for INFO replication and ROLE.
type Status struct {
	MasterHost string
	MasterPort int
	State      State
	Point      Point     // applied so far (slave_repl_offset); ID "" before the first sync
	ReadOffset int64     // read so far (slave_read_repl_offset)
	LastIO     time.Time // last byte read from the master; zero without a link
	DownSince  time.Time // when the link went down; zero if it was never up
	// SyncTotal and SyncRead are the payload size (-1 before it is known, 0 for a diskless
	// one, as Redis reports them) and the bytes read of a full synchronisation in progress.
	SyncTotal, SyncRead int64
	FullSyncs           int64 // full synchronisations loaded
	PartialSyncs        int64 // partial ones accepted
}

// Replica is the replica side of one master link: it connects, synchronises and applies the
// master's stream until Stop, reconnecting after a broken link.
type Replica struct {
	o    Options
	log  *slog.Logger
	stop chan struct{}
	done chan struct{}

	state      atomic.Int32
	offset     atomic.Int64 // applied
	readOffset atomic.Int64
	lastIO     atomic.Int64 // unix nanoseconds
	syncTotal  atomic.Int64
	syncRead   atomic.Int64
	failover   atomic.Bool // Options.Failover, until the first PSYNC

	mu        sync.Mutex
	id        string
	db        int // the stream's database at the applied offset
	downSince time.Time
	conn      net.Conn
	full, par int64
}

// Start begins replicating from the master in o.
func Start(o Options) *Replica {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.MaxBulkLen <= 0 {
		o.MaxBulkLen = 512 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	r := &Replica{o: o, log: o.Logger, stop: make(chan struct{}), done: make(chan struct{}),
		id: o.Resume.ID, db: o.Resume.DB}
	r.offset.Store(o.Resume.Offset)
	r.readOffset.Store(o.Resume.Offset)
	r.failover.Store(o.Failover)
	go r.run()
	return r
}

// Master returns the master's host and port.
func (r *Replica) Master() (string, int) { return r.o.MasterHost, r.o.MasterPort }

// State returns the link's state.
func (r *Replica) State() State { return State(r.state.Load()) }

// Status returns a snapshot of the replica.
func (r *Replica) Status() Status {
	r.mu.Lock()
	st := Status{MasterHost: r.o.MasterHost, MasterPort: r.o.MasterPort, DownSince: r.downSince,
		FullSyncs: r.full, PartialSyncs: r.par, Point: Point{ID: r.id, DB: r.db}}
	r.mu.Unlock()
	st.State = r.State()
	st.Point.Offset = r.offset.Load()
	st.ReadOffset = r.readOffset.Load()
	if n := r.lastIO.Load(); n != 0 {
		st.LastIO = time.Unix(0, n)
	}
	st.SyncTotal, st.SyncRead = r.syncTotal.Load(), r.syncRead.Load()
	return st
}

// Stop closes the link, waits until nothing more is applied, and returns the point reached.
func (r *Replica) Stop() Point {
	close(r.stop)
	r.mu.Lock()
	if r.conn != nil {
		r.conn.Close()
	}
	r.mu.Unlock()
	<-r.done
	st := r.Status()
	return st.Point
}

// KillLink closes the connection to the master, if there is one (CLIENT KILL TYPE master);
// the replica reconnects and asks for a partial resynchronisation.
func (r *Replica) KillLink() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn == nil {
		return false
	}
	r.conn.Close()
	return true
}

// retryDelay is the pause between a broken link and the next attempt (Redis's replication
// cron runs once a second).
const retryDelay = time.Second

func (r *Replica) run() {
	defer close(r.done)
	for {
		err := r.session()
		r.setState(StateConnect)
		r.lastIO.Store(0)
		r.mu.Lock()
		r.downSince = time.Now()
		r.conn = nil
		r.mu.Unlock()
		select {
		case <-r.stop:
			return
		default:
		}
		r.log.Warn("replication link lost", "master", net.JoinHostPort(r.o.MasterHost, strconv.Itoa(r.o.MasterPort)), "err", err)
		t := time.NewTimer(retryDelay)
		select {
		case <-r.stop:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (r *Replica) setState(s State) { r.state.Store(int32(s)) }

// link is one connection to the master.
type link struct {
	r    *Replica
	conn net.Conn
	br   *bufio.Reader
	wmu  sync.Mutex // serialises the ACKs of the ticker and of GETACK
}

// Read reads from the master with the link's timeout, noting the time of the last byte.
func (l *link) Read(p []byte) (int, error) {
	l.conn.SetReadDeadline(time.Now().Add(l.r.o.Timeout))
	n, err := l.conn.Read(p)
	if n > 0 {
		l.r.lastIO.Store(time.Now().UnixNano())
	}
	return n, err
}

func (l *link) send(args ...string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.conn.SetWriteDeadline(time.Now().Add(l.r.o.Timeout))
	_, err := io.WriteString(l.conn, b.String())
	return err
}

func (l *link) ack() error {
	return l.send("REPLCONF", "ACK", strconv.FormatInt(l.r.offset.Load(), 10))
}

// call sends a handshake command and reads its single-line reply.
func (l *link) call(args ...string) (string, error) {
	if err := l.send(args...); err != nil {
		return "", err
	}
	return readReplyLine(l.br)
}

// session runs one connection: handshake, synchronisation, stream. It returns why it ended.
func (r *Replica) session() error {
	r.setState(StateConnecting)
	addr := net.JoinHostPort(r.o.MasterHost, strconv.Itoa(r.o.MasterPort))
	conn, err := net.DialTimeout("tcp", addr, r.o.Timeout)
	if err != nil {
		return err
	}
	r.mu.Lock()
	select {
	case <-r.stop:
		r.mu.Unlock()
		conn.Close()
		return nil
	default:
	}
	r.conn = conn
	r.mu.Unlock()
	defer conn.Close()
	l := &link{r: r, conn: conn}
	l.br = bufio.NewReaderSize(l, 64<<10)

	r.setState(StateHandshake)
	rep, err := l.call("PING")
	if err != nil {
		return err
	}
	if rep[0] == '-' && !strings.HasPrefix(rep, "-NOAUTH") && !strings.HasPrefix(rep, "-NOPERM") &&
		!strings.HasPrefix(rep, "-ERR operation not permitted") {
		return fmt.Errorf("master answered PING with %s", rep)
	}
	if r.o.Password != "" {
		args := []string{"AUTH", r.o.Password}
		if r.o.User != "" {
			args = []string{"AUTH", r.o.User, r.o.Password}
		}
		if rep, err = l.call(args...); err != nil {
			return err
		}
		if rep[0] == '-' {
			return fmt.Errorf("master refused AUTH: %s", rep)
		}
	}
	if rep, err = l.call("REPLCONF", "listening-port", strconv.Itoa(r.o.ListeningPort)); err != nil {
		return err
	} else if rep[0] == '-' {
		r.log.Info("master refused REPLCONF listening-port", "reply", rep)
	}
	if r.o.AnnounceIP != "" {
		if rep, err = l.call("REPLCONF", "ip-address", r.o.AnnounceIP); err != nil {
			return err
		} else if rep[0] == '-' {
			r.log.Info("master refused REPLCONF ip-address", "reply", rep)
		}
	}
	if rep, err = l.call("REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return err
	} else if rep[0] == '-' {
		r.log.Info("master refused REPLCONF capa", "reply", rep)
	}

	r.mu.Lock()
	id := r.id
	r.mu.Unlock()
	psync := []string{"PSYNC", "?", "-1"}
	if id != "" {
		psync = []string{"PSYNC", id, strconv.FormatInt(r.offset.Load()+1, 10)}
		if r.failover.Swap(false) {
			psync = append(psync, "FAILOVER")
		}
	}
	if rep, err = l.call(psync...); err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(rep, "+FULLRESYNC "):
		f := strings.Fields(rep)
		if len(f) != 3 || len(f[1]) != 40 {
			return fmt.Errorf("bad PSYNC reply %q", rep)
		}
		off, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("bad PSYNC reply %q", rep)
		}
		r.syncTotal.Store(-1) // until the snapshot's framing arrives
		r.setState(StateTransfer)
		at := Point{ID: f[1], Offset: off}
		if err := r.fullSync(l, &at); err != nil {
			return fmt.Errorf("full synchronisation: %w", err)
		}
		r.mu.Lock()
		r.id, r.db = at.ID, at.DB
		r.full++
		r.mu.Unlock()
		r.offset.Store(off)
		r.readOffset.Store(off)
		r.o.Host.ResetMaster(at.DB) // the snapshot's repl-stream-db
		if rl, ok := r.o.Host.(Relay); ok {
			rl.Resynced(at.ID, off, true)
		}
		r.log.Info("full synchronisation with the master loaded", "master", addr, "offset", off)
	case strings.HasPrefix(rep, "+CONTINUE"):
		f := strings.Fields(rep)
		r.mu.Lock()
		if len(f) == 2 && len(f[1]) == 40 {
			r.id = f[1]
		}
		r.par++
		db := r.db
		r.mu.Unlock()
		r.readOffset.Store(r.offset.Load())
		r.o.Host.ResetMaster(db) // the stream goes on in the database it had selected
		if rl, ok := r.o.Host.(Relay); ok {
			rl.Resynced(r.Status().Point.ID, r.offset.Load(), false)
		}
		r.log.Info("partial resynchronisation accepted", "master", addr, "offset", r.offset.Load())
	default:
		return fmt.Errorf("master answered PSYNC with %s", rep)
	}
	r.setState(StateConnected)
	if err := l.ack(); err != nil { // a diskless master starts the stream on the first ACK
		return err
	}
	r.mu.Lock()
	r.downSince = time.Time{}
	r.mu.Unlock()
	return r.stream(l)
}

// fullSync reads the snapshot that follows +FULLRESYNC into the store; at is the point the
// snapshot stands for.
func (r *Replica) fullSync(l *link, at *Point) error {
	line, err := readReplyLine(l.br)
	if err != nil {
		return err
	}
	if len(line) == 0 || line[0] != '$' {
		return fmt.Errorf("%w: expected the snapshot, got %q", errProtocol, line)
	}
	var payload io.Reader
	var finish func() error
	if mark, ok := strings.CutPrefix(line, "$EOF:"); ok {
		if len(mark) != eofMarkLen {
			return fmt.Errorf("%w: bad EOF mark %q", errProtocol, line)
		}
		e := &eofReader{br: l.br, mark: []byte(mark)}
		payload, finish = e, e.finish
		r.syncTotal.Store(0) // unknown, as Redis reports it
	} else {
		size, err := strconv.ParseInt(line[1:], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("%w: bad snapshot length %q", errProtocol, line)
		}
		lr := &io.LimitedReader{R: l.br, N: size}
		payload = lr
		finish = func() error {
			_, err := io.Copy(io.Discard, lr)
			if err == nil && lr.N > 0 {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		r.syncTotal.Store(size)
	}
	r.syncRead.Store(0)
	defer func() { r.syncTotal.Store(0); r.syncRead.Store(0) }()
	cr := &countingReader{r: payload, n: &r.syncRead}
	if err := Load(r.o.Host, cr, at, r.o.MaxBulkLen, r.log); err != nil {
		return err
	}
	return finish()
}

// ackPeriod is how often the replica reports its offset (REPLCONF ACK), as Redis does.
const ackPeriod = time.Second

// stream applies the master's commands in order, counting their bytes, until the link breaks.
func (r *Replica) stream(l *link) error {
	stopAck := make(chan struct{})
	defer close(stopAck)
	go func() {
		t := time.NewTicker(ackPeriod)
		defer t.Stop()
		for {
			select {
			case <-stopAck:
				return
			case <-t.C:
				if l.ack() != nil {
					l.conn.Close()
					return
				}
			}
		}
	}()
	relay, _ := r.o.Host.(Relay)
	cr := &commandReader{br: l.br, maxBulk: r.o.MaxBulkLen}
	r.mu.Lock()
	id, db := r.id, r.db
	r.mu.Unlock()
	inMulti := false
	// The applied offset moves past a transaction only once it has run, so a link cut inside
	// one resumes before its MULTI; pending counts the bytes of an open one.
	var pending int64
	held := false
	defer func() {
		if held {
			relay.Release()
		}
	}()
	for {
		args, n, err := cr.next()
		if err != nil {
			return err
		}
		r.readOffset.Add(n)
		pending += n
		if relay != nil {
			if !held {
				relay.Hold()
				held = true
			}
			relay.Relay(args)
		}
		name := strings.ToLower(string(args[0]))
		switch name {
		case "multi":
			inMulti = true
		case "exec", "discard":
			inMulti = false
		case "select":
			if len(args) == 2 {
				if v, err := strconv.Atoi(string(args[1])); err == nil && v >= 0 {
					db = v
				}
			}
		}
		switch {
		case name == "ping":
		case name == "replconf":
			if len(args) >= 2 && strings.EqualFold(string(args[1]), "getack") {
				if err := l.ack(); err != nil {
					return err
				}
			}
		default:
			r.o.Host.Apply(args, Point{ID: id, Offset: r.offset.Load() + pending, DB: db})
		}
		if !inMulti {
			r.mu.Lock()
			r.db = db
			r.offset.Add(pending)
			r.mu.Unlock()
			pending = 0
			if held {
				relay.Release()
				held = false
			}
		}
		// What has been read is applied: its commits (each with the point it reaches) go to
		// LevelDB as one group.
		if l.br.Buffered() == 0 {
			if err := r.o.Host.Store().Flush(); err != nil {
				return err
			}
		}
	}
}
