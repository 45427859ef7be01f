package plots

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"io"
)

// encodePNG writes img, which must be opaque (a chart drawn on white), as
// an 8-bit RGB PNG: each row filtered by Sub (a pixel less the one on its
// left) and deflated at the fastest level. image/png tries every filter on
// every row and keeps the best, which took a quarter of drawing a run's
// charts; a chart's flat colours compress about as well under Sub alone.
// (W3C, PNG Specification, 2nd ed., 2003: §9.2 filter type 1, §11.2 IHDR.)
func encodePNG(w io.Writer, img *image.RGBA) error {
	bw := bufio.NewWriter(w)
	b := img.Bounds()
	width, height := b.Dx(), b.Dy()
	if _, err := bw.WriteString("\x89PNG\r\n\x1a\n"); err != nil {
		return err
	}
	var hdr [13]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(width))
	binary.BigEndian.PutUint32(hdr[4:], uint32(height))
	hdr[8], hdr[9] = 8, 2 // 8 bits a sample, truecolour (RGB)
	if err := chunk(bw, "IHDR", hdr[:]); err != nil {
		return err
	}
	var data chunkWriter
	zw, err := zlib.NewWriterLevel(&data, zlib.BestSpeed)
	if err != nil {
		return err
	}
	row := make([]byte, 1+3*width)
	row[0] = 1 // Sub
	for y := range height {
		px := img.Pix[(y)*img.Stride : (y)*img.Stride+4*width]
		var pr, pg, pb byte
		for x := range width {
			r, g, bl := px[4*x], px[4*x+1], px[4*x+2]
			row[1+3*x], row[2+3*x], row[3+3*x] = r-pr, g-pg, bl-pb
			pr, pg, pb = r, g, bl
		}
		if _, err := zw.Write(row); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := chunk(bw, "IDAT", data.b); err != nil {
		return err
	}
	if err := chunk(bw, "IEND", nil); err != nil {
		return err
	}
	return bw.Flush()
}

// chunkWriter gathers a chunk's data.
type chunkWriter struct{ b []byte }

func (c *chunkWriter) Write(p []byte) (int, error) {
	c.b = append(c.b, p...)
	return len(p), nil
}

// chunk writes one PNG chunk: length, type, data, CRC of type and data.
func chunk(w io.Writer, typ string, data []byte) error {
	var head [8]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(data)))
	copy(head[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(head[4:])
	crc.Write(data)
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], crc.Sum32())
	for _, p := range [][]byte{head[:], data, tail[:]} {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}
