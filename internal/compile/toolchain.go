package compile

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// clangNames are tried in order: Debian installs versioned binaries and
// makes "clang" point at the default one.
var clangNames = []string{"clang", "clang-19", "clang-18", "clang-17", "clang-16", "clang-15", "clang-14"}

// installC says what to install when the C toolchain is incomplete.
const installC = "C pods need clang, lld (wasm-ld), wasi-libc and clang's wasm32 runtime; on Debian or Ubuntu: sudo apt-get install clang lld wasi-libc libclang-rt-dev-wasm32"

// installGo says what to install when Go is missing.
const installGo = "Go pods need Go 1.24 or newer on PATH (https://go.dev/dl/)"

// errNoCompiler is wrapped by the errors for a missing compiler.
var errNoCompiler = errors.New("compiler not found")

func findClang() (string, error) {
	for _, n := range clangNames {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", &missingError{what: "clang", hint: installC}
}

func findGo() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	return "", &missingError{what: "go", hint: installGo}
}

// missingError is a compiler that is not installed.
type missingError struct{ what, hint string }

func (e *missingError) Error() string { return e.what + " not found on PATH: " + e.hint }
func (e *missingError) Unwrap() error { return errNoCompiler }

// wasiSysroots are where distributions install wasi-libc.
var wasiSysroots = []string{"/usr/lib/wasm32-wasi/libc.a", "/usr/share/wasi-sysroot", "/opt/wasi-sdk"}

func haveWASILibc() bool {
	for _, p := range wasiSysroots {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

var (
	versionMu sync.Mutex
	versions  = map[string]string{}
)

// toolVersion returns the first line of `tool args…`, cached per process:
// it goes into fingerprints so that a new compiler rebuilds pods.
func toolVersion(ctx context.Context, tool string, args ...string) string {
	key := tool + " " + strings.Join(args, " ")
	versionMu.Lock()
	defer versionMu.Unlock()
	if v, ok := versions[key]; ok {
		return v
	}
	out, err := exec.CommandContext(ctx, tool, args...).Output()
	v := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	if err != nil {
		return "" // not cached: the failure may be transient
	}
	versions[key] = v
	return v
}
