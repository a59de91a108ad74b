package watch

import (
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kube32/kube32/bundler"
)

// outputs are the fingerprints of what a build wrote, by item: a pod's
// module and asset bundle ("pod <image>"), a StaticBundle's files
// ("bundle <name>"). Comparing them before and after a build says what to
// swap, whether the build succeeded or failed part-way (the outputs that
// failed are left as they were).
type outputs map[string][32]byte

func itemKey(it bundler.Item) string {
	if it.Kind == bundler.KindPod {
		return "pod " + it.Image
	}
	return "bundle " + it.Name
}

// fingerprint reads the outputs of res's items; a pod whose module was
// never built has none.
func fingerprint(res *bundler.BuildResult) outputs {
	out := outputs{}
	for _, it := range res.Items {
		h := sha256.New()
		if it.Module != "" {
			module := filepath.Join(res.BuildDir, filepath.FromSlash(it.Module))
			if _, err := os.Stat(module); err != nil {
				continue
			}
			hashFile(h, module)
		}
		if it.Bundle != "" {
			hashTree(h, filepath.Join(res.BuildDir, filepath.FromSlash(it.Bundle)))
		}
		var sum [32]byte
		h.Sum(sum[:0])
		out[itemKey(it)] = sum
	}
	return out
}

// hashFile adds a file's contents; a missing file adds nothing.
func hashFile(h io.Writer, path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = io.Copy(h, f)
}

// hashTree adds the names and contents of a folder's files, in order.
func hashTree(h io.Writer, dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		io.WriteString(h, filepath.ToSlash(rel)+"\x00")
		hashFile(h, p)
		io.WriteString(h, "\x00")
		return nil
	})
}
