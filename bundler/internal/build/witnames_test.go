package build

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// witPodSource is the C pod that imports the WIT names of abi/k32.wit.
var witPodSource = filepath.Join(testpods.Dir, "witnames.c")

// writeProject writes a one-pod project: kube32.yaml and the given files.
func writeProject(t *testing.T, yaml string, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	files["kube32.yaml"] = []byte(yaml)
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkBoardNames checks that the built module imports only module k32
// (and WASI) and exports the board's names.
func checkBoardNames(t *testing.T, module string) {
	t.Helper()
	wasm, err := os.ReadFile(module)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := modcheck.Check(context.Background(), wasm, modcheck.Options{})
	if err != nil {
		t.Fatalf("the built module fails the check: %v", err)
	}
	for _, im := range rep.Imports {
		if !strings.HasPrefix(im, "k32.") && !strings.HasPrefix(im, "wasi_snapshot_preview1.") {
			t.Errorf("built module imports %s", im)
		}
	}
	if len(rep.Imports) == 0 || !slices.Contains(rep.Exports, "k32_handle") || !slices.Contains(rep.Exports, "k32_init") {
		t.Errorf("built module imports %q, exports %q; want k32 imports and k32_handle, k32_init", rep.Imports, rep.Exports)
	}
}

// Rule (docs/components.md): a C pod written with the WIT names builds to
// the module the boards run.
func TestBuildLowersWITNamesOfACPod(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	src, err := os.ReadFile(witPodSource)
	if err != nil {
		t.Fatal(err)
	}
	dir := writeProject(t, "name: wit\npods:\n  - name: w\n    language: c\n    source: pods/w\n",
		map[string][]byte{"pods/w/main.c": src})
	if _, err := Build(context.Background(), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	checkBoardNames(t, filepath.Join(dir, "build", "firmware", "images", "wasm", "w.wasm"))
}

// Rule (docs/project.md, language wasm): a prebuilt module goes through
// lowering and the module check like a compiled one.
func TestBuildTakesPrebuiltWasm(t *testing.T) {
	const yaml = "name: pre\npods:\n  - name: pre\n    language: wasm\n    source: prebuilt/pod.wasm\n"
	t.Run("lowered", func(t *testing.T) {
		dir := writeProject(t, yaml, map[string][]byte{"prebuilt/pod.wasm": testpods.C(t, witPodSource, 64<<10)})
		if _, err := Build(context.Background(), dir, Options{}); err != nil {
			t.Fatal(err)
		}
		checkBoardNames(t, filepath.Join(dir, "build", "firmware", "images", "wasm", "pre.wasm"))
	})
	t.Run("other version refused", func(t *testing.T) {
		dir := writeProject(t, yaml, map[string][]byte{
			"prebuilt/pod.wasm": testpods.C(t, witPodSource, 64<<10, `-DWIT_MODULE="kube32:app/k32@0.2.0"`)})
		_, err := Build(context.Background(), dir, Options{})
		if err == nil {
			t.Fatal("Build succeeded")
		}
		for _, want := range []string{"pod pre", "0.2.0", "0.1.0"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %s", err, want)
			}
		}
	})
	t.Run("not wasm refused by the check", func(t *testing.T) {
		dir := writeProject(t, yaml, map[string][]byte{"prebuilt/pod.wasm": []byte("#!/bin/sh\n")})
		_, err := Build(context.Background(), dir, Options{})
		if err == nil || !strings.Contains(err.Error(), "pod pre") {
			t.Fatalf("Build: %v; want an error naming pod pre", err)
		}
		t.Log(err)
	})
	t.Run("a directory refused", func(t *testing.T) {
		dir := writeProject(t, strings.Replace(yaml, "prebuilt/pod.wasm", "prebuilt", 1), map[string][]byte{"prebuilt/x.wasm": {0}})
		_, err := Build(context.Background(), dir, Options{})
		if err == nil || !strings.Contains(err.Error(), "pods[0].source") {
			t.Fatalf("Build: %v; want an error naming pods[0].source", err)
		}
	})
}
