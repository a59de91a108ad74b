// Package testpods builds the C test pods of the tests, as `kube32 build`
// builds C pods.
//
// The modules are kept in the fixture cache of internal/testkit/testenv (see
// testenv.Cached), under the hash of everything that decides their bytes:
// the compiler's identity, the flags, the initial memory, the source and
// every header it may include. So one `go test ./...` run compiles each
// test pod once, for all its test processes, and a run after it compiles
// only what changed. KUBE32_TEST_CACHE=off compiles them in every process.
package testpods

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kube32/kube32/internal/compile"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// C compiles the C test pod src with clang as `kube32 build` does, with
// initialMemory bytes of initial memory and the extra flags, and returns the
// module. Undefined functions are allowed so tests can import what the ABI
// does not have.
func C(t testing.TB, src string, initialMemory int, extra ...string) []byte {
	t.Helper()
	clang := testenv.Tool(t, "clang")
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{}, compile.BaseCFlags...)
	args = append(args, fmt.Sprintf("-Wl,--initial-memory=%d", initialMemory), "-Wl,--allow-undefined")
	args = append(args, extra...)

	key := testenv.NewKey(t, "c").Tool(clang, "--version").Add("libc", wasiLibc(clang)).
		Add("args", strings.Join(args, "\x00")).File(abs)
	// The headers it may include: beside it, in each -I folder, and the
	// C SDK's (which k32test.h includes by a relative path).
	headerDirs := []string{filepath.Dir(abs), filepath.Join(testenv.ModuleRoot, "sdk", "c")}
	headerDirs = append(headerDirs, includeDirs(extra)...)
	for _, dir := range headerDirs {
		key.Tree(dir, func(rel string, isDir bool) bool { return !isDir && strings.HasSuffix(rel, ".h") })
	}
	return testenv.Cached(t, key, testenv.IsWasm, func() ([]byte, error) {
		out, err := os.CreateTemp("", "testpod-*.wasm")
		if err != nil {
			return nil, err
		}
		out.Close()
		defer os.Remove(out.Name())
		cmd := exec.Command(clang, append(args, "-o", out.Name(), abs)...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("clang %s: %v\n%s", src, err, msg)
		}
		return os.ReadFile(out.Name())
	})
}

var (
	libcOnce sync.Once
	libcID   string
)

// wasiLibc identifies the wasi-libc clang links against (and whose headers
// it compiles with): its path, size and modification time.
func wasiLibc(clang string) string {
	libcOnce.Do(func() {
		out, err := exec.Command(clang, "--target=wasm32-wasi", "-print-file-name=libc.a").Output()
		p := strings.TrimSpace(string(out))
		if err != nil {
			libcID = "unknown"
			return
		}
		if st, err := os.Stat(p); err == nil {
			libcID = fmt.Sprintf("%s %d %d", p, st.Size(), st.ModTime().UnixNano())
		} else {
			libcID = p + " missing"
		}
	})
	return libcID
}

// includeDirs lists the folders flags add to the header search path, in
// either spelling: "-Idir" or "-I", "dir" (and -isystem, -iquote).
func includeDirs(flags []string) []string {
	var dirs []string
	for i, f := range flags {
		for _, opt := range []string{"-I", "-isystem", "-iquote"} {
			switch {
			case f == opt && i+1 < len(flags):
				dirs = append(dirs, flags[i+1])
			case f != opt && strings.HasPrefix(f, opt):
				dirs = append(dirs, strings.TrimPrefix(f, opt))
			}
		}
	}
	return dirs
}
