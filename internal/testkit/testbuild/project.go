// Package testbuild builds kube32 projects for tests that only need their
// build output to serve (an example's modules and bundles), through the
// fixture cache of internal/testkit/testenv. Tests whose purpose is the build
// itself (bundler/internal/build, cli, examples) build with the bundler or the CLI
// directly.
package testbuild

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kube32/kube32/bundler"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// Project builds a copy of the project in src as `kube32 build` does
// (bundler.Build with default options), and returns a fresh copy of its
// build directory, without the build's .cache, that the test may change.
//
// The build output is cached under the hash of the project's files, of
// this checkout's code (every non-test Go file of the module, go.mod,
// go.sum and the SDKs), and of the compilers on PATH, so any change to the
// bundler or a compiler builds it again.
func Project(t testing.TB, src string) string {
	t.Helper()
	src, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	key := testenv.NewKey(t, "project").Add("go", runtime.Version()).
		Tree(src, func(rel string, isDir bool) bool { return rel != bundler.BuildDirName }).
		File(filepath.Join(testenv.ModuleRoot, "go.mod")).File(filepath.Join(testenv.ModuleRoot, "go.sum")).
		Tree(testenv.ModuleRoot, moduleCode).
		Tree(filepath.Join(testenv.ModuleRoot, "sdk"), func(rel string, isDir bool) bool {
			return isDir || !strings.HasSuffix(rel, "_test.go")
		})
	for _, tool := range [][]string{{"clang", "--version"}, {"go", "version"}, {"rustc", "--version"}, {"cargo", "--version"}, {"wasm-opt", "--version"}} {
		if p, err := exec.LookPath(tool[0]); err == nil {
			key.Tool(p, tool[1:]...)
		} else {
			key.Add("tool "+tool[0], "none")
		}
	}
	archive := testenv.Cached(t, key, isTar, func() ([]byte, error) {
		dir, err := os.MkdirTemp("", "kube32-testbuild-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			return nil, err
		}
		os.RemoveAll(filepath.Join(dir, bundler.BuildDirName))
		res, err := bundler.Build(context.Background(), dir, bundler.BuildOptions{})
		if err != nil {
			return nil, fmt.Errorf("building %s: %w", src, err)
		}
		return tarDir(res.BuildDir)
	})
	out := filepath.Join(t.TempDir(), bundler.BuildDirName)
	if err := untar(archive, out); err != nil {
		t.Fatalf("fixture cache: %v", err)
	}
	return out
}

// moduleCode keeps the module's non-test Go files, outside testdata.
func moduleCode(rel string, isDir bool) bool {
	if isDir {
		return filepath.Base(rel) != "testdata"
	}
	return strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
}

// tarDir archives the files of dir, but its .cache.
func tarDir(dir string) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir() && d.Name() == ".cache":
			return filepath.SkipDir
		case rel == "." || !(d.IsDir() || d.Type().IsRegular()):
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// untar writes the archive's files under dir.
func untar(archive []byte, dir string) error {
	tr := tar.NewReader(bytes.NewReader(archive))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !filepath.IsLocal(hdr.Name) {
			return fmt.Errorf("archive entry %q is outside the build directory", hdr.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		if hdr.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
}

// isTar reports whether b reads as a whole tar archive.
func isTar(b []byte) bool {
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		_, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			return false
		}
		if _, err := io.Copy(io.Discard, tr); err != nil {
			return false
		}
	}
}
