package modcheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// cFlags builds a one-page C pod, as the common brief prescribes.
var cFlags = []string{"--target=wasm32-wasi", "-O2", "-nostartfiles", "-Wl,--no-entry",
	"-Wl,-z,stack-size=8192", "-Wl,--strip-all"}

var (
	buildDir  string
	buildMu   sync.Mutex
	built     = map[string][]byte{}
	clangPath string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "modcheck-wasm-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	clangPath, _ = exec.LookPath("clang")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cWasm builds testdata/<name>.c once with initialMemory bytes of memory.
// Without clang the test is skipped, or fails when CI=true.
func cWasm(t testing.TB, name string, initialMemory int) []byte {
	t.Helper()
	if clangPath == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("clang is required (CI=true) to build wasm32-wasi test modules")
		}
		t.Skip("clang not found; skipping a test that builds C pods")
	}
	key := fmt.Sprintf("%s-%d", name, initialMemory)
	buildMu.Lock()
	defer buildMu.Unlock()
	if b, ok := built[key]; ok {
		return b
	}
	out := filepath.Join(buildDir, key+".wasm")
	args := append(append([]string{}, cFlags...), fmt.Sprintf("-Wl,--initial-memory=%d", initialMemory),
		"-Wl,--allow-undefined", "-o", out, filepath.Join("testdata", name+".c"))
	if msg, err := exec.Command(clangPath, args...).CombinedOutput(); err != nil {
		t.Fatalf("clang %s: %v\n%s", name, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	built[key] = b
	return b
}
