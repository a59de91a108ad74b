// Package testjco wraps core modules into WebAssembly components with jco
// (@bytecodealliance/jco from npm), a component encoder independent of
// kube32, so that tests see what users' tools make.
//
// jco is installed once with npm into the user cache directory
// (KUBE32_JCO_CACHE, else <user cache>/kube32/jco-<Version>) under a lock,
// so the test processes of one run install it once. Without node and npm,
// or without the npm registry, the tests that need it skip, and fail when
// CI=true (internal/testkit/testenv).
package testjco

import (
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// Version is the jco release the tests wrap with.
const Version = "1.35.0"

// CacheDirEnv names a variable that, when set, is the directory jco is
// installed in instead of the user cache directory.
const CacheDirEnv = "KUBE32_JCO_CACHE"

//go:embed wrap.mjs
var wrapScript []byte

// Adapter picks the WASI preview 1 adapter of a wrap.
type Adapter string

// Adapters.
const (
	NoAdapter Adapter = ""
	// Reactor is jco's wasi_snapshot_preview1 reactor adapter, for a
	// module that imports WASI preview 1.
	Reactor Adapter = "reactor"
)

// Component wraps the core module core into a component of world (for
// example "pod") of the WIT package in the file wit: jco's component embed,
// then component new with the adapter.
func Component(t testing.TB, wit, world string, core []byte, adapter Adapter) []byte {
	t.Helper()
	node := testenv.Tool(t, "node")
	dir := install(t)
	tmp := t.TempDir()
	in, out := filepath.Join(tmp, "core.wasm"), filepath.Join(tmp, "component.wasm")
	if err := os.WriteFile(in, core, 0o644); err != nil {
		t.Fatal(err)
	}
	absWIT, err := filepath.Abs(wit)
	if err != nil {
		t.Fatal(err)
	}
	return run(t, node, dir, out, "wrap", absWIT, world, in, out, string(adapter))
}

// Parse encodes a component written in the WebAssembly text format with
// jco's parser (wasm-tools parse), for components no compiler makes (two
// core modules, resources).
func Parse(t testing.TB, wat string) []byte {
	t.Helper()
	node := testenv.Tool(t, "node")
	dir := install(t)
	tmp := t.TempDir()
	in, out := filepath.Join(tmp, "component.wat"), filepath.Join(tmp, "component.wasm")
	if err := os.WriteFile(in, []byte(wat), 0o644); err != nil {
		t.Fatal(err)
	}
	return run(t, node, dir, out, "parse", in, out)
}

// run runs wrap.mjs and returns the file out it wrote.
func run(t testing.TB, node, dir, out string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(node, append([]string{filepath.Join(dir, "wrap.mjs")}, args...)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("jco %s: %v\n%s", args[0], err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// install returns the directory jco is installed in, installing it first
// if needed.
func install(t testing.TB) string {
	t.Helper()
	npm := testenv.Tool(t, "npm")
	dir := os.Getenv(CacheDirEnv)
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			unavailable(t, "no user cache directory: %v", err)
		}
		dir = filepath.Join(base, "kube32", "jco-"+Version)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		unavailable(t, "%v", err)
	}
	unlock, err := testenv.LockFile(filepath.Join(dir, "install.lock"), func() {
		t.Logf("testjco: another process is installing jco in %s; waiting", dir)
	})
	if err != nil {
		unavailable(t, "%v", err)
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@bytecodealliance", "jco", "package.json")); err != nil {
		t.Logf("testjco: installing @bytecodealliance/jco@%s in %s", Version, dir)
		cmd := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", dir, "@bytecodealliance/jco@"+Version)
		if msg, err := cmd.CombinedOutput(); err != nil {
			unavailable(t, "npm install @bytecodealliance/jco@%s: %v\n%s", Version, err, msg)
		}
	}
	// The script lives beside node_modules, where node finds jco from it.
	if err := os.WriteFile(filepath.Join(dir, "wrap.mjs"), wrapScript, 0o644); err != nil {
		unavailable(t, "%v", err)
	}
	return dir
}

func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	testenv.Unavailable(t, "jco", format, args...)
}
