package storage

import "strconv"

// GetString returns the value of a string key, whether it exists, and ErrWrongType for
// another type. A value-log value is read from its file. The value must not be modified.
func (t *Txn) GetString(key []byte) ([]byte, bool, error) {
	m, err := t.GetMetaOf(key, TypeString)
	if err != nil || m == nil {
		return nil, false, err
	}
	v, err := t.StringValue(m)
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// SetString stores a string value with expiry (unix ms, 0 for none), replacing any value of
// any type. A value of at least Options.LargeValueThreshold bytes goes to the value log.
func (t *Txn) SetString(key, value []byte, expire int64) error {
	return t.PutMeta(key, &Meta{Type: TypeString, Expire: expire, Value: value})
}

// SetInt is SetString of n's decimal form, as INCR leaves a counter.
func (t *Txn) SetInt(key []byte, n, expire int64) error {
	return t.SetString(key, strconv.AppendInt(t.nbuf[:0], n, 10), expire)
}

// KeepExpire returns the expiry of key if it is live, else 0.
func (t *Txn) KeepExpire(key []byte) (int64, error) {
	m, err := t.GetMeta(key)
	if err != nil || m == nil {
		return 0, err
	}
	return m.Expire, nil
}
