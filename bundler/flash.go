package bundler

import (
	"io"

	"github.com/kube32/kube32/bundler/internal/flash"
	"github.com/kube32/kube32/bundler/internal/precompress"
)

// FlashOptions configures Flash.
type FlashOptions struct {
	Build    string    // the project's build directory (holds firmware/ and sd/)
	SD       string    // a mounted card: build/sd/kube32 is copied to SD/kube32
	Firmware string    // a firmware source tree: build/firmware/images is copied to Firmware/images
	DryRun   bool      // list what would change without writing
	Out      io.Writer // progress lines; nil discards them
}

// A FlashResult says what Flash changed.
type FlashResult struct{ r *flash.Result }

// Files is how many files Flash looked at, changed or not.
func (f *FlashResult) Files() int { return len(f.r.Changes) }

// Changed reports whether Flash added, updated or removed a file.
func (f *FlashResult) Changed() bool { return f.r.Changed() }

// Flash copies the built trees to a card or a firmware source tree.
func Flash(opts FlashOptions) (*FlashResult, error) {
	r, err := flash.Flash(flash.Options(opts))
	if r == nil {
		return nil, err
	}
	return &FlashResult{r: r}, err
}

// Gzip and Brotli compress a file's bytes as the build does.
func Gzip(data []byte) ([]byte, error)   { return precompress.Gzip(data) }
func Brotli(data []byte) ([]byte, error) { return precompress.Brotli(data) }

// Compressible says whether a file of this name is worth precompressing.
func Compressible(name string) bool { return precompress.Compressible(name) }
