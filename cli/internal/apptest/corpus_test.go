package apptest_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/cli/internal/apptest"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// Issue 34: the project's corpus of Hurl constructs (testdata/corpus, one
// construct per entry: every request section and body form, Hurl's
// queries, filters, predicates and local [Options]) passes under
// `kube32 test`, against a Go pod written for it and built by the real
// compiler. One entry is [Options] skip: true, and is skipped.
func TestCorpusPassesUnderKube32Test(t *testing.T) {
	testenv.Tool(t, "go")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := copyTree(t, filepath.Join("testdata", "corpus"))
	files, err := apptest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries := 0
	for _, f := range files {
		entries += len(f.Entries)
	}
	code, out := testserve.Run(t, "test", dir)
	want := fmt.Sprintf("%d passed, 0 failed, 1 skipped", entries-1)
	if code != 0 || strings.Contains(out, "FAIL ") || !strings.Contains(out, want) {
		t.Fatalf("kube32 test: exit %d, want 0 and %q:\n%s", code, want, out)
	}
}

// copyTree copies a folder into a temporary one, so that the build's
// output stays out of the repository.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
