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

// fakeRustc puts on PATH a rustc that prints sysroot for --print sysroot.
func fakeRustc(t *testing.T, sysroot string) string {
	t.Helper()
	bin := t.TempDir()
	path := filepath.Join(bin, "rustc")
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho "+sysroot+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	return path
}

// requireDebianRustc fails (CI) or skips unless the fallback rustc has
// the target.
func requireDebianRustc(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("/usr/lib/rustlib/wasm32-wasi/lib")); err != nil {
		if testenv.CI() {
			t.Fatalf("Debian's rustc with wasm32-wasi is required (CI=true): %v", err)
		}
		t.Skip("Debian's rustc with wasm32-wasi is not installed")
	}
}

func TestFindRustFallsBackWhenPathRustcLacksTheTarget(t *testing.T) {
	requireDebianRustc(t)
	fakeRustc(t, t.TempDir()) // a sysroot without any WASI target
	tc, err := findRust(context.Background())
	if err != nil || tc.rustc != rustcFallback || tc.target != "wasm32-wasi" {
		t.Errorf("findRust = %+v, %v; want %s with wasm32-wasi", tc, err, rustcFallback)
	}
}

func TestFindRustPrefersPathRustcWithTheTarget(t *testing.T) {
	sysroot := t.TempDir()
	os.MkdirAll(filepath.Join(sysroot, "lib/rustlib/wasm32-wasip1/lib"), 0o755)
	os.MkdirAll(filepath.Join(sysroot, "lib/rustlib/wasm32-wasi/lib"), 0o755)
	fake := fakeRustc(t, sysroot)
	tc, err := findRust(context.Background())
	if err != nil || tc.rustc != fake || tc.target != "wasm32-wasip1" {
		t.Errorf("findRust = %+v, %v; want %s with wasm32-wasip1", tc, err, fake)
	}
}

func TestFindRustNoneNamesWhatToInstall(t *testing.T) {
	fakeRustc(t, t.TempDir())
	old := rustcFallback
	rustcFallback = filepath.Join(t.TempDir(), "rustc")
	defer func() { rustcFallback = old }()
	_, err := Compile(context.Background(), job(t, "rustpod", langRust.Name, "rustpod", 0))
	if !errors.Is(err, errNoCompiler) {
		t.Fatalf("Compile without a WASI rustc: %v, want errNoCompiler", err)
	}
	for _, want := range []string{"building pod rustpod:", "apt-get install rustc libstd-rust-dev-wasm32", "rustup target add wasm32-wasip1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestRustcBefore168(t *testing.T) {
	for v, want := range map[string]bool{
		"rustc 1.63.0": true, "rustc 1.67.1 (d5a82bbd2 2023-02-07)": true,
		"rustc 1.68.0": false, "rustc 1.95.0 (59807616e 2026-04-14)": false, "": false,
	} {
		if got := rustcBefore168(v); got != want {
			t.Errorf("rustcBefore168(%q) = %v, want %v", v, got, want)
		}
	}
}

// The no_std pod fits one page (its heap grows past it at run time, which
// the pod tests exercise); the std pod builds too.
func TestRustPods(t *testing.T) {
	requireDebianRustc(t)
	ctx := context.Background()
	for _, tc := range []struct {
		dir   string
		limit int64
		pages uint32
	}{{"rustpod", 64 << 10, 1}, {"rustpod-std", 1 << 20, 16}} {
		t.Run(tc.dir, func(t *testing.T) {
			m, err := Compile(ctx, job(t, tc.dir, langRust.Name, tc.dir, tc.limit))
			if err != nil {
				t.Fatal(err)
			}
			if m.Warnings != "" {
				t.Errorf("warnings of a clean pod: %q", m.Warnings)
			}
			rep, err := modcheck.Check(ctx, m.Wasm, modcheck.Options{MemoryLimit: tc.limit})
			if err != nil {
				t.Fatalf("modcheck: %v", err)
			}
			if rep.InitialPages != tc.pages {
				t.Errorf("initial pages = %d, want %d", rep.InitialPages, tc.pages)
			}
			t.Logf("%s: %d bytes, %d initial pages", tc.dir, len(m.Wasm), rep.InitialPages)
		})
	}
}

func TestRustCompileErrorShowsOutput(t *testing.T) {
	requireDebianRustc(t)
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"src/lib.rs": "#![no_std]\nfn handle() -> i32 { nope }\nk32::export!(handle = handle);\n"})
	_, err := Compile(context.Background(), Job{Name: "bad", Language: langRust.Name, SourceDir: dir, CacheDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "src/lib.rs:2") || !strings.Contains(err.Error(), "rustc failed") {
		t.Errorf("error %v, want rustc's diagnostic naming src/lib.rs:2", err)
	}
}

func TestRustFingerprintFollowsSources(t *testing.T) {
	requireDebianRustc(t)
	ctx := context.Background()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"src/lib.rs": "#![no_std]\n"})
	j := Job{Name: "p", Language: langRust.Name, SourceDir: dir, CacheDir: t.TempDir()}
	a, err := Fingerprint(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFiles(t, dir, map[string]string{"src/lib.rs": "#![no_std]\n// changed\n"})
	b, _ := Fingerprint(ctx, j)
	j.MemoryLimit = 64 << 10
	c, _ := Fingerprint(ctx, j)
	if a == b || b == c {
		t.Errorf("fingerprints %s %s %s: a source edit and a new limit must change it", a, b, c)
	}
}
