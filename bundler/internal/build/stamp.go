package build

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kube32/kube32/bundler/internal/atomicfile"
	"github.com/kube32/kube32/bundler/internal/precompress"
)

// stampsDir holds the stamps, under build/.cache.
const stampsDir = "stamps"

// stamp records how an output was made: the hash of its inputs and enough
// of the output to notice that someone changed or deleted it, plus the sizes
// the table shows, so an up-to-date build prints the same table.
type stamp struct {
	Inputs string `json:"inputs"`

	// Modules.
	SHA256       string `json:"sha256,omitempty"`
	ModuleBytes  int64  `json:"moduleBytes,omitempty"`
	InitialPages uint32 `json:"initialPages,omitempty"`
	// The fit report's figures (moduleStampVersion 2).
	MaxPages     uint32   `json:"maxPages,omitempty"`
	StackBytes   int64    `json:"stackBytes,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
	// CompiledBytes is a release module's size before Optimize.
	CompiledBytes int64 `json:"compiledBytes,omitempty"`
	// CompilerWarnings are kept so that a build that finds the module up
	// to date shows them again, until the source is fixed.
	CompilerWarnings string `json:"compilerWarnings,omitempty"`

	// Bundle directories: every file and its size.
	Files map[string]int64  `json:"files,omitempty"`
	Stats precompress.Stats `json:"stats"`
}

// stampPath names the stamp of an output (a path under build/).
func stampPath(cacheDir, out string) string {
	return filepath.Join(cacheDir, stampsDir, strings.ReplaceAll(out, "/", "~")+".json")
}

func readStamp(path string) *stamp {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var s stamp
	if json.Unmarshal(data, &s) != nil {
		return nil
	}
	return &s
}

func writeStamp(path string, s *stamp) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o644)
}

func fileSHA256(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// listFiles maps every file under dir (slash paths) to its size.
func listFiles(dir string) (map[string]int64, error) {
	files := map[string]int64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = info.Size()
		return nil
	})
	return files, err
}

// matchesModule reports whether the module at path is the one s recorded.
func (s *stamp) matchesModule(path string) bool {
	sum, err := fileSHA256(path)
	return err == nil && sum == s.SHA256
}

// matchesDir reports whether the directory at path holds the files s
// recorded, with their sizes.
func (s *stamp) matchesDir(path string) bool {
	files, err := listFiles(path)
	if err != nil || len(files) != len(s.Files) {
		return false
	}
	for name, size := range s.Files {
		if got, ok := files[name]; !ok || got != size {
			return false
		}
	}
	return true
}
