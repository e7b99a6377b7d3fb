package sitemap

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// capped is a body's uncompressed bytes, cut at MaxBytes.
type capped struct {
	r      io.Reader
	left   int64
	probed bool
	over   bool  // there was more past MaxBytes
	err    error // the gzip stream's fault, if any
}

// open returns the bytes of body to read: gunzipped when it begins with
// gzip's magic bytes, whatever the Content-Type said.
func open(body []byte) (*capped, error) {
	var r io.Reader = bytes.NewReader(body)
	if len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("sitemap: gzip: %w", err)
		}
		r = zr
	}
	return &capped{r: r, left: MaxBytes}, nil
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		if !c.probed { // one byte more says whether the cap cut anything
			c.probed = true
			var b [1]byte
			n, _ := io.ReadFull(c.r, b[:])
			c.over = n > 0
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}
