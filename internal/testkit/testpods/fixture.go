package testpods

import (
	"path/filepath"
	"runtime"
	"testing"
)

// Dir is the folder of the C test pods every package's tests share,
// internal/testkit/testpods/c.
var Dir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "c")
}()

// Fixture builds the shared C test pod Dir/<name>.c with initialMemory bytes
// of initial memory, against the C SDK's headers (sdk/c) and the test-only
// k32test.h beside it.
func Fixture(t testing.TB, name string, initialMemory int) []byte {
	t.Helper()
	sdk := filepath.Join(Dir, "..", "..", "..", "..", "sdk", "c")
	return C(t, filepath.Join(Dir, name+".c"), initialMemory, "-I"+filepath.Clean(sdk))
}
