package ds

import (
	"math"
	"time"

	"countsim/strategies"
)

// windowMaxBuckets is the most buckets W a window holds: a week of
// minutes is 10,080.
const windowMaxBuckets = 1 << 16

// ValidateWindow is the rule of the window designs across bucket and
// window: a window that is a whole number of buckets, 1..2^16 of them. The
// bucket's own range, (0, 24h], is its tag's.
func ValidateWindow(bucket, window time.Duration) error {
	switch {
	case bucket <= 0:
		return strategies.ParamErrorf("bucket", "%v is not above 0", bucket)
	case window < bucket:
		return strategies.ParamErrorf("window", "%v is a window shorter than a bucket (%v): allowed a whole multiple of the bucket, at least 1", window, bucket)
	case window%bucket != 0:
		return strategies.ParamErrorf("window", "%v is not a whole multiple of the bucket %v (allowed: 1..%d buckets)", window, bucket, windowMaxBuckets)
	case window/bucket > windowMaxBuckets:
		return strategies.ParamErrorf("window", "%v is %d buckets of %v, more than %d", window, window/bucket, bucket, windowMaxBuckets)
	}
	return nil
}

// BucketClock tracks the newest bucket of a window design: events before
// start are late, events from next on rotate.
type BucketClock struct {
	Width  int64 // ns a bucket
	W      int64 // buckets in the window
	Newest int64 // the newest bucket's index, ⌊At/width⌋
	Start  int64 // its first ns
	Next   int64 // the first ns of the bucket after it (MaxInt64 if past int64 time)
}

func NewBucketClock(bucket, window time.Duration) BucketClock {
	c := BucketClock{Width: int64(bucket), W: int64(window / bucket)}
	c.Set(0)
	return c
}

// Of returns the bucket of time at, ⌊at/width⌋ (flooring negative times).
func (c *BucketClock) Of(at int64) int64 {
	b := at / c.Width
	if at < 0 && b*c.Width != at {
		b--
	}
	return b
}

// Slot returns the ring slot of bucket b, b mod W in 0..W−1.
func (c *BucketClock) Slot(b int64) int {
	s := b % c.W
	if s < 0 {
		s += c.W
	}
	return int(s)
}

// Set makes b the newest bucket.
func (c *BucketClock) Set(b int64) {
	c.Newest = b
	c.Start = b * c.Width
	c.Next = math.MaxInt64
	if c.Start <= math.MaxInt64-c.Width {
		c.Next = c.Start + c.Width
	}
}

// InWindow reports whether bucket b is one of the W up to the newest.
func (c *BucketClock) InWindow(b int64) bool { return b <= c.Newest && b > c.Newest-c.W }

// Law is the TrendLaw of the window.
func (c *BucketClock) Law() strategies.TrendLaw {
	return strategies.TrendLaw{Window: c.W * c.Width, Bucket: c.Width}
}
