package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// staticProject writes a project with one StaticBundle of dir site and
// returns its directory.
func staticProject(t *testing.T, bundleDir string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "app")
	files["kube32.yaml"] = "name: app\nbundles:\n  - name: site\n    dir: " + bundleDir + "\n"
	testenv.WriteFiles(t, dir, files)
	return dir
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// wantBuildError builds dir and checks that it fails naming every want,
// and that neither the bundle nor the secret reached the build tree.
func wantBuildError(t *testing.T, dir string, want ...string) {
	t.Helper()
	_, err := Build(context.Background(), dir, Options{})
	if err == nil {
		t.Fatal("Build succeeded")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "build", "firmware", "images", "web", "site")); err == nil {
		t.Error("the bundle was written")
	}
}

// The case: site/leak.txt -> /etc/passwd was bundled and served.
func TestBuildRefusesASymlinkOutOfTheProject(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "passwd")
	os.WriteFile(secret, []byte("root:x:0:0"), 0o644)
	dir := staticProject(t, "site", map[string]string{"site/index.html": "<h1>hi</h1>"})
	symlink(t, secret, filepath.Join(dir, "site", "leak.txt"))
	wantBuildError(t, dir, "kube32.yaml: bundles[0].dir: site/leak.txt is a symbolic link to "+secret+", outside the project")

	// A relative link that climbs out is the same.
	os.Remove(filepath.Join(dir, "site", "leak.txt"))
	rel, _ := filepath.Rel(filepath.Join(dir, "site", "css"), secret)
	os.MkdirAll(filepath.Join(dir, "site", "css"), 0o755)
	symlink(t, rel, filepath.Join(dir, "site", "css", "leak.css"))
	wantBuildError(t, dir, "site/css/leak.css is a symbolic link to "+rel+", outside the project")
}

func TestBuildRefusesABundleDirOutsideTheProject(t *testing.T) {
	outside := t.TempDir()
	testenv.WriteFiles(t, outside, map[string]string{"index.html": "secret"})
	wantBuildError(t, staticProject(t, outside, map[string]string{}),
		"kube32.yaml: bundles[0].dir: "+outside+" is outside the project directory")

	dir := staticProject(t, "site", map[string]string{})
	symlink(t, outside, filepath.Join(dir, "site"))
	wantBuildError(t, dir, "kube32.yaml: bundles[0].dir: site leads out of the project directory")
}

// Links that stay inside the project are followed to files (the bundle gets
// a copy) and refused to directories.
func TestBuildFollowsSymlinksToFilesInsideTheProject(t *testing.T) {
	dir := staticProject(t, "site", map[string]string{
		"site/index.html":  "<h1>hi</h1>",
		"shared/logo.svg":  "<svg/>",
		"shared/more/a.js": "a",
	})
	symlink(t, filepath.Join("..", "shared", "logo.svg"), filepath.Join(dir, "site", "logo.svg"))
	symlink(t, "index.html", filepath.Join(dir, "site", "home.html"))
	res, err := Build(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(res.BuildDir, "firmware", "images", "web", "site")
	for name, want := range map[string]string{"logo.svg": "<svg/>", "home.html": "<h1>hi</h1>"} {
		info, err := os.Lstat(filepath.Join(out, name))
		if err != nil || !info.Mode().IsRegular() {
			t.Fatalf("%s in the bundle: %v, %v; want a regular file", name, info, err)
		}
		if got, _ := os.ReadFile(filepath.Join(out, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}

	// The stamp covers what a link points to: editing the target rebuilds.
	os.WriteFile(filepath.Join(dir, "shared", "logo.svg"), []byte("<svg>2</svg>"), 0o644)
	if stale, err := stale(dir); err != nil || !stale {
		t.Errorf("stale after editing a link's target = %v, %v", stale, err)
	}

	// Refused: a link to a directory, and an absolute link even inside.
	symlink(t, filepath.Join("..", "shared", "more"), filepath.Join(dir, "site", "more"))
	_, err = Build(context.Background(), dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "site/more is a symbolic link to the directory ../shared/more; only links to files are followed") {
		t.Errorf("Build with a link to a directory = %v", err)
	}
	os.Remove(filepath.Join(dir, "site", "more"))
	abs := filepath.Join(dir, "shared", "logo.svg")
	symlink(t, abs, filepath.Join(dir, "site", "abs.svg"))
	_, err = Build(context.Background(), dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "site/abs.svg is a symbolic link to the absolute path "+abs+"; only relative links are followed") {
		t.Errorf("Build with an absolute link = %v", err)
	}
}

// A pod's assets are bundled the same way (C pod: needs clang).
func TestBuildRefusesAnAssetSymlinkOutOfTheProject(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	dir := copyFixture(t, "app")
	secret := filepath.Join(t.TempDir(), "passwd")
	os.WriteFile(secret, []byte("root:x:0:0"), 0o644)
	symlink(t, secret, filepath.Join(dir, "pods", "hello", "web", "leak.txt"))
	_, err := Build(context.Background(), dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "kube32.yaml: pods[0].assets: pods/hello/web/leak.txt is a symbolic link to "+secret+", outside the project") {
		t.Fatalf("Build = %v", err)
	}
}
