// Package demo is the built-in demo that `kube32 serve` runs where there is
// no project: the spec's echo pod and a page that talks to it. Its image
// trees are built from examples/demo and embedded, so the demo runs on a
// machine with nothing but Go installed; `go generate ./templates/demo`
// rebuilds them, and a test fails when they are stale.
package demo

import (
	"embed"
	"io/fs"
	"path"

	"github.com/kube32/kube32/host/manifest"
)

//go:generate go run ./internal/regenerate

//go:embed all:images manifests
var files embed.FS

// Images holds the demo's firmware/ (and sd/) trees, as `kube32 build` writes them.
func Images() fs.FS {
	sub, err := fs.Sub(files, "images")
	if err != nil {
		panic(err) // the embedded tree is fixed at compile time
	}
	return sub
}

// Manifests are the demo's objects, in the order of its project file.
func Manifests() ([]manifest.Object, error) {
	entries, err := fs.ReadDir(files, "manifests")
	if err != nil {
		return nil, err
	}
	var objs []manifest.Object
	for _, e := range entries { // ReadDir sorts by name: 1-echo.yaml, 2-demo.yaml
		data, err := fs.ReadFile(files, path.Join("manifests", e.Name()))
		if err != nil {
			return nil, err
		}
		decoded, err := manifest.Decode("demo/"+e.Name(), data)
		if err != nil {
			return nil, err
		}
		objs = append(objs, decoded...)
	}
	return objs, nil
}
