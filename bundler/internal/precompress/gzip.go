package precompress

import (
	"bytes"
	"compress/gzip"
)

// Gzip compresses data as a gzip member with no name and no timestamp, so
// that the same input always gives the same bytes (builds stay reproducible
// and flashes skip unchanged files). Release builds use BestGzip instead,
// which tries stronger encoders too.
func Gzip(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
