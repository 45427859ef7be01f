package ds

// The Stream-Summary of Metwally, Agrawal & El Abbadi ("Efficient
// computation of frequent and top-k elements in data streams", ICDT 2005),
// which Space-Saving (spacesaving.go) and Misra-Gries (misragries.go) keep
// their counters in: the counters of equal count in one bucket, a ring
// whose first is the counter that reached the count first, and the buckets
// in a doubly linked list by increasing count, so the smallest count is
// the head's and adding to a counter moves it at most a few buckets on.
// Indexes are int32: counters and buckets are at most 2^24 (the designs'
// largest size), each bucket holding at least one counter.

// StreamSummary is the counters and their buckets. The zero value is not
// usable: head and free start at -1.
type StreamSummary struct {
	Counters []SSCounter
	Buckets  []SSBucket // live buckets form a list by count; the rest are free
	Head     int32      // the bucket of the smallest count, or -1
	Free     int32      // first free bucket (linked through next), or -1
}

// SSCounter is one counter's key; prev and next link the ring of its
// bucket (Misra-Gries links its free counters through next). err is
// Space-Saving's overestimate bound; Misra-Gries leaves it 0.
type SSCounter struct {
	Key        uint64
	Err        uint64
	Hash       uint32 // the index's hash of key, its low 32 bits (the index has ≤ 2^25 slots)
	Bucket     int32
	Prev, Next int32
}

// SSBucket holds the counters of one count; prev and next link the buckets
// in increasing count order (-1 at the ends).
type SSBucket struct {
	Count      uint64
	First      int32 // the counter that reached this count first
	Prev, Next int32
}

// Raise adds delta to counter c's count, moving it to the bucket of its new
// count.
func (s *StreamSummary) Raise(c int32, delta uint64) {
	b := s.Counters[c].Bucket
	v := s.Buckets[b].Count + delta
	after, at := b, s.Buckets[b].Next
	if s.Counters[c].Next == c && (at < 0 || s.Buckets[at].Count > v) {
		s.Buckets[b].Count = v // alone in its bucket, and no bucket in the way
		return
	}
	if s.unlink(c) {
		after = s.Buckets[b].Prev
		s.FreeBucket(b)
	}
	s.Link(c, v, after, at)
}

// unlink takes counter c out of its bucket's ring and reports whether the
// bucket is now empty (the caller frees it once done with its links).
func (s *StreamSummary) unlink(c int32) (empty bool) {
	ct := &s.Counters[c]
	b := &s.Buckets[ct.Bucket]
	if ct.Next == c {
		b.First = -1
		return true
	}
	s.Counters[ct.Prev].Next = ct.Next
	s.Counters[ct.Next].Prev = ct.Prev
	if b.First == c {
		b.First = ct.Next
	}
	return false
}

// FreeBucket takes empty bucket b out of the list and onto the free list.
func (s *StreamSummary) FreeBucket(b int32) {
	bk := &s.Buckets[b]
	if bk.Prev >= 0 {
		s.Buckets[bk.Prev].Next = bk.Next
	} else {
		s.Head = bk.Next
	}
	if bk.Next >= 0 {
		s.Buckets[bk.Next].Prev = bk.Prev
	}
	bk.Next = s.Free
	s.Free = b
}

// Link puts counter c (in no bucket) with count v into the list: into the
// bucket of count v, or a new one, searching forward from bucket at, where
// after is the bucket before at (-1 for none) and every bucket up to after
// has a count below v.
func (s *StreamSummary) Link(c int32, v uint64, after, at int32) {
	for at >= 0 && s.Buckets[at].Count < v {
		after, at = at, s.Buckets[at].Next
	}
	if at < 0 || s.Buckets[at].Count != v {
		nb := s.Free
		if nb >= 0 {
			s.Free = s.Buckets[nb].Next
		} else {
			nb = int32(len(s.Buckets))
			s.Buckets = append(s.Buckets, SSBucket{}) // within capacity: buckets ≤ counters ≤ m
		}
		s.Buckets[nb] = SSBucket{Count: v, First: -1, Prev: after, Next: at}
		if after >= 0 {
			s.Buckets[after].Next = nb
		} else {
			s.Head = nb
		}
		if at >= 0 {
			s.Buckets[at].Prev = nb
		}
		at = nb
	}
	// Append c at the end of the ring: the bucket's first stays the oldest.
	bk := &s.Buckets[at]
	ct := &s.Counters[c]
	ct.Bucket = at
	if bk.First < 0 {
		bk.First, ct.Prev, ct.Next = c, c, c
		return
	}
	first := &s.Counters[bk.First]
	ct.Prev, ct.Next = first.Prev, bk.First
	s.Counters[first.Prev].Next = c
	first.Prev = c
}
