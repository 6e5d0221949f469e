package rdb

import (
	"encoding/binary"
	"io"
)

// Streams (object types 15, 19 and 21).
//
// A stream value is its listpack nodes, each a 16-byte big-endian master ID and a listpack
// (a master entry with the node's live and deleted counts and its master fields, then one
// entry a stream entry: flags, ID deltas from the master ID, the fields unless they are the
// master's, the values, and a back-count), then the stream's metadata and its consumer groups
// with their pending entries and consumers. NextStreamEntry returns the live entries one at a
// time, holding one node; StreamTail then reads the metadata and groups, which are held
// whole (a group's pending list is as large as the payload that carries it).

// StreamID is a stream entry ID.
type StreamID struct{ Ms, Seq uint64 }

// StreamEntry is one live entry of a stream: its ID, then its fields and values in turn.
type StreamEntry struct {
	ID     StreamID
	Fields [][]byte
}

// StreamNACK is a pending entry of a consumer group.
type StreamNACK struct {
	ID            StreamID
	DeliveryTime  int64
	DeliveryCount uint64
}

// StreamConsumer is a consumer of a group and the IDs of its pending entries.
type StreamConsumer struct {
	Name       []byte
	SeenTime   int64
	ActiveTime int64 // type 21 only; -1 otherwise
	Pending    []StreamID
}

// StreamGroup is a consumer group.
type StreamGroup struct {
	Name        []byte
	LastID      StreamID
	EntriesRead int64 // -1 when unknown (type 15 has none)
	PEL         []StreamNACK
	Consumers   []StreamConsumer
}

// StreamTail is what follows a stream's entries.
type StreamTail struct {
	Length       uint64
	LastID       StreamID
	FirstID      StreamID // types 19 and 21 only
	MaxDeletedID StreamID // types 19 and 21 only
	EntriesAdded uint64   // types 19 and 21 only
	HasCounters  bool     // the three fields above were stored (types 19 and 21)
	Groups       []StreamGroup
}

// streamState is a stream value's position: the nodes still to read and the node being read.
type streamState struct {
	nodes  uint64
	node   *blob
	master StreamID
	fields [][]byte // the node's master fields
	left   int64    // entries of the node still to read, live or deleted
	tail   bool     // the entries are done
}

func newStreamValue(t byte, in *input) (*Value, error) {
	n, err := in.readLength()
	if err != nil {
		return nil, err
	}
	return &Value{Kind: KindStream, Type: t, in: in, count: -1, stream: &streamState{nodes: n}}, nil
}

// lpInt reads the next listpack entry of z as an integer.
func lpInt(z *blob) (int64, error) {
	e, ok, err := z.next()
	switch {
	case err != nil:
		return 0, err
	case !ok || !e.isInt:
		return 0, corrupt("stream listpack: integer expected")
	}
	return e.i, nil
}

func lpBytes(z *blob) ([]byte, error) {
	e, ok, err := z.next()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, corrupt("stream listpack ends inside an entry")
	}
	return e.bytes(), nil
}

// loadNode reads the next node's master ID and listpack and its master entry.
func (st *streamState) loadNode(in *input) error {
	key, err := in.readString()
	if err != nil {
		return err
	}
	if len(key) != 16 {
		return corrupt("stream node key of %d bytes", len(key))
	}
	st.master = StreamID{binary.BigEndian.Uint64(key), binary.BigEndian.Uint64(key[8:])}
	lp, err := in.readString()
	if err != nil {
		return err
	}
	z, err := newBlob(TypeHashListpack, lp)
	if err != nil {
		return err
	}
	for { // the whole listpack is checked before its entries are delivered
		_, ok, err := z.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
	}
	z.rewind()
	live, err := lpInt(z)
	if err != nil {
		return err
	}
	deleted, err := lpInt(z)
	if err != nil {
		return err
	}
	nf, err := lpInt(z)
	if err != nil {
		return err
	}
	if live < 0 || deleted < 0 || nf < 0 || nf > int64(len(lp)) || live+deleted > int64(len(lp)) {
		return corrupt("stream listpack master entry out of range")
	}
	st.fields = st.fields[:0]
	for i := int64(0); i < nf; i++ {
		f, err := lpBytes(z)
		if err != nil {
			return err
		}
		st.fields = append(st.fields, f)
	}
	if zero, err := lpInt(z); err != nil || zero != 0 {
		return corrupt("stream listpack master entry not terminated")
	}
	st.node, st.left = z, live+deleted
	return nil
}

// NextStreamEntry returns the next live entry of a stream value, io.EOF after the last one.
func (v *Value) NextStreamEntry() (StreamEntry, error) {
	st := v.stream
	if st == nil {
		return StreamEntry{}, corrupt("NextStreamEntry on a %s value", v.Kind)
	}
	for {
		if st.tail {
			return StreamEntry{}, io.EOF
		}
		if st.node == nil || st.left == 0 {
			if st.node != nil {
				if _, ok, err := st.node.next(); err != nil || ok {
					return StreamEntry{}, corrupt("stream listpack holds more entries than its counts")
				}
				st.node = nil
			}
			if st.nodes == 0 {
				st.tail = true
				return StreamEntry{}, io.EOF
			}
			st.nodes--
			if err := st.loadNode(v.in); err != nil {
				return StreamEntry{}, err
			}
			continue
		}
		st.left--
		e, deleted, err := st.entry()
		if err != nil {
			return StreamEntry{}, err
		}
		if !deleted {
			v.produced++
			return e, nil
		}
	}
}

// Stream entry flags.
const (
	streamFlagDeleted    = 1
	streamFlagSameFields = 2
)

// entry reads one entry of the current node.
func (st *streamState) entry() (StreamEntry, bool, error) {
	z := st.node
	flags, err := lpInt(z)
	if err != nil {
		return StreamEntry{}, false, err
	}
	msd, err := lpInt(z)
	if err != nil {
		return StreamEntry{}, false, err
	}
	seqd, err := lpInt(z)
	if err != nil {
		return StreamEntry{}, false, err
	}
	e := StreamEntry{ID: StreamID{st.master.Ms + uint64(msd), st.master.Seq + uint64(seqd)}}
	if flags&streamFlagSameFields != 0 {
		for _, f := range st.fields {
			val, err := lpBytes(z)
			if err != nil {
				return e, false, err
			}
			e.Fields = append(e.Fields, f, val)
		}
	} else {
		nf, err := lpInt(z)
		if err != nil {
			return e, false, err
		}
		if nf < 0 || nf > int64(len(z.b)) {
			return e, false, corrupt("stream entry with %d fields", nf)
		}
		for i := int64(0); i < 2*nf; i++ {
			b, err := lpBytes(z)
			if err != nil {
				return e, false, err
			}
			e.Fields = append(e.Fields, b)
		}
	}
	if _, err := lpInt(z); err != nil { // lp-count
		return e, false, err
	}
	if len(e.Fields) == 0 {
		return e, false, corrupt("stream entry without fields")
	}
	return e, flags&streamFlagDeleted != 0, nil
}

func readStreamID(in *input) (StreamID, error) {
	ms, err := in.readLength()
	if err != nil {
		return StreamID{}, err
	}
	seq, err := in.readLength()
	return StreamID{ms, seq}, err
}

func readRawStreamID(in *input) (StreamID, error) {
	b, err := in.readBytes(16)
	if err != nil {
		return StreamID{}, err
	}
	return StreamID{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}, nil
}

// StreamTail reads the metadata and consumer groups of a stream value whose entries have all
// been read (NextStreamEntry returned io.EOF).
func (v *Value) StreamTail() (*StreamTail, error) {
	for {
		if _, err := v.NextStreamEntry(); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
	}
	in, t := v.in, v.Type
	var tl StreamTail
	var err error
	if tl.Length, err = in.readLength(); err != nil {
		return nil, err
	}
	if tl.LastID, err = readStreamID(in); err != nil {
		return nil, err
	}
	if t >= TypeStreamListpacks2 {
		tl.HasCounters = true
		if tl.FirstID, err = readStreamID(in); err != nil {
			return nil, err
		}
		if tl.MaxDeletedID, err = readStreamID(in); err != nil {
			return nil, err
		}
		if tl.EntriesAdded, err = in.readLength(); err != nil {
			return nil, err
		}
	}
	groups, err := in.readLength()
	if err != nil {
		return nil, err
	}
	for ; groups > 0; groups-- {
		g, err := readStreamGroup(in, t)
		if err != nil {
			return nil, err
		}
		tl.Groups = append(tl.Groups, g)
	}
	v.done, v.skip = true, nil
	v.err = io.EOF
	return &tl, nil
}

func readStreamGroup(in *input, t byte) (StreamGroup, error) {
	g := StreamGroup{EntriesRead: -1}
	var err error
	if g.Name, err = in.readString(); err != nil {
		return g, err
	}
	if g.LastID, err = readStreamID(in); err != nil {
		return g, err
	}
	if t >= TypeStreamListpacks2 {
		n, err := in.readLength()
		if err != nil {
			return g, err
		}
		g.EntriesRead = int64(n)
	}
	pel, err := in.readLength()
	if err != nil {
		return g, err
	}
	for ; pel > 0; pel-- {
		var nack StreamNACK
		if nack.ID, err = readRawStreamID(in); err != nil {
			return g, err
		}
		if nack.DeliveryTime, err = in.readMillis(); err != nil {
			return g, err
		}
		if nack.DeliveryCount, err = in.readLength(); err != nil {
			return g, err
		}
		g.PEL = append(g.PEL, nack)
	}
	consumers, err := in.readLength()
	if err != nil {
		return g, err
	}
	for ; consumers > 0; consumers-- {
		c := StreamConsumer{ActiveTime: -1}
		if c.Name, err = in.readString(); err != nil {
			return g, err
		}
		if c.SeenTime, err = in.readMillis(); err != nil {
			return g, err
		}
		if t >= TypeStreamListpacks3 {
			if c.ActiveTime, err = in.readMillis(); err != nil {
				return g, err
			}
		}
		n, err := in.readLength()
		if err != nil {
			return g, err
		}
		for ; n > 0; n-- {
			id, err := readRawStreamID(in)
			if err != nil {
				return g, err
			}
			c.Pending = append(c.Pending, id)
		}
		g.Consumers = append(g.Consumers, c)
	}
	return g, nil
}
