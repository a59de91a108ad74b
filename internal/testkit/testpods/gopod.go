package testpods

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kube32/kube32/internal/compile"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// GoDir is the folder of the Go test pods, internal/testkit/testpods/go.
var GoDir = filepath.Join(Dir, "..", "go")

// Go builds the Go test pod GoDir/<name> as `kube32 build` builds Go pods
// (offline, against the SDK the CLI carries). The module is kept in the
// fixture cache under the build's own fingerprint (compile.Fingerprint:
// the sources, the flags, the go command's version and the SDK), as
// `kube32 build` keeps it up to date.
func Go(t testing.TB, name string) []byte {
	t.Helper()
	gobin := testenv.Tool(t, "go")
	job := compile.Job{Name: name, Language: "go", SourceDir: filepath.Join(GoDir, name)}
	fp, err := compile.Fingerprint(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	key := testenv.NewKey(t, "go").Tool(gobin, "version").Add("fingerprint", fp).Add("runtime", runtime.Version())
	return testenv.Cached(t, key, testenv.IsWasm, func() ([]byte, error) {
		job.CacheDir = t.TempDir()
		m, err := compile.Compile(context.Background(), job)
		if err != nil {
			return nil, err
		}
		return m.Wasm, nil
	})
}
