package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/cli/internal/iostreams"
)

// From a subfolder of a project, build, serve and flash find its
// kube32.yaml upward, as git and go find theirs, and say which one.
func TestCommandsFindTheProjectFromASubfolder(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	if code, out := run(t, "new", "site", "--template", "static-site"); code != 0 {
		t.Fatalf("new: %s", out)
	}
	project := filepath.Join(root, "site")
	sub := filepath.Join(project, "site", "drafts")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	using := "using " + filepath.Join(project, "kube32.yaml") + "\n"

	ios, _, stdout, stderr := iostreams.Test()
	if code := cli.Run(context.Background(), []string{"build"}, ios); code != 0 {
		t.Fatalf("build from a subfolder: exit %d\n%s", code, stderr)
	}
	if !strings.HasPrefix(stderr.String(), using) || !strings.Contains(stdout.String(), "bundle\tsite\t") {
		t.Errorf("build from a subfolder: stderr %q lacks %q first, or stdout lacks the bundle:\n%s", stderr, using, stdout)
	}
	if _, err := os.Stat(filepath.Join(project, "build", "firmware", "images", "web", "site", "index.html")); err != nil {
		t.Errorf("build did not write the project's build/: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sub, "build")); !os.IsNotExist(err) {
		t.Errorf("build wrote build/ in the subfolder (%v)", err)
	}

	c, out := serve(t)
	for _, want := range []string{using, "Serving app site from " + project} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("serve from a subfolder: output lacks %q:\n%s", want, out)
		}
	}
	if status, _, body := get(t, c.IngressURL()+"/"); status != 200 || strings.Contains(body, "kube32 demo") {
		t.Errorf("serve from a subfolder: GET / = %d, want the site, not the demo:\n%s", status, body)
	}

	firmware := t.TempDir()
	os.WriteFile(filepath.Join(firmware, "CMakeLists.txt"), []byte("project(board)\n"), 0o644)
	ios, _, stdout, stderr = iostreams.Test()
	if code := cli.Run(context.Background(), []string{"flash", "--firmware", firmware}, ios); code != 0 {
		t.Fatalf("flash from a subfolder: exit %d\n%s", code, stderr)
	}
	if !strings.HasPrefix(stderr.String(), using) {
		t.Errorf("flash from a subfolder: stderr %q lacks %q first", stderr, using)
	}
	if _, err := os.Stat(filepath.Join(firmware, "images", "web", "site", "index.html")); err != nil {
		t.Errorf("flash from a subfolder did not copy the site: %v\n%s", err, stdout)
	}

	// In the project's own folder nothing is said about where it is.
	t.Chdir(project)
	ios, _, _, stderr = iostreams.Test()
	if code := cli.Run(context.Background(), []string{"build"}, ios); code != 0 || strings.Contains(stderr.String(), "using ") {
		t.Errorf("build in the project folder: exit %d, stderr %q", code, stderr)
	}
}

// Outside any project build says where it looked, and an explicit DIR is
// not searched upward.
func TestBuildOutsideAProjectSaysWhereItLooked(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, out := run(t, "build")
	if code != 1 || !strings.Contains(out, "no kube32.yaml found in "+dir+" or any parent folder") {
		t.Errorf("build outside a project: exit %d: %s", code, out)
	}

	os.WriteFile("kube32.yaml", []byte("name: outer\n"), 0o644)
	os.Mkdir("inner", 0o755)
	code, out = run(t, "build", "inner")
	if code != 1 || !strings.Contains(out, "inner: no kube32.yaml here") {
		t.Errorf("build of an explicit DIR without kube32.yaml: exit %d: %s", code, out)
	}
}
