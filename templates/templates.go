// Package templates holds the app templates of `kube32 new`, embedded in the
// binary so that scaffolding needs no git and no network.
//
// A template is a folder of files ending in .tmpl, rendered with text/template
// and written without the suffix; "__name__" in a path becomes the app name.
package templates

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/template"

	assdk "github.com/kube32/kube32/sdk/assemblyscript"
)

//go:embed all:go-http all:go-wit all:c-http all:rust-http all:as-http all:static-site
var files embed.FS

// Template is one app template.
type Template struct {
	Name        string
	Description string
	// Language is that of the pod the template makes, as kube32.yaml
	// names it; "" for a template without a pod. kube32 add takes a pod
	// template by it.
	Language string
}

// All lists the templates; the first is the default.
var All = []Template{
	{Name: "go-http", Description: "Go pod (Go SDK) behind a Service and an Ingress", Language: "go"},
	{Name: "go-wit", Description: "Go pod on Go bindings generated from the WIT world kube32:app/pod (`kube32 wit`)", Language: "go"},
	{Name: "c-http", Description: "C pod in one 64 KiB page behind a Service and an Ingress", Language: "c"},
	{Name: "rust-http", Description: "Rust pod (no_std) in one 64 KiB page behind a Service and an Ingress", Language: "rust"},
	{Name: "as-http", Description: "AssemblyScript pod in one 64 KiB page behind a Service and an Ingress (asc from npm)", Language: "assemblyscript"},
	{Name: "static-site", Description: "static site served from a StaticBundle by the Ingress"},
}

// Data is what templates see.
type Data struct {
	Name string // the app name, a DNS label
	// Prefix is the path the app's Ingress routes, "" for the whole host:
	// kube32 add routes an added pod or bundle at /<name>.
	Prefix string
}

// AssemblyScriptVersion is the assemblyscript release a template's
// package.json pins: the one the SDK is written for.
func (d Data) AssemblyScriptVersion() string { return assdk.Version }

// Path is the Ingress path of the app: Prefix, or "/" when it is "".
func (d Data) Path() string {
	if d.Prefix == "" {
		return "/"
	}
	return d.Prefix
}

// Render writes template name into dir, which must not exist or be empty.
// It returns the paths written, relative to dir.
func Render(name, dir string, data Data) ([]string, error) {
	if !known(name) {
		return nil, fmt.Errorf("unknown template %q (see `kube32 templates`)", name)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s already exists and is not empty: choose another name or directory", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var written []string
	err := walk(name, data, func(out string, content []byte) error {
		target := filepath.Join(dir, filepath.FromSlash(out))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, content, 0o644); err != nil {
			return err
		}
		written = append(written, out)
		return nil
	})
	return written, err
}

// File is one rendered file of a template.
type File struct {
	Path    string // slash-separated, relative to the app folder
	Content []byte
}

// Files renders template name without writing anything, in the order
// Render writes: kube32 add takes the files it needs from them.
func Files(name string, data Data) ([]File, error) {
	if !known(name) {
		return nil, fmt.Errorf("unknown template %q (see `kube32 templates`)", name)
	}
	var out []File
	err := walk(name, data, func(p string, content []byte) error {
		out = append(out, File{Path: p, Content: content})
		return nil
	})
	return out, err
}

// walk renders each file of template name and passes it to f with its
// output path.
func walk(name string, data Data, f func(out string, content []byte) error) error {
	root, err := fs.Sub(files, name)
	if err != nil {
		return err
	}
	return fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		content, err := render(root, p, data)
		if err != nil {
			return err
		}
		return f(strings.ReplaceAll(strings.TrimSuffix(p, ".tmpl"), "__name__", data.Name), content)
	})
}

func render(root fs.FS, p string, data Data) ([]byte, error) {
	raw, err := fs.ReadFile(root, p)
	if err != nil {
		return nil, err
	}
	if path.Ext(p) != ".tmpl" {
		return raw, nil
	}
	t, err := template.New(p).Option("missingkey=error").Parse(string(raw))
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", p, err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("template %s: %w", p, err)
	}
	return buf.Bytes(), nil
}

func known(name string) bool {
	_, ok := Lookup(name)
	return ok
}

// Lookup finds a template by name.
func Lookup(name string) (Template, bool) {
	for _, t := range All {
		if t.Name == name {
			return t, true
		}
	}
	return Template{}, false
}
