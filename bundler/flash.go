package bundler

import (
	"github.com/kube32/kube32/bundler/internal/flash"
	"github.com/kube32/kube32/bundler/internal/precompress"
)

// FlashOptions configures Flash; FlashResult says what it changed.
type (
	FlashOptions = flash.Options
	FlashResult  = flash.Result
)

// Flash copies the built trees to a card or a firmware source tree.
func Flash(opts FlashOptions) (*FlashResult, error) { return flash.Flash(opts) }

// CompressStats counts what precompression did.
type CompressStats = precompress.Stats

// Gzip and Brotli compress a file's bytes as the build does.
func Gzip(data []byte) ([]byte, error)   { return precompress.Gzip(data) }
func Brotli(data []byte) ([]byte, error) { return precompress.Brotli(data) }

// Compressible says whether a file of this name is worth precompressing.
func Compressible(name string) bool { return precompress.Compressible(name) }
