package testutil

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Kind is the RESP type of a Reply.
type Kind int

const (
	KindSimple    Kind = iota // +OK
	KindError                 // -ERR ...  (also RESP3 blob error "!")
	KindInteger               // :1
	KindBulk                  // $3\r\nfoo
	KindNil                   // $-1 (null bulk string)
	KindNilArray              // *-1 (null array)
	KindNull                  // _ (RESP3 null)
	KindArray                 // *N
	KindMap                   // %N (RESP3)
	KindSet                   // ~N (RESP3)
	KindPush                  // >N (RESP3)
	KindDouble                // ,1.5 (RESP3)
	KindBool                  // #t / #f (RESP3)
	KindBigNumber             // (123 (RESP3)
	KindVerbatim              // =N\r\ntxt:... (RESP3)
)

var kindNames = map[Kind]string{
	KindSimple: "simple", KindError: "error", KindInteger: "integer", KindBulk: "bulk",
	KindNil: "nil", KindNilArray: "nil-array", KindNull: "null", KindArray: "array",
	KindMap: "map", KindSet: "set", KindPush: "push", KindDouble: "double",
	KindBool: "bool", KindBigNumber: "big-number", KindVerbatim: "verbatim",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Reply is one parsed RESP2/RESP3 reply.
type Reply struct {
	Kind Kind
	// Str holds the payload of simple strings, errors, bulk strings, verbatim
	// strings (without the format prefix), big numbers and the raw text of doubles.
	Str string
	// Int holds the value of integers.
	Int int64
	// Bool holds the value of RESP3 booleans.
	Bool bool
	// Format is the 3-letter format of a verbatim string ("txt", "mkd").
	Format string
	// Elems holds the elements of arrays, sets and pushes; for maps it holds
	// keys and values alternately (k1, v1, k2, v2, ...).
	Elems []Reply
	// Attrs holds a RESP3 attribute ("|") that preceded this reply, if any,
	// as alternating keys and values. It is not part of the rendering.
	Attrs []Reply
}

// IsError reports whether the reply is an error reply.
func (r Reply) IsError() bool { return r.Kind == KindError }

// IsNil reports whether the reply is any kind of null.
func (r Reply) IsNil() bool {
	return r.Kind == KindNil || r.Kind == KindNilArray || r.Kind == KindNull
}

// Text returns the string payload of string-like replies and the decimal form
// of integers.
func (r Reply) Text() string {
	if r.Kind == KindInteger {
		return strconv.FormatInt(r.Int, 10)
	}
	return r.Str
}

// String renders the reply the way redis-cli does, deterministically, with
// type tags. Nested aggregates are indented redis-cli style.
func (r Reply) String() string {
	var b strings.Builder
	r.render(&b, 0)
	return b.String()
}

func (r Reply) render(b *strings.Builder, indent int) {
	switch r.Kind {
	case KindSimple:
		b.WriteString(r.Str)
	case KindError:
		b.WriteString("(error) ")
		b.WriteString(r.Str)
	case KindInteger:
		b.WriteString("(integer) ")
		b.WriteString(strconv.FormatInt(r.Int, 10))
	case KindBulk:
		b.WriteString(strconv.Quote(r.Str))
	case KindNil:
		b.WriteString("(nil)")
	case KindNilArray:
		b.WriteString("(nil array)")
	case KindNull:
		b.WriteString("(null)")
	case KindDouble:
		b.WriteString("(double) ")
		b.WriteString(r.Str)
	case KindBool:
		if r.Bool {
			b.WriteString("(true)")
		} else {
			b.WriteString("(false)")
		}
	case KindBigNumber:
		b.WriteString("(big number) ")
		b.WriteString(r.Str)
	case KindVerbatim:
		b.WriteString("(verbatim ")
		b.WriteString(r.Format)
		b.WriteString(") ")
		b.WriteString(strconv.Quote(r.Str))
	case KindArray, KindSet, KindPush, KindMap:
		r.renderAggregate(b, indent)
	default:
		fmt.Fprintf(b, "(unknown %v)", r.Kind)
	}
}

func (r Reply) renderAggregate(b *strings.Builder, indent int) {
	var sep, empty, head string
	n := len(r.Elems)
	switch r.Kind {
	case KindArray:
		sep, empty = ") ", "(empty array)"
	case KindSet:
		sep, empty = "~ ", "(empty set)"
	case KindPush:
		sep, empty, head = ") ", "(empty push)", "(push) "
	case KindMap:
		sep, empty = "# ", "(empty hash)"
		n = len(r.Elems) / 2
	}
	if n == 0 {
		b.WriteString(empty)
		return
	}
	b.WriteString(head)
	indent += len(head)
	width := len(strconv.Itoa(n))
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", indent))
		}
		idx := strconv.Itoa(i + 1)
		prefix := strings.Repeat(" ", width-len(idx)) + idx + sep
		b.WriteString(prefix)
		inner := indent + len(prefix)
		if r.Kind == KindMap {
			k, v := r.Elems[2*i], r.Elems[2*i+1]
			k.render(b, inner)
			b.WriteString(" => ")
			v.render(b, inner+4) // approximate: values are usually scalars
		} else {
			r.Elems[i].render(b, inner)
		}
	}
}

// Sorted returns a copy of the reply whose elements (for arrays, sets and
// pushes) or key/value pairs (for maps) are sorted by their rendering. Other
// replies are returned unchanged.
func (r Reply) Sorted() Reply {
	switch r.Kind {
	case KindArray, KindSet, KindPush:
		elems := append([]Reply(nil), r.Elems...)
		sort.SliceStable(elems, func(i, j int) bool { return elems[i].String() < elems[j].String() })
		r.Elems = elems
	case KindMap:
		type pair struct {
			k, v Reply
			key  string
		}
		pairs := make([]pair, 0, len(r.Elems)/2)
		for i := 0; i+1 < len(r.Elems); i += 2 {
			pairs = append(pairs, pair{r.Elems[i], r.Elems[i+1], r.Elems[i].String() + "\x00" + r.Elems[i+1].String()})
		}
		sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].key < pairs[j].key })
		elems := make([]Reply, 0, len(r.Elems))
		for _, p := range pairs {
			elems = append(elems, p.k, p.v)
		}
		r.Elems = elems
	}
	return r
}

// MaxBulkLen bounds the size of a bulk string or aggregate the parser accepts,
// so that a misbehaving server cannot make a test allocate without limit.
const MaxBulkLen = 512 << 20

// ErrProtocol is wrapped by errors for malformed replies.
var ErrProtocol = errors.New("resp: protocol error")

// ReadReply parses one RESP2 or RESP3 reply from r. RESP3 attributes are
// attached to the reply that follows them.
func ReadReply(r *bufio.Reader) (Reply, error) {
	return readReply(r, 0)
}

func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		if err == io.EOF && line != "" {
			return "", io.ErrUnexpectedEOF
		}
		return "", err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return "", fmt.Errorf("%w: line not terminated by CRLF: %q", ErrProtocol, line)
	}
	return line[:len(line)-2], nil
}

func parseLen(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < -1 || n > MaxBulkLen {
		return 0, fmt.Errorf("%w: bad length %q", ErrProtocol, s)
	}
	return int(n), nil
}

func readBlob(r *bufio.Reader, n int) (string, error) {
	buf := make([]byte, n+2)
	if _, err := io.ReadFull(r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return "", err
	}
	if buf[n] != '\r' || buf[n+1] != '\n' {
		return "", fmt.Errorf("%w: blob not terminated by CRLF", ErrProtocol)
	}
	return string(buf[:n]), nil
}

func readReply(r *bufio.Reader, depth int) (Reply, error) {
	if depth > 64 {
		return Reply{}, fmt.Errorf("%w: nesting too deep", ErrProtocol)
	}
	line, err := readLine(r)
	if err != nil {
		return Reply{}, err
	}
	if line == "" {
		return Reply{}, fmt.Errorf("%w: empty line", ErrProtocol)
	}
	payload := line[1:]
	switch line[0] {
	case '+':
		return Reply{Kind: KindSimple, Str: payload}, nil
	case '-':
		return Reply{Kind: KindError, Str: payload}, nil
	case ':':
		n, err := strconv.ParseInt(payload, 10, 64)
		if err != nil {
			return Reply{}, fmt.Errorf("%w: bad integer %q", ErrProtocol, payload)
		}
		return Reply{Kind: KindInteger, Int: n}, nil
	case '$', '!', '=':
		n, err := parseLen(payload)
		if err != nil {
			return Reply{}, err
		}
		if n == -1 {
			if line[0] != '$' {
				return Reply{}, fmt.Errorf("%w: null %c", ErrProtocol, line[0])
			}
			return Reply{Kind: KindNil}, nil
		}
		s, err := readBlob(r, n)
		if err != nil {
			return Reply{}, err
		}
		switch line[0] {
		case '!':
			return Reply{Kind: KindError, Str: s}, nil
		case '=':
			if len(s) < 4 || s[3] != ':' {
				return Reply{}, fmt.Errorf("%w: bad verbatim string %q", ErrProtocol, s)
			}
			return Reply{Kind: KindVerbatim, Format: s[:3], Str: s[4:]}, nil
		}
		return Reply{Kind: KindBulk, Str: s}, nil
	case '_':
		return Reply{Kind: KindNull}, nil
	case ',':
		return Reply{Kind: KindDouble, Str: payload}, nil
	case '#':
		switch payload {
		case "t":
			return Reply{Kind: KindBool, Bool: true}, nil
		case "f":
			return Reply{Kind: KindBool, Bool: false}, nil
		}
		return Reply{}, fmt.Errorf("%w: bad boolean %q", ErrProtocol, payload)
	case '(':
		return Reply{Kind: KindBigNumber, Str: payload}, nil
	case '*', '~', '>', '%', '|':
		n, err := parseLen(payload)
		if err != nil {
			return Reply{}, err
		}
		if n == -1 {
			if line[0] != '*' {
				return Reply{}, fmt.Errorf("%w: null %c", ErrProtocol, line[0])
			}
			return Reply{Kind: KindNilArray}, nil
		}
		count := n
		if line[0] == '%' || line[0] == '|' {
			count = 2 * n
		}
		elems := make([]Reply, 0, min(count, 1024))
		for i := 0; i < count; i++ {
			e, err := readReply(r, depth+1)
			if err != nil {
				return Reply{}, err
			}
			elems = append(elems, e)
		}
		kind := map[byte]Kind{'*': KindArray, '~': KindSet, '>': KindPush, '%': KindMap}[line[0]]
		if line[0] == '|' {
			next, err := readReply(r, depth)
			if err != nil {
				return Reply{}, err
			}
			next.Attrs = elems
			return next, nil
		}
		return Reply{Kind: kind, Elems: elems}, nil
	}
	return Reply{}, fmt.Errorf("%w: unknown type byte %q in line %q", ErrProtocol, line[0], line)
}

// EncodeCommand encodes args as a RESP array of bulk strings.
func EncodeCommand(args ...string) []byte {
	var b bytes.Buffer
	b.WriteByte('*')
	b.WriteString(strconv.Itoa(len(args)))
	b.WriteString("\r\n")
	for _, a := range args {
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(len(a)))
		b.WriteString("\r\n")
		b.WriteString(a)
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

// DefaultTimeout bounds each read and write on a Conn.
const DefaultTimeout = 10 * time.Second

// Conn is a raw RESP client connection, used to observe the exact bytes a
// server sends.
type Conn struct {
	Addr string
	// Timeout bounds each Do, WriteRaw and ReadReply call; 0 means none.
	Timeout time.Duration
	nc      net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
}

// Dial connects to a RESP server at addr.
func Dial(addr string) (*Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &Conn{
		Addr:    addr,
		Timeout: DefaultTimeout,
		nc:      nc,
		r:       bufio.NewReader(nc),
		w:       bufio.NewWriter(nc),
	}, nil
}

// Connect dials addr and closes the connection when the test ends.
func Connect(t testing.TB, addr string) *Conn {
	t.Helper()
	c, err := Dial(addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func (c *Conn) deadline() time.Time {
	if c.Timeout <= 0 {
		return time.Time{}
	}
	return time.Now().Add(c.Timeout)
}

// NetConn returns the underlying network connection.
func (c *Conn) NetConn() net.Conn { return c.nc }

// Send writes a command without reading its reply (for pipelining).
func (c *Conn) Send(args ...string) error {
	c.nc.SetWriteDeadline(c.deadline())
	if _, err := c.w.Write(EncodeCommand(args...)); err != nil {
		return err
	}
	return c.w.Flush()
}

// Do sends a command as a RESP array of bulk strings and reads one reply.
// A server error reply is returned as a Reply of KindError, not as an error.
func (c *Conn) Do(args ...string) (Reply, error) {
	if err := c.Send(args...); err != nil {
		return Reply{}, err
	}
	return c.ReadReply()
}

// WriteRaw writes b to the connection as is.
func (c *Conn) WriteRaw(b []byte) error {
	c.nc.SetWriteDeadline(c.deadline())
	if _, err := c.w.Write(b); err != nil {
		return err
	}
	return c.w.Flush()
}

// ReadReply reads one reply.
func (c *Conn) ReadReply() (Reply, error) {
	c.nc.SetReadDeadline(c.deadline())
	return ReadReply(c.r)
}

// ExpectClosed reports whether the server closes the connection (EOF or
// reset) within d without sending anything more. Any bytes received are
// returned for diagnostics.
func (c *Conn) ExpectClosed(d time.Duration) (closed bool, extra []byte) {
	c.nc.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 512)
	for {
		n, err := c.r.Read(buf)
		extra = append(extra, buf[:n]...)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return false, extra
			}
			return true, extra
		}
	}
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }
