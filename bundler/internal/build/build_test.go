package build

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// copyFixture copies testdata/<name> into a temporary directory, so builds
// never write into testdata.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// tree lists the files under build/firmware and build/sd.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	build := filepath.Join(dir, "build")
	for _, root := range []string{"firmware", "sd"} {
		filepath.WalkDir(filepath.Join(build, root), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(build, p)
				out = append(out, filepath.ToSlash(rel))
			}
			return err
		})
	}
	return out
}

func modTimes(t *testing.T, dir string) map[string]time.Time {
	m := map[string]time.Time{}
	for _, f := range tree(t, dir) {
		info, err := os.Stat(filepath.Join(dir, "build", f))
		if err != nil {
			t.Fatal(err)
		}
		m[f] = info.ModTime()
	}
	return m
}

func TestBuildWritesImageTrees(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	ctx := context.Background()
	dir := copyFixture(t, "app")
	if stale, err := stale(dir); err != nil || !stale {
		t.Errorf("Stale before any build = %v, %v; want true", stale, err)
	}
	var progress bytes.Buffer
	lines := func(s Step) { fmt.Fprintln(&progress, s) }
	res, err := Build(ctx, dir, Options{Progress: lines})
	if err != nil {
		t.Fatalf("Build: %v\n%s", err, progress.String())
	}
	got := strings.Join(tree(t, dir), "\n")
	want := strings.Join([]string{
		"firmware/images/wasm/hello.wasm",
		"firmware/images/web/hello/index.html",
		"firmware/images/web/hello/index.html.gz",
		"firmware/images/web/site/css/style.css.gz",
		"firmware/images/web/site/index.html.gz",
		"firmware/images/web/site/tiny.txt",
		"sd/kube32/images/thumb.wasm",
	}, "\n")
	if got != want {
		t.Errorf("build tree:\n%s\nwant:\n%s", got, want)
	}

	hello := res.Items[0]
	if hello.Name != "hello" || hello.MemoryLimit != 64<<10 || hello.InitialMemory != 64<<10 || hello.ModuleBytes == 0 {
		t.Errorf("hello item %+v: want a one-page module under a 64Ki limit", hello)
	}
	if hello.Module != "firmware/images/wasm/hello.wasm" || hello.Bundle != "firmware/images/web/hello" {
		t.Errorf("hello paths %q %q", hello.Module, hello.Bundle)
	}
	site := res.Items[2]
	if site.Kind != KindBundle || site.Stats.Files != 3 || site.Stats.GzipBytes >= site.Stats.RawBytes {
		t.Errorf("site item %+v", site)
	}
	text := progress.String()
	for _, want := range []string{"pod hello: building (c)…\npod hello: built build/firmware/images/wasm/hello.wasm\n",
		"pod hello assets: building…\n", "pod hello assets: built build/firmware/images/web/hello\n", "bundle site: built build/firmware/images/web/site\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("progress does not contain %q:\n%s", want, text)
		}
	}
	if len(res.Warnings) != 0 || len(res.Removed) != 0 {
		t.Errorf("first build: warnings %q, removed %q; want none", res.Warnings, res.Removed)
	}

	// serve reads the trees through images.ResolveModule.
	wasm, assets, err := images.ResolveModule(os.DirFS(res.BuildDir), "wasm://embedded/hello")
	if err != nil || len(wasm) != int(hello.ModuleBytes) || assets == nil {
		t.Fatalf("ResolveModule: %d bytes, assets %v, %v", len(wasm), assets, err)
	}
	if _, err := fs.Stat(assets, "index.html.gz"); err != nil {
		t.Errorf("assets: %v", err)
	}

	// A second build rewrites nothing.
	before := modTimes(t, dir)
	if stale, err := stale(dir); err != nil || stale {
		t.Errorf("Stale after a build = %v, %v", stale, err)
	}
	progress.Reset()
	res2, err := Build(ctx, dir, Options{Progress: lines})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res2.Items {
		if !it.UpToDate {
			t.Errorf("%s %s rebuilt", it.Kind, it.Name)
		}
	}
	if res2.Items[0].ModuleBytes != hello.ModuleBytes || res2.Items[2].Stats != site.Stats {
		t.Errorf("up-to-date sizes differ: %+v", res2.Items)
	}
	for _, want := range []string{"pod hello: up to date", "pod hello assets: up to date", "pod thumb: up to date", "bundle site: up to date"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("second build progress lacks %q:\n%s", want, progress.String())
		}
	}
	if strings.Contains(progress.String(), "building") {
		t.Errorf("an up-to-date build says it builds:\n%s", progress.String())
	}
	for f, mt := range modTimes(t, dir) {
		if !before[f].Equal(mt) {
			t.Errorf("%s rewritten by an up-to-date build", f)
		}
	}

	// Changing one input rebuilds only its output.
	if err := os.WriteFile(filepath.Join(dir, "site", "tiny.txt"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if stale, _ := stale(dir); !stale {
		t.Error("Stale = false after a source change")
	}
	res3, err := Build(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res3.Items[0].UpToDate || res3.Items[2].UpToDate {
		t.Errorf("after editing the site: hello up to date %v (want true), site %v (want false)", res3.Items[0].UpToDate, res3.Items[2].UpToDate)
	}

	// A deleted output is noticed.
	os.Remove(filepath.Join(dir, "build", "sd", "kube32", "images", "thumb.wasm"))
	if stale, _ := stale(dir); !stale {
		t.Error("Stale = false with a module missing")
	}

	// Dropping a pod removes its outputs.
	yaml, _ := os.ReadFile(filepath.Join(dir, "kube32.yaml"))
	yaml = bytes.Replace(yaml, []byte("  - name: thumb\n    language: c\n    source: pods/thumb\n    image: wasm://sd/thumb\n"), nil, 1)
	os.WriteFile(filepath.Join(dir, "kube32.yaml"), yaml, 0o644)
	os.WriteFile(filepath.Join(dir, "build", "firmware", "images", "wasm", "old.wasm"), []byte("x"), 0o644)
	res4, err := Build(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res4.Removed, " "); got != "firmware/images/wasm/old.wasm" {
		t.Errorf("Removed = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "build", "sd", "kube32", "images")); err != nil {
		t.Errorf("the empty SD tree must stay: %v", err)
	}
}

func TestBuildUnknownImportNamesPodAndImport(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	dir := copyFixture(t, "badimport")
	_, err := Build(context.Background(), dir, Options{})
	if err == nil {
		t.Fatal("Build succeeded")
	}
	for _, want := range []string{"pod bad", "k32.k32_teleport"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if _, serr := os.Stat(filepath.Join(dir, "build", "firmware", "images", "wasm", "bad.wasm")); serr == nil {
		t.Error("a module that failed the check was written")
	}
	t.Log(err)
}

func TestBuildGoPodOffline(t *testing.T) {
	testenv.Tools(t, "go")
	dir := copyFixture(t, "goapp")
	t.Setenv("GOPROXY", "https://proxy.invalid") // must be overridden by GOPROXY=off
	t.Setenv("GOFLAGS", "-mod=mod")              // must be dropped: workspaces refuse it
	res, err := Build(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tree(t, dir), " "); got != "sd/kube32/images/api.wasm" {
		t.Errorf("tree %q", got)
	}
	if res.Items[0].ModuleBytes == 0 {
		t.Error("empty module")
	}
}

func TestWarnsAboutUnbuiltImages(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	dir := copyFixture(t, "app")
	f, _ := os.OpenFile(filepath.Join(dir, "app.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: typo\nspec:\n  containers:\n    - name: c\n      image: wasm://embedded/helo\n")
	f.Close()
	res, err := Build(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"default/typo runs image wasm://embedded/helo, which no pod of kube32.yaml builds"}
	if !slices.Equal(res.Warnings, want) {
		t.Errorf("Warnings = %q, want %q", res.Warnings, want)
	}
}
