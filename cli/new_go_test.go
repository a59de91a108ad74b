package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// goTool runs the real go command in dir offline, with the environment an
// editor or a shell would have in a generated project: no workspace file,
// GOFLAGS=-mod=mod, no network.
func goTool(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	cmd.Env = append(cmd.Env, env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("(cd %s && %s go %s): %v\n%s", dir, strings.Join(env, " "), strings.Join(args, " "), err, out)
	}
}

// A Go pod from `kube32 new` works with the Go toolchain itself (go vet,
// go test, go build for wasip1, and so gopls) before any kube32 build; a
// checkout without the generated SDK copy gets it back from kube32 build,
// which builds against that same copy.
func TestGoTemplateWorksWithTheGoToolchain(t *testing.T) {
	testenv.Tool(t, "go")
	t.Setenv("GOPROXY", "off")
	t.Chdir(t.TempDir())
	if code, out := run(t, "new", "hello", "--template", "go-http"); code != 0 || !strings.Contains(out, filepath.Join("hello", ".kube32", "sdk", "go")) {
		t.Fatalf("new: exit %d: %s", code, out)
	}
	if ignore, err := os.ReadFile(filepath.Join("hello", ".gitignore")); err != nil || !strings.Contains(string(ignore), "/.kube32/") {
		t.Errorf(".gitignore lacks /.kube32/ (%v):\n%s", err, ignore)
	}
	pod := filepath.Join("hello", "pods", "hello")
	wasip1 := []string{"GOOS=wasip1", "GOARCH=wasm"}
	goTool(t, pod, wasip1, "vet", "./...")
	goTool(t, pod, wasip1, "build", "-buildmode=c-shared", "-o", filepath.Join(t.TempDir(), "hello.wasm"), ".")
	goTool(t, pod, nil, "vet", "./...")
	goTool(t, pod, nil, "test", "./...")

	// As after a fresh clone: the SDK copy is ignored by git, so it is gone.
	if err := os.RemoveAll(filepath.Join("hello", ".kube32")); err != nil {
		t.Fatal(err)
	}
	if code, out := run(t, "build", "hello"); code != 0 {
		t.Fatalf("build: exit %d: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join("hello", "build", "firmware", "images", "wasm", "hello.wasm")); err != nil {
		t.Fatalf("build wrote no module: %v", err)
	}
	work, err := os.ReadFile(filepath.Join("hello", "build", ".cache", "go", "hello", "go.work"))
	if err != nil || !strings.Contains(string(work), filepath.ToSlash(filepath.Join(".kube32", "sdk", "go"))) {
		t.Errorf("kube32 build's go.work does not use the project's SDK copy (%v):\n%s", err, work)
	}
	goTool(t, pod, wasip1, "vet", "./...")
}
