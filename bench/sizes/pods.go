package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kube32/kube32/bundler"

	"github.com/kube32/kube32/cli"
)

// pod is a row of the module table: a project made with `kube32 new`,
// whose one pod is named app, changed by edit.
type pod struct {
	label, name string // the row, and its name in report lines
	template    string
	edit        func(root, dir string) error // nil: the template as it is
}

var pods = []pod{
	{"C", "c", "c-http", nil},
	{"Rust no_std", "rust", "rust-http", nil},
	{"Rust std", "rust-std", "rust-http", rustStd},
	{"Go", "go", "go-http", nil},
	{"Go with k32http", "go-k32http", "go-http", goK32http},
	{"AssemblyScript", "assemblyscript", "as-http", npmInstall},
}

// npmInstall installs the compiler that the AssemblyScript template's
// package.json pins, as the template's kube32.yaml tells its user to.
func npmInstall(_, dir string) error {
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefer-offline")
	cmd.Dir = filepath.Join(dir, "pods", "app")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install in pods/app: %v\n%s", err, out)
	}
	return nil
}

// rustStd opts the Rust template's pod into std as docs/rust.md says (a
// crate root without #![no_std]) and gives it the 1 MiB that std needs.
func rustStd(_, dir string) error {
	if err := replaceIn(filepath.Join(dir, "pods/app/src/lib.rs"), "#![no_std]\n", ""); err != nil {
		return err
	}
	return replaceIn(filepath.Join(dir, "app.yaml"), "memory: 64Ki", "memory: 1Mi")
}

// goK32http makes the Go template's pod the SDK's net/http test pod
// (sdk/testdata/gohttppod): a ServeMux served with k32http.
func goK32http(root, dir string) error {
	src, err := os.ReadFile(filepath.Join(root, "sdk/testdata/gohttppod/main.go"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "pods/app/main.go"), src, 0o644)
}

// replaceIn replaces old, which must be there, with new in the file.
func replaceIn(file, old, new string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), old) {
		return fmt.Errorf("%s: no %q to replace", file, old)
	}
	return os.WriteFile(file, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
}

// moduleRow is a pod's module as both builds made it.
type moduleRow struct {
	label, name    string
	debug, release built
}

// measure makes the pod's project under work and builds it, default then
// release.
func (p pod) measure(ctx context.Context, root, work string) (moduleRow, error) {
	dir := filepath.Join(work, p.name)
	quiet := cli.IOStreams{In: os.Stdin, Out: io.Discard, ErrOut: io.Discard}
	if code := cli.Run(context.Background(), []string{"new", "app", "--template", p.template, "--dir", dir}, quiet); code != 0 {
		return moduleRow{}, fmt.Errorf("kube32 new --template %s: exit %d", p.template, code)
	}
	if p.edit != nil {
		if err := p.edit(root, dir); err != nil {
			return moduleRow{}, err
		}
	}
	row := moduleRow{label: p.label, name: p.name}
	for _, release := range []bool{false, true} {
		res, err := bundler.Build(ctx, dir, bundler.BuildOptions{Release: release, Progress: progress(p.label, release)})
		if err != nil {
			return moduleRow{}, err
		}
		m, err := onlyPod(res)
		if err != nil {
			return moduleRow{}, err
		}
		if release {
			row.release = m
		} else {
			row.debug = m
		}
	}
	return row, nil
}

// onlyPod is the module of the one pod a build made.
func onlyPod(res *bundler.BuildResult) (built, error) {
	var found []bundler.Item
	for _, it := range res.Items {
		if it.Kind == bundler.KindPod {
			found = append(found, it)
		}
	}
	if len(found) != 1 {
		return built{}, fmt.Errorf("the build made %d pods, want 1", len(found))
	}
	return built{module: found[0].ModuleBytes, memory: found[0].InitialMemory}, nil
}
