package build

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/bundler/internal/precompress"
	"github.com/kube32/kube32/internal/compile"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

func TestReleaseBuildHasStampsOfItsOwn(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld", "wasm-opt", "zopfli")
	ctx := context.Background()
	dir := copyFixture(t, "app")
	debug, err := Build(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	release, err := Build(ctx, dir, Options{Release: true, Progress: func(s Step) { fmt.Fprintln(&progress, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "pod hello: optimizing (wasm-opt -Oz)…") {
		t.Errorf("progress lacks the optimizing line:\n%s", progress.String())
	}
	if len(release.Warnings) != 0 {
		t.Errorf("warnings with every tool installed: %q", release.Warnings)
	}
	for i, it := range release.Items {
		if it.UpToDate {
			t.Errorf("%s %s: up to date after a debug build; a release build has inputs of its own", it.Kind, it.Name)
		}
		if it.Kind == KindPod && (it.CompiledBytes == 0 || it.ModuleBytes > it.CompiledBytes) {
			t.Errorf("pod %s: %d bytes from %d compiled", it.Name, it.ModuleBytes, it.CompiledBytes)
		}
		if it.Bundle != "" && (it.Stats.PlainGzipBytes == 0 || it.Stats.GzipBytes > debug.Items[i].Stats.GzipBytes) {
			t.Errorf("%s %s: release .gz %+v, debug %+v", it.Kind, it.Name, it.Stats, debug.Items[i].Stats)
		}
	}
	again, err := Build(ctx, dir, Options{Release: true})
	if err != nil {
		t.Fatal(err)
	}
	if tot := again.Total(); !tot.UpToDate || tot.CompiledBytes != release.Total().CompiledBytes {
		t.Errorf("second release build: total %+v; want up to date with the same sizes", tot)
	}
	back, err := Build(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Total().UpToDate || back.Total().CompiledBytes != 0 {
		t.Errorf("debug build after a release build: total %+v; want rebuilt, with no compiled sizes", back.Total())
	}
}

// Without binaryen and the gzip encoders a release build succeeds and says
// which packages would make it smaller, once each.
func TestReleaseBuildWithoutOptionalTools(t *testing.T) {
	clang := testenv.Tool(t, "clang")
	bin := t.TempDir()
	linkers, _ := filepath.Glob(testenv.Tool(t, "wasm-ld") + "*") // clang runs the versioned one
	for _, tool := range append(linkers, clang) {
		if err := os.Symlink(tool, filepath.Join(bin, filepath.Base(tool))); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	res, err := Build(context.Background(), copyFixture(t, "app"), Options{Release: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{compile.MissingWasmOpt, precompress.MissingGzipTool} {
		if n := strings.Count(strings.Join(res.Warnings, "\n"), w); n != 1 {
			t.Errorf("warning %q %d times in %q, want once", w, n, res.Warnings)
		}
	}
	if !slices.ContainsFunc(res.Items, func(it Item) bool { return it.Kind == KindPod && it.CompiledBytes > 0 }) {
		t.Error("no pod was built as a release module")
	}
}
