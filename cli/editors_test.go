package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/templates"
)

// Every template leaves kube32 build's output, and the editor files it
// writes with this machine's paths, out of git.
func TestEveryTemplateWritesAGitignore(t *testing.T) {
	generated := map[string][]string{
		"c-http":    {"/compile_commands.json"},
		"rust-http": {"/Cargo.toml", "/Cargo.lock", "/.cargo/", "/pods/*/Cargo.toml"},
		"go-http":   {"/.kube32/"},
		"go-wit":    {"/.kube32/"},
	}
	t.Chdir(t.TempDir())
	for _, tmpl := range templates.All {
		if code, out := run(t, "new", tmpl.Name, "--template", tmpl.Name); code != 0 {
			t.Fatalf("new: exit %d: %s", code, out)
		}
		data, err := os.ReadFile(filepath.Join(tmpl.Name, ".gitignore"))
		if err != nil {
			t.Errorf("%s: %v", tmpl.Name, err)
			continue
		}
		lines := strings.Split(string(data), "\n")
		for _, want := range append(generated[tmpl.Name], "/build/") {
			if !slices.Contains(lines, want) {
				t.Errorf("%s's .gitignore lacks the line %s:\n%s", tmpl.Name, want, data)
			}
		}
	}
}

// newBuilt runs kube32 new and kube32 build for a template in a temporary
// folder and returns the project's absolute path.
func newBuilt(t *testing.T, template string) string {
	t.Helper()
	t.Chdir(t.TempDir())
	if code, out := run(t, "new", "app", "--template", template); code != 0 {
		t.Fatalf("new: exit %d: %s", code, out)
	}
	if code, out := run(t, "build", "app"); code != 0 {
		t.Fatalf("build: exit %d: %s", code, out)
	}
	root, err := filepath.Abs("app")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// clangd, given the compile_commands.json of kube32 build, resolves every
// symbol of the C template's pod; without it, it finds not even k32.h.
func TestCTemplateClangdResolvesEverySymbol(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld", "clangd")
	root := newBuilt(t, "c-http")
	src := filepath.Join(root, "pods", "app", "main.c")
	clangd := func(dbDir string) (string, error) {
		out, err := exec.Command("clangd", "--check="+src, "--compile-commands-dir="+dbDir).CombinedOutput()
		return string(out), err
	}
	if out, err := clangd(root); err != nil || !strings.Contains(out, "All checks completed, 0 errors") {
		t.Errorf("clangd --check with the build's compile_commands.json: %v\n%s", err, out)
	}
	if out, err := clangd(t.TempDir()); err == nil || !strings.Contains(out, "'k32.h' file not found") {
		t.Errorf("clangd --check without compile_commands.json: %v, want k32.h not found\n%s", err, out)
	}
}

// debianCargo is Debian's cargo, which CI installs (a rustup cargo first on
// PATH may be far newer than the Debian rustc the build uses), else the
// cargo on PATH.
func debianCargo(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/cargo"); err == nil {
		return "/usr/bin/cargo"
	}
	return testenv.Tool(t, "cargo")
}

// cargo check, with the Cargo files of kube32 build, resolves every symbol
// of the Rust template's pod for the build's WASI target, offline; a
// symbol the k32 crate lacks fails it, named from the project root.
func TestRustTemplateCargoCheckResolvesEverySymbol(t *testing.T) {
	testenv.Tool(t, "rustc")
	cargo := debianCargo(t)
	root := newBuilt(t, "rust-http")
	check := func() (string, error) {
		cmd := exec.Command(cargo, "check", "--offline")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := check(); err != nil {
		t.Fatalf("cargo check: %v\n%s", err, out)
	}
	lib := filepath.Join(root, "pods", "app", "src", "lib.rs")
	src, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFiles(t, root, map[string]string{"pods/app/src/lib.rs": string(src) + "\npub fn broken() { k32::no_such_function(); }\n"})
	if out, err := check(); err == nil || !strings.Contains(out, "no_such_function") || !strings.Contains(out, "pods/app/src/lib.rs") {
		t.Errorf("cargo check of a pod calling k32::no_such_function: %v, want an error naming pods/app/src/lib.rs\n%s", err, out)
	}

	// Without #![no_std] the pod gets the k32 crate with its std feature,
	// and cargo check the standard library of the target.
	std := strings.Replace(string(src), "#![no_std]\n", "", 1)
	if std == string(src) {
		t.Fatal("the template's pod does not say #![no_std]")
	}
	testenv.WriteFiles(t, root, map[string]string{"pods/app/src/lib.rs": std + "\npub fn text() -> std::string::String { k32::request::path() }\n"})
	if code, out := run(t, "build", root); code != 0 {
		t.Fatalf("build of the std pod: exit %d: %s", code, out)
	}
	if out, err := check(); err != nil {
		t.Errorf("cargo check of the std pod: %v\n%s", err, out)
	}
}
