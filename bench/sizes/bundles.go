package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/kube32/kube32/bundler"
)

// spa is a row of the bundle table: the site of an example app, built as
// the one StaticBundle of a project of its own (its pods are measured in
// the module table).
type spa struct {
	label, name string
	site        string // relative to the repository
}

var spas = []spa{
	{"examples/spa", "spa", "examples/spa/site"},
	{"examples/demo", "demo", "examples/demo/site"},
}

// bundleRow is what a client accepting gzip downloads of a bundle, as each
// way of compressing it makes it; -1 for a tool that is not installed.
type bundleRow struct {
	label, name    string
	files          int
	raw            int64
	debug, release int64 // kube32 build, kube32 build --release
	gzip9, zopfli  int64
}

// measure builds the site's bundle, default then release, and compresses
// each of its files with gzip -9 and zopfli.
func (s spa) measure(ctx context.Context, root, work string) (bundleRow, error) {
	src := filepath.Join(root, s.site)
	dir := filepath.Join(work, "bundle-"+s.name)
	if err := os.CopyFS(filepath.Join(dir, "site"), os.DirFS(src)); err != nil {
		return bundleRow{}, err
	}
	yaml := fmt.Sprintf("name: %s\nbundles:\n  - name: %s\n    dir: site\n", s.name, s.name)
	if err := os.WriteFile(filepath.Join(dir, "kube32.yaml"), []byte(yaml), 0o644); err != nil {
		return bundleRow{}, err
	}
	row := bundleRow{label: s.label, name: s.name}
	for _, release := range []bool{false, true} {
		res, err := bundler.Build(ctx, dir, bundler.BuildOptions{Release: release, Progress: progress(s.label, release)})
		if err != nil {
			return bundleRow{}, err
		}
		if len(res.Items) != 1 || res.Items[0].Kind != bundler.KindBundle {
			return bundleRow{}, fmt.Errorf("the build made %d items, want the one bundle", len(res.Items))
		}
		st := res.Items[0].Stats
		row.files, row.raw = st.Files, st.RawBytes
		if release {
			row.release = st.GzipBytes
		} else {
			row.debug = st.GzipBytes
		}
	}
	var err error
	if row.gzip9, err = served(src, "gzip", "-9", "-c"); err != nil {
		return bundleRow{}, err
	}
	if row.zopfli, err = served(src, "zopfli", "-c"); err != nil {
		return bundleRow{}, err
	}
	return row, nil
}

// served sums, over the files under dir, the smaller of each file and what
// tool with args writes of it on standard output; -1 when tool is not
// installed.
func served(dir, tool string, args ...string) (int64, error) {
	path, err := exec.LookPath(tool)
	if err != nil {
		return -1, nil
	}
	var total int64
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out, err := exec.Command(path, append(args, p)...).Output()
		if err != nil {
			return fmt.Errorf("%s %s: %w", tool, p, err)
		}
		total += min(info.Size(), int64(len(out)))
		return nil
	})
	return total, err
}
