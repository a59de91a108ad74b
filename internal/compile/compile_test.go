package compile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

func job(t *testing.T, name, lang, src string, limit int64) Job {
	abs, err := filepath.Abs(filepath.Join("testdata", src))
	if err != nil {
		t.Fatal(err)
	}
	return Job{Name: name, Language: lang, SourceDir: abs, MemoryLimit: limit, CacheDir: t.TempDir()}
}

func TestInitialMemory(t *testing.T) {
	for limit, want := range map[int64]int64{
		0: 0, 64 << 10: 64 << 10, 100 << 10: 64 << 10, 1000: 64 << 10,
		1 << 20: 1 << 20, 1<<20 + 1: 0, 16 << 20: 0,
	} {
		if got := initialMemory(limit); got != want {
			t.Errorf("InitialMemory(%d) = %d, want %d", limit, got, want)
		}
	}
}

func TestCPodOnePage(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	ctx := context.Background()
	m, err := Compile(ctx, job(t, "hello", langC.Name, "cpod", 64<<10))
	if err != nil {
		t.Fatal(err)
	}
	if m.Warnings != "" {
		t.Errorf("warnings of a clean pod: %q", m.Warnings)
	}
	rep, err := modcheck.Check(ctx, m.Wasm, modcheck.Options{MemoryLimit: 64 << 10})
	if err != nil {
		t.Fatalf("modcheck: %v", err)
	}
	if rep.InitialPages != 1 {
		t.Errorf("initial pages = %d, want 1", rep.InitialPages)
	}
}

// A warning that clang prints by default comes back with the module, as
// clang printed it.
func TestCWarningsReturnedOnSuccess(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"main.c": "int truncated(void) { int x = 3.5; return x; }\n"})
	j := Job{Name: "warn", Language: langC.Name, SourceDir: dir, CacheDir: t.TempDir()}
	m, err := Compile(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"main.c:1:", "warning:", "3.5"} {
		if !strings.Contains(m.Warnings, want) {
			t.Errorf("warnings %q lack %q", m.Warnings, want)
		}
	}
	if len(m.Wasm) == 0 {
		t.Error("no module")
	}
}

func TestCCompileErrorShowsOutput(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	_, err := Compile(context.Background(), job(t, "bad", langC.Name, "cbad", 0))
	if err == nil {
		t.Fatal("compiled")
	}
	for _, want := range []string{"building pod bad: clang failed", "main.c:1:", "undefined_thing"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestMissingCompilers(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Compile(context.Background(), job(t, "hello", langC.Name, "cpod", 0))
	if !errors.Is(err, errNoCompiler) || !strings.Contains(err.Error(), "apt-get install clang lld wasi-libc") {
		t.Errorf("C without clang: %v", err)
	}
	_, err = Compile(context.Background(), job(t, "gopod", langGo.Name, "gopod", 0))
	if !errors.Is(err, errNoCompiler) || !strings.Contains(err.Error(), "building pod gopod: go not found on PATH: Go pods need Go") {
		t.Errorf("Go without go: %v", err)
	}
}

func TestGoPodOffline(t *testing.T) {
	testenv.Tools(t, "go")
	ctx := context.Background()
	j := job(t, "gopod", langGo.Name, "gopod", 0)
	m, err := Compile(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := modcheck.Check(ctx, m.Wasm, modcheck.Options{}); err != nil {
		t.Fatalf("modcheck: %v", err)
	}
	work, err := os.ReadFile(filepath.Join(j.CacheDir, "go", "gopod", "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(work), filepath.Join(j.CacheDir, "sdk", "go")) {
		t.Errorf("go.work does not use the SDK copy:\n%s", work)
	}
}

func TestGoFlagsDropsModAndVerbose(t *testing.T) {
	if got := goFlags("-mod=mod -v -tags=x --x -buildvcs=true -v=true"); got != "-tags=x -buildvcs=false" {
		t.Errorf("goFlags = %q", got)
	}
}

func TestFingerprint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.c"), []byte("int x;"), 0o644)
	j := Job{Name: "p", Language: langC.Name, SourceDir: dir, CacheDir: t.TempDir()}
	a, err := Fingerprint(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := Fingerprint(ctx, j); a != b {
		t.Error("fingerprint not stable")
	}
	j.MemoryLimit = 64 << 10
	if b, _ := Fingerprint(ctx, j); a == b {
		t.Error("fingerprint ignores the memory limit of a C pod")
	}
	j.MemoryLimit = 0
	os.WriteFile(filepath.Join(dir, "main.c"), []byte("int y;"), 0o644)
	if b, _ := Fingerprint(ctx, j); a == b {
		t.Error("fingerprint ignores the sources")
	}
	os.MkdirAll(filepath.Join(dir, "build"), 0o755)
	os.WriteFile(filepath.Join(dir, "build", "x"), []byte("1"), 0o644)
	j.Exclude = []string{filepath.Join(dir, "build")}
	c, _ := Fingerprint(ctx, j)
	os.WriteFile(filepath.Join(dir, "build", "x"), []byte("2"), 0o644)
	if d, _ := Fingerprint(ctx, j); c != d {
		t.Error("fingerprint reads an excluded directory")
	}
}
