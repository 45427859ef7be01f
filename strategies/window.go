package strategies

import (
	"math"
	"time"
)

// Window parameters shared by the window designs.
const (
	windowMaxBuckets = 1 << 16        // W: a week of minutes is 10,080
	windowMaxBucket  = 24 * time.Hour // a bucket's width
)

// validateWindow checks a bucket width in (0, 24h] and a window that is a
// whole number of buckets, 1..2^16 of them.
func validateWindow(bucket, window time.Duration) error {
	switch {
	case bucket <= 0 || bucket > windowMaxBucket:
		return paramErr("bucket", "%v not in (0, 24h]", bucket)
	case window < bucket:
		return paramErr("window", "%v is a window shorter than a bucket (%v): allowed a whole multiple of the bucket, at least 1", window, bucket)
	case window%bucket != 0:
		return paramErr("window", "%v is not a whole multiple of the bucket %v (allowed: 1..%d buckets)", window, bucket, windowMaxBuckets)
	case window/bucket > windowMaxBuckets:
		return paramErr("window", "%v is %d buckets of %v, more than %d", window, window/bucket, bucket, windowMaxBuckets)
	}
	return nil
}

// bucketClock tracks the newest bucket of a window design: events before
// start are late, events from next on rotate.
type bucketClock struct {
	width  int64 // ns a bucket
	w      int64 // buckets in the window
	newest int64 // the newest bucket's index, ⌊At/width⌋
	start  int64 // its first ns
	next   int64 // the first ns of the bucket after it (MaxInt64 if past int64 time)
}

func newBucketClock(bucket, window time.Duration) bucketClock {
	c := bucketClock{width: int64(bucket), w: int64(window / bucket)}
	c.set(0)
	return c
}

// of returns the bucket of time at, ⌊at/width⌋ (flooring negative times).
func (c *bucketClock) of(at int64) int64 {
	b := at / c.width
	if at < 0 && b*c.width != at {
		b--
	}
	return b
}

// slot returns the ring slot of bucket b, b mod W in 0..W−1.
func (c *bucketClock) slot(b int64) int {
	s := b % c.w
	if s < 0 {
		s += c.w
	}
	return int(s)
}

// set makes b the newest bucket.
func (c *bucketClock) set(b int64) {
	c.newest = b
	c.start = b * c.width
	c.next = math.MaxInt64
	if c.start <= math.MaxInt64-c.width {
		c.next = c.start + c.width
	}
}

// inWindow reports whether bucket b is one of the W up to the newest.
func (c *bucketClock) inWindow(b int64) bool { return b <= c.newest && b > c.newest-c.w }

// law is the TrendLaw of the window.
func (c *bucketClock) law() TrendLaw { return TrendLaw{Window: c.w * c.width, Bucket: c.width} }
