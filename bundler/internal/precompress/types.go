package precompress

import (
	"path/filepath"
	"strings"
)

// Variant extensions: the precompressed forms of a file, stored beside it.
const (
	gzipExt   = ".gz"
	BrotliExt = ".br"
)

// compressed lists extensions of formats that are already compressed, where
// gzip only costs flash and CPU.
var compressed = map[string]bool{
	".gz": true, ".br": true, ".zst": true, ".zip": true, ".bz2": true, ".xz": true, ".7z": true,
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".avif": true, ".heic": true,
	".woff": true, ".woff2": true,
	".mp3": true, ".mp4": true, ".m4a": true, ".ogg": true, ".opus": true, ".webm": true, ".mov": true,
}

// Compressible reports whether a file of this name is worth gzipping.
func Compressible(name string) bool {
	return !compressed[strings.ToLower(filepath.Ext(name))]
}
