// Package testpods builds the C test pods of the tests, as `kube32 build`
// builds C pods.
package testpods

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kube32/kube32/bundler/compile"
	"github.com/kube32/kube32/internal/testenv"
)

var (
	builtMu sync.Mutex
	built   = map[string][]byte{}
)

// C compiles the C test pod src with clang as `kube32 build` does, with
// initialMemory bytes of initial memory and the extra flags, and returns the
// module. Each build is done once per test process. Undefined functions are
// allowed so tests can import what the ABI does not have.
func C(t testing.TB, src string, initialMemory int, extra ...string) []byte {
	t.Helper()
	clang := testenv.Tool(t, "clang")
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprintf("%s|%d|%s", abs, initialMemory, strings.Join(extra, " "))
	builtMu.Lock()
	defer builtMu.Unlock()
	if b, ok := built[key]; ok {
		return b
	}
	out, err := os.CreateTemp("", "testpod-*.wasm")
	if err != nil {
		t.Fatal(err)
	}
	out.Close()
	defer os.Remove(out.Name())
	args := append([]string{}, compile.BaseCFlags...)
	args = append(args, fmt.Sprintf("-Wl,--initial-memory=%d", initialMemory), "-Wl,--allow-undefined")
	args = append(args, extra...)
	args = append(args, "-o", out.Name(), abs)
	if msg, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
		t.Fatalf("clang %s: %v\n%s", src, err, msg)
	}
	b, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	built[key] = b
	return b
}
