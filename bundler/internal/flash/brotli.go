package flash

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/kube32/kube32/bundler/internal/precompress"
)

// brotliNote is printed once when a flash leaves .br files behind.
const brotliNote = "skipped %d .br file(s): boards serve .gz only (`kube32 serve` also serves .br)\n"

// boardSkips reports whether the build file src/rel stays off boards: the
// .br variant of a bundle file. Boards serve .gz only, so it would only take
// flash.
func boardSkips(src, rel string) bool {
	return strings.HasSuffix(rel, precompress.BrotliExt) && precompress.IsVariant(rel, func(name string) bool {
		info, err := os.Stat(filepath.Join(src, name))
		return err == nil && info.Mode().IsRegular()
	})
}
