package frontier

import "encoding/binary"

// seenSet is the Memory's set of fingerprints already pushed: an
// open-addressing hash table of 8-byte slots with linear probing, 11 to
// 21 bytes a URL (the table doubles at three quarters full), where a Go
// map of 16-byte Fingerprints costs about 38.
//
// A slot keeps 64 bits folded from the fingerprint's 128, so the set is not exact:
// two URLs whose fingerprints agree in those 64 bits are taken for one,
// and the second is dropped as a Duplicate. For a crawl of n URLs that
// happens with probability about n²/2⁶⁵: 2.7e-8 for a million URLs,
// 2.7e-4 for a hundred million (which would take the Memory about 8 GiB
// while queued). Durable and shared frontiers keep the whole 128-bit
// fingerprint and are exact.
//
// The zero value is an empty set. It is not safe for concurrent use (the
// Memory holds its lock).
type seenSet struct {
	slots []uint64 // 0 is empty; a key of 0 is kept as 1
	n     int
}

// seenMinSlots is the table's first size.
const seenMinSlots = 1 << 10

// seenKey returns the 64 bits of f a slot keeps (never 0): both halves,
// folded. The low half of FNV-1a 128 alone would be weak: it is an
// FNV-1a 64 with the 128-bit prime's small low part, which the high half
// is not.
func seenKey(f Fingerprint) uint64 {
	key := binary.BigEndian.Uint64(f[:8]) ^ mix(binary.BigEndian.Uint64(f[8:]))
	if key == 0 {
		key = 1
	}
	return key
}

// add adds f and reports whether it was new.
func (s *seenSet) add(f Fingerprint) bool {
	if 4*(s.n+1) > 3*len(s.slots) {
		s.grow()
	}
	key := seenKey(f)
	mask := uint64(len(s.slots) - 1)
	for i := mix(key) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = key
			s.n++
			return true
		case key:
			return false
		}
	}
}

// has reports whether f was added.
func (s *seenSet) has(f Fingerprint) bool {
	if s.n == 0 {
		return false
	}
	key := seenKey(f)
	mask := uint64(len(s.slots) - 1)
	for i := mix(key) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			return false
		case key:
			return true
		}
	}
}

// len returns the number of fingerprints in the set.
func (s *seenSet) len() int { return s.n }

// grow doubles the table (to seenMinSlots the first time).
func (s *seenSet) grow() {
	size := 2 * len(s.slots)
	if size < seenMinSlots {
		size = seenMinSlots
	}
	old := s.slots
	s.slots = make([]uint64, size)
	mask := uint64(size - 1)
	for _, key := range old {
		if key == 0 {
			continue
		}
		i := mix(key) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = key
	}
}

// mix is a 64-bit finaliser (from MurmurHash3) that spreads a key's bits
// over the slot index.
func mix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb53ae63e6ccd
	k ^= k >> 33
	return k
}
