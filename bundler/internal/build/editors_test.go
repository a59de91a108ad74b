package build

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/compile"
	"github.com/kube32/kube32/internal/testenv"
)

// The build writes compile_commands.json with the flags it compiles with,
// rewrites its own on every build, and leaves one the user wrote alone with
// a warning naming it.
func TestBuildWritesCompileCommandsButNeverTheUsers(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	ctx := context.Background()
	dir := writePodProject(t, "hello", []string{"-DGREETING=1"}, map[string]string{
		"main.c": `#include "k32.h"` + "\nK32_EXPORT(k32_handle) int32_t k32_handle(void) { return GREETING - 1; }\n",
		"util.c": "int util(void) { return 2; }\n",
	}, "")
	path := filepath.Join(dir, compileCommandsFile)
	res, err := Build(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cmds []compile.CCommand
	if err := json.Unmarshal([]byte(readFile(t, path)), &cmds); err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 2 || cmds[0].File != "pods/hello/main.c" || cmds[1].File != "pods/hello/util.c" {
		t.Fatalf("entries %+v, want pods/hello/main.c and pods/hello/util.c", cmds)
	}
	include := filepath.Join(dir, "build", ".cache", "sdk", "c")
	for _, c := range cmds {
		if c.Directory != dir || c.Arguments[len(c.Arguments)-1] != c.File ||
			!slices.Contains(c.Arguments, "-DGREETING=1") || !slices.Contains(c.Arguments, "--target=wasm32-wasi") ||
			!slices.Contains(c.Arguments, include) {
			t.Errorf("entry %+v lacks the build's directory, flags or include directory %s", c, include)
		}
	}
	if _, err := os.Stat(filepath.Join(include, "k32.h")); err != nil {
		t.Errorf("the headers the entries include: %v", err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %q", res.Warnings)
	}

	// Its own file, from other flags, is rewritten.
	testenv.WriteFiles(t, dir, map[string]string{"kube32.yaml": strings.Replace(readFile(t, filepath.Join(dir, "kube32.yaml")), "-DGREETING=1", "-DGREETING=2", 1)})
	if _, err := Build(ctx, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); !strings.Contains(got, "-DGREETING=2") || strings.Contains(got, "-DGREETING=1") {
		t.Errorf("compile_commands.json not rewritten with the new flags:\n%s", got)
	}

	users := `[{"directory": "/src", "file": "a.c", "command": "cc -c a.c"}]` + "\n"
	testenv.WriteFiles(t, dir, map[string]string{compileCommandsFile: users})
	res, err = Build(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != users {
		t.Errorf("the user's compile_commands.json was rewritten:\n%s", got)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "compile_commands.json: left as is") {
		t.Errorf("warnings %q, want one naming compile_commands.json", res.Warnings)
	}
}

// A Cargo file the user wrote (without the generated first line) is left
// alone; the build's own are rewritten.
func TestBuildWritesCargoFilesButNeverTheUsers(t *testing.T) {
	testenv.Tool(t, "rustc")
	ctx := context.Background()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"kube32.yaml":       "name: app\npods:\n  - name: a\n    language: rust\n    source: pods/a\n  - name: b-c\n    language: rust\n    source: pods/b\n",
		"pods/a/src/lib.rs": "#![no_std]\nfn handle() {}\nk32::export!(handle = handle);\n",
		"pods/b/lib.rs":     "fn handle() {}\nk32::export!(handle = handle);\n",
	})
	if _, err := Build(ctx, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	a, b := readFile(t, filepath.Join(dir, "pods/a/Cargo.toml")), readFile(t, filepath.Join(dir, "pods/b/Cargo.toml"))
	for _, want := range []string{generatedMark, `name = "a"`, `path = "src/lib.rs"`, `k32 = { path = "../../build/.cache/sdk/rust" }`} {
		if !strings.Contains(a, want) {
			t.Errorf("pods/a/Cargo.toml lacks %s:\n%s", want, a)
		}
	}
	for _, want := range []string{`name = "b_c"`, `path = "lib.rs"`, `features = ["std"]`} {
		if !strings.Contains(b, want) {
			t.Errorf("pods/b/Cargo.toml lacks %s:\n%s", want, b)
		}
	}
	if ws := readFile(t, filepath.Join(dir, "Cargo.toml")); !strings.Contains(ws, `members = ["pods/a", "pods/b"]`) {
		t.Errorf("the workspace does not list both pods:\n%s", ws)
	}
	if cfg := readFile(t, filepath.Join(dir, ".cargo", "config.toml")); !strings.Contains(cfg, `target = "wasm32-wasi`) {
		t.Errorf(".cargo/config.toml lacks the build's target:\n%s", cfg)
	}

	users := "[package]\nname = \"mine\"\n"
	testenv.WriteFiles(t, dir, map[string]string{"pods/a/Cargo.toml": users})
	res, err := Build(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "pods/a/Cargo.toml")); got != users {
		t.Errorf("the user's Cargo.toml was rewritten:\n%s", got)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "pods/a/Cargo.toml: left as is") {
		t.Errorf("warnings %q, want one naming pods/a/Cargo.toml", res.Warnings)
	}
}

// Ctrl-C during a build ends it as interrupted, not as a failed compiler.
func TestBuildInterruptedSaysInterrupted(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	dir := writePodProject(t, "hello", nil, map[string]string{"main.c": "int x;\n"}, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Build(ctx, dir, Options{Progress: func(s Step) {
		if s.State == StepStarted {
			cancel() // as the signal handler does on Ctrl-C
		}
	}})
	if !errors.Is(err, compile.ErrInterrupted) || err.Error() != "build interrupted" {
		t.Errorf("err = %v, want build interrupted", err)
	}
}
