package strategies

// The Stream-Summary of Metwally, Agrawal & El Abbadi ("Efficient
// computation of frequent and top-k elements in data streams", ICDT 2005),
// which Space-Saving (spacesaving.go) and Misra-Gries (misragries.go) keep
// their counters in: the counters of equal count in one bucket, a ring
// whose first is the counter that reached the count first, and the buckets
// in a doubly linked list by increasing count, so the smallest count is
// the head's and adding to a counter moves it at most a few buckets on.
// Indexes are int32: counters and buckets are at most 2^24 (the designs'
// largest size), each bucket holding at least one counter.

// streamSummary is the counters and their buckets. The zero value is not
// usable: head and free start at -1.
type streamSummary struct {
	counters []ssCounter
	buckets  []ssBucket // live buckets form a list by count; the rest are free
	head     int32      // the bucket of the smallest count, or -1
	free     int32      // first free bucket (linked through next), or -1
}

// ssCounter is one counter's key; prev and next link the ring of its
// bucket (Misra-Gries links its free counters through next). err is
// Space-Saving's overestimate bound; Misra-Gries leaves it 0.
type ssCounter struct {
	key        uint64
	err        uint64
	hash       uint32 // the index's hash of key, its low 32 bits (the index has ≤ 2^25 slots)
	bucket     int32
	prev, next int32
}

// ssBucket holds the counters of one count; prev and next link the buckets
// in increasing count order (-1 at the ends).
type ssBucket struct {
	count      uint64
	first      int32 // the counter that reached this count first
	prev, next int32
}

// raise adds delta to counter c's count, moving it to the bucket of its new
// count.
func (s *streamSummary) raise(c int32, delta uint64) {
	b := s.counters[c].bucket
	v := s.buckets[b].count + delta
	after, at := b, s.buckets[b].next
	if s.counters[c].next == c && (at < 0 || s.buckets[at].count > v) {
		s.buckets[b].count = v // alone in its bucket, and no bucket in the way
		return
	}
	if s.unlink(c) {
		after = s.buckets[b].prev
		s.freeBucket(b)
	}
	s.link(c, v, after, at)
}

// unlink takes counter c out of its bucket's ring and reports whether the
// bucket is now empty (the caller frees it once done with its links).
func (s *streamSummary) unlink(c int32) (empty bool) {
	ct := &s.counters[c]
	b := &s.buckets[ct.bucket]
	if ct.next == c {
		b.first = -1
		return true
	}
	s.counters[ct.prev].next = ct.next
	s.counters[ct.next].prev = ct.prev
	if b.first == c {
		b.first = ct.next
	}
	return false
}

// freeBucket takes empty bucket b out of the list and onto the free list.
func (s *streamSummary) freeBucket(b int32) {
	bk := &s.buckets[b]
	if bk.prev >= 0 {
		s.buckets[bk.prev].next = bk.next
	} else {
		s.head = bk.next
	}
	if bk.next >= 0 {
		s.buckets[bk.next].prev = bk.prev
	}
	bk.next = s.free
	s.free = b
}

// link puts counter c (in no bucket) with count v into the list: into the
// bucket of count v, or a new one, searching forward from bucket at, where
// after is the bucket before at (-1 for none) and every bucket up to after
// has a count below v.
func (s *streamSummary) link(c int32, v uint64, after, at int32) {
	for at >= 0 && s.buckets[at].count < v {
		after, at = at, s.buckets[at].next
	}
	if at < 0 || s.buckets[at].count != v {
		nb := s.free
		if nb >= 0 {
			s.free = s.buckets[nb].next
		} else {
			nb = int32(len(s.buckets))
			s.buckets = append(s.buckets, ssBucket{}) // within capacity: buckets ≤ counters ≤ m
		}
		s.buckets[nb] = ssBucket{count: v, first: -1, prev: after, next: at}
		if after >= 0 {
			s.buckets[after].next = nb
		} else {
			s.head = nb
		}
		if at >= 0 {
			s.buckets[at].prev = nb
		}
		at = nb
	}
	// Append c at the end of the ring: the bucket's first stays the oldest.
	bk := &s.buckets[at]
	ct := &s.counters[c]
	ct.bucket = at
	if bk.first < 0 {
		bk.first, ct.prev, ct.next = c, c, c
		return
	}
	first := &s.counters[bk.first]
	ct.prev, ct.next = first.prev, bk.first
	s.counters[first.prev].next = c
	first.prev = c
}
