package apptest

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Issue 34: Hurl's own integration tests (integration/hurl/tests_ok in
// Hurl's repository) parse, all but those that need one of curl's options.
// They are not kept in this repository: KUBE32_HURL_CORPUS names a folder
// holding them (docs/testing.md says how the count was measured). Without
// it there is nothing to read and the test says so.
func TestHurlsOwnTestsParse(t *testing.T) {
	dir := os.Getenv("KUBE32_HURL_CORPUS")
	if dir == "" {
		t.Skip("KUBE32_HURL_CORPUS names no folder of Hurl's tests_ok files")
	}
	var paths []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".hurl") {
			paths = append(paths, p)
		}
		return err
	})
	sort.Strings(paths)
	if len(paths) == 0 {
		t.Fatalf("%s holds no .hurl file", dir)
	}
	parsed, curlOnly := 0, 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		_, err = Parse(rel, src)
		switch {
		case err == nil:
			parsed++
		case strings.Contains(err.Error(), "it is curl's") || strings.Contains(err.Error(), ": true is not supported by kube32 test"):
			curlOnly++
			t.Logf("refused, a curl-only option: %v", err)
		default:
			t.Errorf("does not parse: %v", err)
		}
	}
	t.Logf("%d files: %d parse, %d need a curl-only option, %d refused otherwise", len(paths), parsed, curlOnly, len(paths)-parsed-curlOnly)
}
