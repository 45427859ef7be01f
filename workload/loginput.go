package workload

// The bytes under a recorded log: the file, gunzipped when its content
// says so, counted as it is read; and the decimals of its columns.

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"sync/atomic"
)

// logInput is a log's file opened for reading, its content decompressed.
type logInput struct {
	f    *os.File
	gz   *gzip.Reader
	text io.Reader // the content: the file's, or gunzipped
}

// countedFile counts the bytes read from a file.
type countedFile struct {
	f *os.File
	n *atomic.Int64
}

func (c countedFile) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func openLogInput(path string, count *atomic.Int64) (*logInput, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("workload: log: %w", err)
	}
	in := &logInput{f: f}
	br := bufio.NewReaderSize(countedFile{f, count}, logBufSize)
	in.text = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		if in.gz, err = gzip.NewReader(br); err != nil {
			f.Close()
			return nil, fmt.Errorf("workload: log %s starts as gzip does (1f 8b) but its gzip header is bad: %w", path, err)
		}
		in.text = in.gz
	}
	return in, nil
}

func (in *logInput) close() error {
	if in.gz != nil {
		in.gz.Close()
	}
	return in.f.Close()
}

// skipBOM drops a UTF-8 byte order mark at the start of the text.
func skipBOM(br *bufio.Reader) {
	if b, _ := br.Peek(3); len(b) == 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		br.Discard(3)
	}
}

// parseDecimalU64 reads s as strconv.ParseUint(s, 10, 64) does (digits
// alone, leading zeros allowed), a little faster.
func parseDecimalU64(s string) (uint64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	if len(s) > 20 {
		return 0, false
	}
	var v uint64
	n := min(len(s), 19) // 10^19 − 1 < 2^64: no overflow
	for i := 0; i < n; i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + uint64(d)
	}
	if len(s) == 20 {
		d := uint64(s[19] - '0')
		if d > 9 || v > math.MaxUint64/10 || v == math.MaxUint64/10 && d > math.MaxUint64%10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// parseDecimalI64 reads s as strconv.ParseInt(s, 10, 64) does (a sign, '+'
// or '-', then digits).
func parseDecimalI64(s string) (int64, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	u, ok := parseDecimalU64(s)
	switch {
	case !ok:
		return 0, false
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	case neg && u <= 1<<63:
		return int64(-u), true
	}
	return 0, false
}
