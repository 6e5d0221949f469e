package rdb

import (
	"io"
	"math"
)

// Element is one element of a value. Which fields are set depends on the
// value's kind: a list element or set member is Member; a sorted set
// member is Member and Score; a hash field is Member (the field name) and
// Value, with ExpireAt when it carries a field TTL. A string value is one
// Element whose Member is the string.
type Element struct {
	Member []byte
	Value  []byte
	Score  float64
	// ExpireAt is a hash field's expiry in Unix milliseconds, 0 for none.
	ExpireAt int64
}

// Value is one key's value, read element by element: memory is bounded by
// the largest element (or the largest packed blob, such as one listpack
// node), never by the whole key. A Value read from a file is valid until
// the Reader's next call to Next; the slices an Element holds may be
// retained by the caller.
type Value struct {
	// Kind is the data type.
	Kind Kind
	// Type is the object type byte: the encoding the value was stored in.
	Type byte

	in        *input
	outer     uint64 // table elements or quicklist nodes still to read
	arity     int    // entries per element in a packed blob
	blob      *blob  // the packed blob being read, nil between blobs
	minExpire int64
	count     int64 // declared element count, -1 if unknown
	produced  uint64
	done      bool
	err       error
	skip      func() error // reads past a value the codec does not decode
	stream    *streamState // a stream's position (stream.go)
}

// kindOf maps an object type to its kind and, for packed blobs, the
// number of blob entries that make one element.
func kindOf(t byte) (Kind, int, error) {
	switch t {
	case TypeString:
		return KindString, 0, nil
	case TypeList, TypeListZiplist, TypeListQuicklist, TypeListQuicklist2:
		return KindList, 1, nil
	case TypeSet, TypeSetIntset, TypeSetListpack:
		return KindSet, 1, nil
	case TypeZSet, TypeZSet2, TypeZSetZiplist, TypeZSetListpack:
		return KindZSet, 2, nil
	case TypeHash, TypeHashZipmap, TypeHashZiplist, TypeHashListpack, TypeHashMetadata, TypeHashMetadataPreGA:
		return KindHash, 2, nil
	case TypeHashListpackEx, TypeHashListpackExPreGA:
		return KindHash, 3, nil
	}
	return 0, 0, corrupt("unknown object type %d", t)
}

// newValue reads the head of a value of type t (its length, or its whole
// blob for single-blob encodings) from in.
func newValue(t byte, in *input) (*Value, error) {
	switch t {
	case TypeModule2, TypeModulePreGA:
		id, err := in.readLength()
		if err != nil {
			return nil, err
		}
		err = unsupported("values of module type %s are not supported", moduleName(id))
		if t == TypeModulePreGA { // not self-describing: nothing after it can be read
			return nil, err
		}
		return &Value{Kind: KindModule, Type: t, count: -1, err: err, skip: func() error { return skipModuleOps(in) }}, nil
	case TypeStreamListpacks, TypeStreamListpacks2, TypeStreamListpacks3:
		return newStreamValue(t, in) // stream.go
	}
	k, arity, err := kindOf(t)
	if err != nil {
		return nil, err
	}
	v := &Value{Kind: k, Type: t, in: in, arity: arity}
	switch t {
	case TypeString:
		v.outer = 1
	case TypeHashMetadata:
		if v.minExpire, err = in.readMillis(); err != nil {
			return nil, err
		}
		if v.minExpire < 0 || v.minExpire > 1<<48 { // 1<<48 means "none"
			return nil, corrupt("hash minimum expiry %d out of range", v.minExpire)
		}
		fallthrough
	case TypeList, TypeSet, TypeZSet, TypeZSet2, TypeHash, TypeHashMetadataPreGA, TypeListQuicklist, TypeListQuicklist2:
		if v.outer, err = in.readLength(); err != nil {
			return nil, err
		}
	case TypeHashListpackEx:
		if v.minExpire, err = in.readMillis(); err != nil {
			return nil, err
		}
		fallthrough
	default:
		n, err := v.loadBlob(t)
		if err != nil {
			return nil, err
		}
		v.count = int64(n)
		return v, nil
	}
	v.count = -1
	if t != TypeListQuicklist && t != TypeListQuicklist2 && v.outer <= math.MaxInt64 {
		v.count = int64(v.outer)
	}
	return v, nil
}

// loadBlob reads one packed blob of encoding t and validates it whole
// (structure, a whole number of elements, no duplicate members) before
// any element is delivered. It returns the blob's element count.
func (v *Value) loadBlob(t byte) (int, error) {
	b, err := v.in.readString()
	if err != nil {
		return 0, err
	}
	z, err := newBlob(t, b)
	if err != nil {
		return 0, err
	}
	var seen map[string]struct{}
	if v.Kind != KindList && t != TypeSetIntset {
		seen = map[string]struct{}{}
	}
	n := 0
	for ; ; n++ {
		e, ok, err := z.next()
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		if seen != nil && n%v.arity == 0 {
			k := e.key()
			if _, dup := seen[k]; dup {
				return 0, corrupt("duplicate member %q", k)
			}
			seen[k] = struct{}{}
		}
	}
	if n%v.arity != 0 {
		return 0, corrupt("packed value holds %d entries, not a multiple of %d", n, v.arity)
	}
	z.rewind()
	v.blob = z
	return n / v.arity, nil
}

// Len returns the element count the value declares, or -1 where only
// reading tells (quicklists). A declared count is a claim, not a promise:
// the data may end sooner, and Next then fails.
func (v *Value) Len() int64 { return v.count }

// Bytes returns a string value.
func (v *Value) Bytes() ([]byte, error) {
	if v.Kind != KindString {
		return nil, corrupt("Bytes on a %s value", v.Kind)
	}
	e, err := v.Next()
	if err != nil {
		return nil, err
	}
	return e.Member, v.drain()
}

// Next returns the next element, io.EOF after the last one, or ErrEmptyKey
// if the value held none. Any other error is final.
func (v *Value) Next() (Element, error) {
	if v.stream != nil && v.err == nil {
		return Element{}, unsupported("stream values are read with NextStreamEntry and StreamTail")
	}
	if v.err != nil {
		return Element{}, v.err
	}
	e, err := v.next()
	if err == nil {
		v.produced++
		return e, nil
	}
	if err == io.EOF {
		v.done = true
		if v.produced == 0 {
			err = ErrEmptyKey
		}
	}
	v.err = err
	return Element{}, err
}

// drain reads what is left of the value, for a caller that stops early.
func (v *Value) drain() error {
	if v.stream != nil {
		if v.done {
			return nil
		}
		_, err := v.StreamTail()
		return err
	}
	if v.skip != nil {
		skip := v.skip
		v.skip = nil
		return skip()
	}
	for {
		if _, err := v.Next(); err != nil {
			if err == io.EOF || err == ErrEmptyKey && v.done {
				return nil
			}
			return err
		}
	}
}

func (v *Value) next() (Element, error) {
	for {
		if v.blob != nil {
			e, ok, err := v.blobElement()
			if ok || err != nil {
				return e, err
			}
			v.blob = nil
		}
		if v.outer == 0 {
			return Element{}, io.EOF
		}
		v.outer--
		switch v.Type {
		case TypeListQuicklist:
			if _, err := v.loadBlob(TypeListQuicklist); err != nil {
				return Element{}, err
			}
		case TypeListQuicklist2:
			c, err := v.in.readLength()
			if err != nil {
				return Element{}, err
			}
			switch c {
			case containerPlain:
				b, err := v.in.readString()
				return Element{Member: b}, err
			case containerPacked:
				if _, err := v.loadBlob(TypeListQuicklist2); err != nil {
					return Element{}, err
				}
			default:
				return Element{}, corrupt("unknown quicklist container %d", c)
			}
		default:
			return v.readTableElement()
		}
	}
}

// blobElement reads the next element of the current blob; ok is false at
// its end.
func (v *Value) blobElement() (e Element, ok bool, err error) {
	var es [3]entry
	for i := 0; i < v.arity; i++ {
		if es[i], ok, err = v.blob.next(); !ok || err != nil {
			return e, false, err
		}
	}
	e.Member = es[0].bytes()
	switch {
	case v.Kind == KindZSet:
		s, err := es[1].score()
		if err != nil {
			return e, false, err
		}
		if math.IsNaN(s) {
			return e, false, corrupt("sorted set score is NaN")
		}
		e.Score = s
	case v.Kind == KindHash:
		e.Value = es[1].bytes()
		if v.arity == 3 {
			if !es[2].isInt || es[2].i < 0 {
				return e, false, corrupt("hash field TTL is not a time")
			}
			e.ExpireAt = es[2].i
		}
	}
	return e, true, nil
}

// readTableElement reads one element of a non-packed encoding.
func (v *Value) readTableElement() (Element, error) {
	var e Element
	var err error
	in := v.in
	if v.Type == TypeHashMetadata || v.Type == TypeHashMetadataPreGA {
		ttl, err := in.readLength()
		if err != nil {
			return e, err
		}
		if ttl != 0 && v.Type == TypeHashMetadata {
			ttl += uint64(v.minExpire) - 1
		}
		if ttl > 1<<48-1 {
			return e, corrupt("hash field TTL out of range")
		}
		e.ExpireAt = int64(ttl)
	}
	if e.Member, err = in.readString(); err != nil {
		return e, err
	}
	switch v.Type {
	case TypeZSet:
		e.Score, err = in.readStringDouble()
	case TypeZSet2:
		e.Score, err = in.readBinaryDouble()
	case TypeHash, TypeHashMetadata, TypeHashMetadataPreGA:
		e.Value, err = in.readString()
	}
	if err == nil && math.IsNaN(e.Score) {
		err = corrupt("sorted set score is NaN")
	}
	return e, err
}
