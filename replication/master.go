package replication

import (
	"bufio"
	"crypto/rand"
	"io"
	"strconv"
	"time"

	"github.com/strata-db/strata/commands"
	"github.com/strata-db/strata/rdb"
	"github.com/strata-db/strata/storage"
)

// The master's side of the link: the stream's encoding, the snapshot a full synchronisation
// sends, its two framings, and the requests a replica sends back (REPLCONF ACK).

// AppendCommand appends argv to dst as a RESP array of bulk strings, the form every command
// of the replication stream takes.
func AppendCommand(dst []byte, argv [][]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(argv)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range argv {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

// WriteSnapshot writes sn to w as an RDB file: aux fields (with the replication ID and offset
// the snapshot stands for), the function libraries, then each database with its keys in key
// order, expired keys left out; strings LZF-compressed when compress is set (rdbcompression),
// but for value-log strings above rdb.StreamedStringMin, which are copied raw from their file a
// piece at a time. One value at a time is held in memory, and of a value-log string a piece.
func WriteSnapshot(w io.Writer, sn *storage.Snapshot, at IDs, streamDB int, compress bool) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	rw, err := writeSnapshot(bw, sn, at, streamDB, compress)
	if err == nil {
		err = rw.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	return err
}

func writeSnapshot(bw io.Writer, sn *storage.Snapshot, at IDs, streamDB int, compress bool) (*rdb.Writer, error) {
	rw, err := rdb.NewWriter(bw)
	if err != nil {
		return nil, err
	}
	rw.SetCompression(compress)
	now := time.Now()
	for _, kv := range [][2]string{{"redis-ver", commands.RedisVersion}, {"redis-bits", "64"},
		{"ctime", strconv.FormatInt(now.Unix(), 10)}, {"used-mem", "0"},
		{"repl-stream-db", strconv.Itoa(streamDB)}, {"repl-id", at.ID}, {"repl-offset", strconv.FormatInt(at.Offset, 10)},
		{"aof-base", "0"}} {
		if err := rw.Aux(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	return rw, commands.WriteKeyspace(rw, sn, now.UnixMilli(), nil)
}

// NewEOFMark returns a random mark for a diskless payload: the master sends "$EOF:<mark>\r\n",
// the RDB, then the mark.
func NewEOFMark() string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	var b [eofMarkLen]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

// RequestReader parses what a replica sends its master (REPLCONF ACK, PING), command by
// command.
type RequestReader struct{ cr commandReader }

// NewRequestReader reads requests from r; maxBulk bounds one argument.
func NewRequestReader(r io.Reader, maxBulk int64) *RequestReader {
	return &RequestReader{cr: commandReader{br: bufio.NewReaderSize(r, 4096), maxBulk: maxBulk}}
}

// Next returns the next request; its arguments are valid until the next call.
func (rr *RequestReader) Next() ([][]byte, error) {
	args, _, err := rr.cr.next()
	return args, err
}
