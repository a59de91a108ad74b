package modcheck

import (
	"path/filepath"
	"testing"

	"github.com/kube32/kube32/internal/testpods"
)

// cWasm builds testdata/<name>.c with initialMemory bytes of initial memory.
// Without clang the test is skipped, or fails when CI=true.
func cWasm(t testing.TB, name string, initialMemory int) []byte {
	t.Helper()
	return testpods.C(t, filepath.Join("testdata", name+".c"), initialMemory)
}
