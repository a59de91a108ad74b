package compile

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// Compiler errors name the source from the project root, as an editor
// opened there finds it: "pods/bad/main.c:1:", not "main.c:1:".
func TestDiagnosticsNamePathsFromTheProjectRoot(t *testing.T) {
	cases := []struct {
		lang  string
		tools []string
		files map[string]string
		want  string
	}{
		{langC.Name, []string{"clang", "wasm-ld"},
			map[string]string{"main.c": "int f(void) { return undefined_thing; }\n"},
			"pods/bad/main.c:1:"},
		{langRust.Name, []string{"rustc"},
			map[string]string{"src/lib.rs": "#![no_std]\npub fn f() -> i32 { undefined_thing }\n"},
			"pods/bad/src/lib.rs:2:"},
		{langGo.Name, []string{"go"},
			map[string]string{"go.mod": "module bad\n\ngo 1.24\n", "main.go": "package main\n\nfunc main() { undefinedThing() }\n"},
			"pods/bad/main.go:3:"},
	}
	for _, tc := range cases {
		t.Run(tc.lang, func(t *testing.T) {
			testenv.Tools(t, tc.tools...)
			root := t.TempDir()
			src := filepath.Join(root, "pods", "bad")
			testenv.WriteFiles(t, src, tc.files)
			j := Job{Name: "bad", Language: tc.lang, SourceDir: src, RootDir: root, CacheDir: filepath.Join(root, "build", ".cache")}
			_, err := Compile(context.Background(), j)
			if err == nil {
				t.Fatal("compiled")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not name %s:\n%v", tc.want, err)
			}
		})
	}
}

// GOFLAGS=-v (or -x) makes go print package names (or commands) on the
// standard error: noise, not compiler warnings.
func TestGoFlagsVerboseGivesNoCompilerWarnings(t *testing.T) {
	testenv.Tool(t, "go")
	t.Setenv("GOFLAGS", "-v -x")
	m, err := Compile(context.Background(), job(t, "gopod", langGo.Name, "gopod", 0))
	if err != nil {
		t.Fatal(err)
	}
	if m.Warnings != "" {
		t.Errorf("compiler warnings of a clean pod under GOFLAGS=-v -x:\n%s", m.Warnings)
	}
}

// A compile whose context ended (Ctrl-C) says it was interrupted, not that
// the compiler failed.
func TestInterruptedCompileSaysInterrupted(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Compile(ctx, job(t, "hello", langC.Name, "cpod", 0))
	if !errors.Is(err, ErrInterrupted) || err.Error() != "building pod hello: interrupted" {
		t.Errorf("err = %v, want building pod hello: interrupted", err)
	}
}
