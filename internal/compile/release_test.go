package compile

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kube32/kube32/host"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/abi/wasmbin"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

func releaseJob(t *testing.T, name, lang, src string, keepNames bool) Job {
	j := job(t, name, lang, src, 0)
	if src == "cchat" {
		j.SourceDir = chatPod(t)
	}
	j.Release, j.KeepNames, j.Features = true, keepNames, abi.Boards[0].Features
	return j
}

// chatPod is the channels test pod of internal/testkit/testpods, a C pod of a few
// KiB with static data, copied into a directory of its own.
func chatPod(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{"chat.c", "k32test.h"} {
		data, err := os.ReadFile(filepath.Join("..", "testkit", "testpods", "c", f))
		if err != nil {
			t.Fatal(err)
		}
		testenv.WriteFiles(t, dir, map[string]string{f: string(data)})
	}
	return dir
}

// compileRelease builds a release module as kube32 build does: Compile,
// then Optimize.
func compileRelease(t *testing.T, j Job) (compiled, optimized []byte) {
	t.Helper()
	ctx := context.Background()
	m, err := Compile(ctx, j)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Optimize(ctx, j, m.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	return m.Wasm, out
}

// serveOnce runs the module under the node's pod runtime and returns the
// status of a GET.
func serveOnce(t *testing.T, name string, wasm []byte) int {
	t.Helper()
	if _, err := modcheck.Check(context.Background(), wasm, modcheck.Options{}); err != nil {
		t.Fatalf("%s: modcheck: %v", name, err)
	}
	p := host.NewPod(host.PodConfig{Namespace: "default", Name: name, Module: wasm, Log: func(host.LogLine) {}})
	if err := p.Start(context.Background()); err != nil {
		t.Fatalf("%s: start: %v", name, err)
	}
	t.Cleanup(p.Stop)
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestReleaseShrinksModulesThatStillServe(t *testing.T) {
	testenv.Tools(t, "go", "clang", "wasm-ld", "wasm-opt")
	requireDebianRustc(t)
	for _, c := range []struct{ name, lang, src string }{
		{"gopod", langGo.Name, "gopod"},
		{"chat", langC.Name, "cchat"},
		{"rustpod", langRust.Name, "rustpod"},
		{"rustpod-std", langRust.Name, "rustpod-std"},
	} {
		t.Run(c.name, func(t *testing.T) {
			compiled, optimized := compileRelease(t, releaseJob(t, c.name, c.lang, c.src, false))
			t.Logf("%s: %d → %d bytes", c.name, len(compiled), len(optimized))
			if len(optimized) >= len(compiled) {
				t.Errorf("release module %d bytes, not smaller than the compiler's %d", len(optimized), len(compiled))
			}
			if names, _ := customSections(optimized); len(names) != 0 {
				t.Errorf("custom sections left: %q", names)
			}
			if code := serveOnce(t, c.name, optimized); code != http.StatusOK {
				t.Errorf("GET / = %d, want 200", code)
			}
		})
	}
}

func TestReleaseKeepNames(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld", "wasm-opt")
	_, kept := compileRelease(t, releaseJob(t, "hello", langC.Name, "cpod", true))
	if names, err := customSections(kept); err != nil || !slices.Contains(names, nameSection) {
		t.Errorf("--keep-names: custom sections %q (%v), want a name section", names, err)
	}
	_, stripped := compileRelease(t, releaseJob(t, "hello", langC.Name, "cpod", false))
	if names, _ := customSections(stripped); slices.Contains(names, nameSection) {
		t.Errorf("without --keep-names: custom sections %q, want no name section", names)
	}
	if code := serveOnce(t, "hello", kept); code != http.StatusOK {
		t.Errorf("GET / of the module with names = %d, want 200", code)
	}
}

// Without binaryen a release build still strips, and says so through
// Optimizer.
func TestReleaseWithoutWasmOpt(t *testing.T) {
	clang := testenv.Tool(t, "clang")
	bin := t.TempDir()
	// clang runs the versioned wasm-ld beside the plain one.
	linkers, _ := filepath.Glob(testenv.Tool(t, "wasm-ld") + "*")
	for _, tool := range append(linkers, clang) {
		if err := os.Symlink(tool, filepath.Join(bin, filepath.Base(tool))); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	if o := Optimizer(); o != "" {
		t.Fatalf("Optimizer() = %q with no wasm-opt on PATH", o)
	}
	j := releaseJob(t, "hello", langC.Name, "cpod", false)
	j.KeepNames = true // the linker keeps names, so that stripping has a section to drop
	m, err := Compile(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	j.KeepNames = false
	out, err := Optimize(context.Background(), j, m.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) >= len(m.Wasm) {
		t.Errorf("stripped module %d bytes, not smaller than %d", len(out), len(m.Wasm))
	}
	if names, _ := customSections(out); len(names) != 0 {
		t.Errorf("custom sections left: %q", names)
	}
}

func TestReleaseFingerprint(t *testing.T) {
	ctx := context.Background()
	j := job(t, "p", langC.Name, "cpod", 0)
	debug, _ := Fingerprint(ctx, j)
	j.Release = true
	release, _ := Fingerprint(ctx, j)
	j.KeepNames = true
	names, _ := Fingerprint(ctx, j)
	if debug == release || release == names {
		t.Error("the fingerprint does not tell debug, release and --keep-names builds apart")
	}
}

func TestStripCustomSectionsRefusesGarbage(t *testing.T) {
	for _, in := range [][]byte{nil, []byte(wasmbin.Header + "\x00\x7f"), []byte("not wasm")} {
		if _, err := stripCustomSections(in, false); err == nil {
			t.Errorf("stripCustomSections(%q) succeeded", in)
		}
	}
}
