package replication

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The master's side of the link, as the replica reads it: single-line replies during the
// handshake, the RDB payload of a full synchronisation in either of its two framings, and the
// command stream, each command counted in bytes.

// maxStreamArgs bounds the arguments of one command of the master's stream.
const maxStreamArgs = 1 << 20

var errProtocol = errors.New("replication: protocol error in the master's stream")

// readLine reads one line without its "\r\n" or "\n", at most 64 KiB.
func readLine(br *bufio.Reader) (string, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return "", fmt.Errorf("%w: line too long", errProtocol)
		}
		return "", err
	}
	return string(bytes.TrimRight(line, "\r\n")), nil
}

// readReplyLine reads a handshake reply, skipping the empty lines a master sends to keep the
// link alive while it prepares a snapshot.
func readReplyLine(br *bufio.Reader) (string, error) {
	for {
		line, err := readLine(br)
		if err != nil || line != "" {
			return line, err
		}
	}
}

// commandReader parses the command stream (RESP arrays of bulk strings) and counts the bytes
// of each command it returns.
type commandReader struct {
	br      *bufio.Reader
	maxBulk int64
	args    [][]byte
}

// next returns the next command and its length in bytes of the stream. The arguments are
// valid until the next call.
func (cr *commandReader) next() ([][]byte, int64, error) {
	var n int64
	var head []byte
	for {
		line, err := cr.br.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return nil, 0, fmt.Errorf("%w: line too long", errProtocol)
			}
			return nil, 0, err
		}
		n += int64(len(line))
		head = bytes.TrimRight(line, "\r\n")
		if len(head) > 0 {
			break
		}
	}
	if head[0] != '*' {
		return nil, 0, fmt.Errorf("%w: expected an array, got %q", errProtocol, head)
	}
	argc, err := strconv.ParseInt(string(head[1:]), 10, 64)
	if err != nil || argc < 1 || argc > maxStreamArgs {
		return nil, 0, fmt.Errorf("%w: bad array length %q", errProtocol, head)
	}
	cr.args = cr.args[:0]
	for i := int64(0); i < argc; i++ {
		line, err := cr.br.ReadSlice('\n')
		if err != nil {
			return nil, 0, err
		}
		n += int64(len(line))
		h := bytes.TrimRight(line, "\r\n")
		if len(h) < 2 || h[0] != '$' {
			return nil, 0, fmt.Errorf("%w: expected a bulk string, got %q", errProtocol, h)
		}
		size, err := strconv.ParseInt(string(h[1:]), 10, 64)
		if err != nil || size < 0 || size > cr.maxBulk {
			return nil, 0, fmt.Errorf("%w: bad bulk length %q", errProtocol, h)
		}
		arg := make([]byte, size+2)
		if _, err := io.ReadFull(cr.br, arg); err != nil {
			return nil, 0, err
		}
		if arg[size] != '\r' || arg[size+1] != '\n' {
			return nil, 0, fmt.Errorf("%w: bulk string not terminated", errProtocol)
		}
		n += size + 2
		cr.args = append(cr.args, arg[:size])
	}
	return cr.args, n, nil
}

// eofMarkLen is the length of the random mark that ends a diskless payload ("$EOF:<mark>").
const eofMarkLen = 40

// eofReader reads a diskless payload: the bytes up to the mark the master announced. It never
// reads past the mark, so the command stream that follows stays in br; it holds back the last
// eofMarkLen-1 bytes it has seen until it knows they are not the start of the mark. A payload
// that happens to contain the mark ends there, as it would on redis-server.
type eofReader struct {
	br   *bufio.Reader
	mark []byte
	done bool
}

func (e *eofReader) Read(p []byte) (int, error) {
	if e.done {
		return 0, io.EOF
	}
	want := len(e.mark)
	for {
		if _, err := e.br.Peek(want); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		window, _ := e.br.Peek(e.br.Buffered())
		if i := bytes.Index(window, e.mark); i >= 0 {
			if i == 0 {
				e.br.Discard(len(e.mark))
				e.done = true
				return 0, io.EOF
			}
			return e.br.Read(p[:min(len(p), i)])
		}
		if safe := len(window) - (len(e.mark) - 1); safe > 0 {
			return e.br.Read(p[:min(len(p), safe)])
		}
		want = len(window) + 1
	}
}

// finish reads what is left of the payload, after the RDB reader has seen its end.
func (e *eofReader) finish() error {
	_, err := io.Copy(io.Discard, e)
	return err
}
