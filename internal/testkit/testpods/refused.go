package testpods

import (
	"path/filepath"
	"testing"
)

// RefusedFlags are the clang flags of each C test pod of
// internal/testkit/testpods/refused, which use a WebAssembly feature no board runs.
// They are built at -O0: at -O1 and above clang runs wasm-opt (where
// installed) after linking, without --enable-simd or --enable-threads, and
// it refuses the module.
var RefusedFlags = map[string][]string{
	"simd":    {"-O0", "-Xclang", "-O2", "-msimd128"},
	"atomics": {"-O0", "-Xclang", "-O2", "-matomics", "-mbulk-memory", "-Wl,--shared-memory", "-Wl,--max-memory=1048576"},
}

// RefusedDir is the folder of those pods.
var RefusedDir = filepath.Join(Dir, "..", "refused")

// Refused builds the test pod RefusedDir/<name>.c with one page of initial
// memory and its RefusedFlags.
func Refused(t testing.TB, name string) []byte {
	t.Helper()
	return C(t, filepath.Join(RefusedDir, name+".c"), 65536, append([]string{"-I" + Dir}, RefusedFlags[name]...)...)
}
