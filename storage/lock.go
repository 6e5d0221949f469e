package storage

import (
	"slices"
	"sync"
)

const lockStripes = 1024

// lockTable is a fixed set of striped reader/writer locks. A command locks the stripes of all
// its keys in ascending stripe order, so two commands never wait on each other in a cycle.
type lockTable struct {
	stripes [lockStripes]sync.RWMutex
}

// stripeOf returns the stripe of key k in physical keyspace phys (FNV-1a).
func stripeOf(phys uint32, k []byte) uint16 {
	h := uint32(2166136261) ^ phys
	for _, c := range k {
		h ^= uint32(c)
		h *= 16777619
	}
	return uint16(h % lockStripes)
}

// lock takes the stripes in order; ids is sorted and deduplicated in place.
func (lt *lockTable) lock(ids []uint16, write bool) []uint16 {
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, id := range ids {
		if write {
			lt.stripes[id].Lock()
		} else {
			lt.stripes[id].RLock()
		}
	}
	return ids
}

func (lt *lockTable) unlock(ids []uint16, write bool) {
	for i := len(ids) - 1; i >= 0; i-- {
		if write {
			lt.stripes[ids[i]].Unlock()
		} else {
			lt.stripes[ids[i]].RUnlock()
		}
	}
}
