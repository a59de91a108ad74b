package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/cli/internal/iostreams"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
	"github.com/kube32/kube32/templates"
)

func run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return testserve.Run(t, args...)
}

// newSite makes a project of the static-site template, "site", in a new
// temporary folder that becomes the working one, and returns its path.
func newSite(t *testing.T) string {
	t.Helper()
	t.Chdir(t.TempDir())
	if code, out := run(t, "new", "site", "--template", "static-site"); code != 0 {
		t.Fatalf("new: exit %d: %s", code, out)
	}
	dir, err := filepath.Abs("site")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// newBuiltSite is newSite, built.
func newBuiltSite(t *testing.T) string {
	t.Helper()
	dir := newSite(t)
	if code, out := run(t, "build", "site"); code != 0 {
		t.Fatalf("build: %s", out)
	}
	return dir
}

func TestTemplatesListsEveryTemplate(t *testing.T) {
	code, out := run(t, "templates")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, tmpl := range templates.All {
		if !strings.Contains(out, tmpl.Name) {
			t.Errorf("templates output lacks %s:\n%s", tmpl.Name, out)
		}
	}
}

func TestNewRefusesBadNamesAndExistingFolders(t *testing.T) {
	t.Chdir(t.TempDir())
	if code, out := run(t, "new", "Bad_Name"); code != 2 || !strings.Contains(out, "Bad_Name") {
		t.Errorf("bad name: exit %d: %s", code, out)
	}
	if code, out := run(t, "new", "app", "--template", "cobol"); code == 0 || !strings.Contains(out, `unknown template "cobol"`) {
		t.Errorf("unknown template: exit %d: %s", code, out)
	}
	os.MkdirAll("taken", 0o755)
	os.WriteFile(filepath.Join("taken", "keep.txt"), []byte("mine"), 0o644)
	if code, out := run(t, "new", "taken"); code == 0 || !strings.Contains(out, "not empty") {
		t.Errorf("existing folder: exit %d: %s", code, out)
	}
	if data, _ := os.ReadFile(filepath.Join("taken", "keep.txt")); string(data) != "mine" {
		t.Error("new touched an existing folder")
	}
}

// Each template's app, once built and served, answers GET / with 200
// through the Ingress. The Go app builds with GOPROXY=off: the CLI brings
// its own copy of the Go SDK.
func TestEachTemplateNewBuildServe(t *testing.T) {
	want := map[string]string{
		"go-http":     "hello from app-go-http\nGET /",
		"go-wit":      "hello from app-go-wit\nGET /",
		"c-http":      "hello from app-c-http",
		"rust-http":   "hello from app-rust-http\nGET /",
		"as-http":     "hello from app-as-http\nGET /",
		"static-site": "<h1>app-static-site</h1>",
	}
	for _, tmpl := range templates.All {
		t.Run(tmpl.Name, func(t *testing.T) {
			if tmpl.Language == "go" {
				testenv.Tool(t, "go")
				t.Setenv("GOPROXY", "off")
				t.Setenv("GOFLAGS", "-mod=mod")
			} else if tmpl.Name == "c-http" {
				testenv.Tool(t, "clang")
			} else if tmpl.Name == "rust-http" {
				testenv.Tool(t, "rustc")
			}
			name := "app-" + tmpl.Name
			newApp(t, tmpl.Name, name)
			code, out := run(t, "build", name)
			if code != 0 {
				t.Fatalf("build: exit %d: %s", code, out)
			}
			ios, _, _, stderr := iostreams.Test()
			ios.SetStderrTTY(true) // progress lines show on a terminal only
			if code := cli.Run(context.Background(), []string{"build", name}, ios); code != 0 || !strings.Contains(stderr.String(), "up to date") {
				t.Errorf("second build: exit %d, want 'up to date':\n%s", code, stderr)
			}
			c, _ := serve(t, name)
			status, _, body := get(t, c.IngressURL()+"/")
			if status != 200 || !strings.Contains(body, want[tmpl.Name]) {
				t.Fatalf("GET / = %d %q, want 200 with %q", status, body, want[tmpl.Name])
			}
		})
	}
}

// flash copies the built trees to a firmware tree and to a card.
func TestFlashBothTargets(t *testing.T) {
	dir := buildEcho(t)
	firmware := t.TempDir()
	os.WriteFile(filepath.Join(firmware, "CMakeLists.txt"), []byte("project(board)\n"), 0o644)

	code, out := run(t, "flash", "--firmware", firmware, "--dry-run", dir)
	if code != 0 || !strings.Contains(out, "echo.wasm") {
		t.Fatalf("dry run: exit %d: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(firmware, "images")); !os.IsNotExist(err) {
		t.Fatal("--dry-run wrote files")
	}
	if code, out := run(t, "flash", "--firmware", firmware, dir); code != 0 {
		t.Fatalf("flash: exit %d: %s", code, out)
	}
	built, _ := os.ReadFile(filepath.Join(dir, "build/firmware/images/wasm/echo.wasm"))
	flashed, err := os.ReadFile(filepath.Join(firmware, "images/wasm/echo.wasm"))
	if err != nil || string(built) != string(flashed) {
		t.Fatalf("flashed module differs from the build (%v)", err)
	}

	sdProject := buildEcho(t, "wasm://sd/echo")
	card := t.TempDir()
	if code, out := run(t, "flash", "--sd", card, sdProject); code != 0 {
		t.Fatalf("flash --sd: exit %d: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(card, "kube32/images/echo.wasm")); err != nil {
		t.Fatalf("card lacks kube32/images/echo.wasm: %v", err)
	}
	if code, out := run(t, "flash", "--sd", filepath.Join(card, "missing"), dir); code == 0 || !strings.Contains(out, "missing") {
		t.Errorf("missing card path: exit %d: %s", code, out)
	}
	if code, _ := run(t, "flash", "--sd", card, "--firmware", firmware, dir); code != 2 {
		t.Errorf("both targets: exit %d, want 2 (usage)", code)
	}
}
