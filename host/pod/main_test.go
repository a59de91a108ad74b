package pod

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// cFlags builds a C pod as the common brief prescribes; the initial memory
// is added per module.
var cFlags = []string{"--target=wasm32-wasi", "-O2", "-nostartfiles", "-Wl,--no-entry",
	"-Wl,-z,stack-size=8192", "-Wl,--strip-all", "-Wl,--allow-undefined"}

var (
	buildDir string
	buildMu  sync.Mutex
	built    = map[string][]byte{}
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pod-wasm-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cWasm builds testdata/<name>.c once (per initial memory) and returns the
// module. Without clang the test is skipped, or fails when CI=true.
func cWasm(t testing.TB, name string, initialMemory int) []byte {
	t.Helper()
	clang, err := exec.LookPath("clang")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("clang is required (CI=true) to build the wasm32-wasi test pods")
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
		"-o", out, filepath.Join("testdata", name+".c"))
	if msg, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
		t.Fatalf("clang %s: %v\n%s", name, err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	built[key] = b
	return b
}

// onePage builds a one-page (64Ki) C pod.
func onePage(t testing.TB, name string) []byte { return cWasm(t, name, 65536) }
