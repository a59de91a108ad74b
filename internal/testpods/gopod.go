package testpods

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kube32/kube32/bundler/compile"
	"github.com/kube32/kube32/internal/testenv"
)

// GoDir is the folder of the Go test pods, internal/testpods/go.
var GoDir = filepath.Join(Dir, "..", "go")

// Go builds the Go test pod GoDir/<name> as `kube32 build` builds Go pods
// (offline, against the SDK the CLI carries), once per test process.
func Go(t testing.TB, name string) []byte {
	t.Helper()
	testenv.Tool(t, "go")
	key := "go|" + name
	builtMu.Lock()
	defer builtMu.Unlock()
	if b, ok := built[key]; ok {
		return b
	}
	m, err := compile.Compile(context.Background(), compile.Job{
		Name: name, Language: "go", SourceDir: filepath.Join(GoDir, name), CacheDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	built[key] = m.Wasm
	return m.Wasm
}
