package precompress

import (
	"bytes"

	"github.com/andybalholm/brotli"
)

// Window sizes (log2 bytes) brotli allows without the large-window
// extension, which browsers do not decode.
const (
	minBrotliWindow = 10
	maxBrotliWindow = 24
)

// Brotli compresses data at brotli's best quality (11) with the smallest
// window that holds the whole input (as the brotli command-line tool picks
// it), so that decoders reserve no more memory than the file needs. The
// output depends only on data: builds stay reproducible.
func Brotli(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	bw := brotli.NewWriterOptions(&buf, brotli.WriterOptions{
		Quality: brotli.BestCompression,
		LGWin:   brotliWindow(len(data)),
	})
	if _, err := bw.Write(data); err != nil {
		return nil, err
	}
	if err := bw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// brotliWindow is the smallest allowed window of at least n bytes (brotli
// reserves 16 bytes of the window, hence the slack).
func brotliWindow(n int) int {
	w := minBrotliWindow
	for w < maxBrotliWindow && (1<<w)-16 < n {
		w++
	}
	return w
}
