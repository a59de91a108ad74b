package testpods

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// TestCRebuildsWhenAHeaderChanges checks the key of the fixture cache: a
// test pod whose header changed is compiled again, not taken from the
// cache, and its unchanged build is.
func TestCRebuildsWhenAHeaderChanges(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	src := filepath.Join(dir, "pod.c")
	pod := "#include \"n.h\"\n__attribute__((export_name(\"n\"))) int n(void) { return N; }\n"
	testenv.WriteFiles(t, dir, map[string]string{"pod.c": pod, "n.h": "#define N 12345\n"})
	first := C(t, src, 65536)
	if again := C(t, src, 65536); !bytes.Equal(again, first) {
		t.Fatal("the same sources built to other bytes")
	}
	testenv.WriteFiles(t, dir, map[string]string{"n.h": "#define N 54321\n"})
	if changed := C(t, src, 65536); bytes.Equal(changed, first) {
		t.Error("the header changed but the module did not: it came from the cache")
	}
	if other := C(t, src, 2*65536); bytes.Equal(other, first) {
		t.Error("the initial memory changed but the module did not")
	}
}

func TestIncludeDirsReadsBothSpellings(t *testing.T) {
	got := includeDirs([]string{"-O0", "-Ia", "-I", "b", "-isystem", "c", "-iquoted", "-Xclang", "-O2"})
	want := []string{"a", "b", "c", "d"}
	if len(got) != len(want) {
		t.Fatalf("includeDirs = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("includeDirs = %q, want %q", got, want)
		}
	}
}
