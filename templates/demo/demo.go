// Package demo is the built-in demo that `kube32 serve` runs where there is
// no project: the echo pod of examples/echo and a page that talks to it. Its
// image trees are built from examples/demo and embedded, so the demo runs on a
// machine with nothing but Go installed; `go generate ./templates/demo`
// rebuilds them, and a test fails when they are stale.
package demo

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"io/fs"
	"path"
	"sync"

	"github.com/kube32/kube32/host/apis/manifest"
)

//go:generate go run ./internal/regenerate

// archive holds images/ and manifests/ in one file, so the demo's sources
// live only in examples/demo.
//
//go:embed demo.zip
var archive []byte

var files = sync.OnceValue(func() fs.FS {
	r, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		panic(err) // the embedded archive is fixed at compile time
	}
	return r
})

// Images holds the demo's firmware/ (and sd/) trees, as `kube32 build` writes them.
func Images() fs.FS {
	sub, err := fs.Sub(files(), "images")
	if err != nil {
		panic(err) // the embedded tree is fixed at compile time
	}
	return sub
}

// Manifests are the demo's objects, in the order of its project file.
func Manifests() ([]manifest.Object, error) {
	entries, err := fs.ReadDir(files(), "manifests")
	if err != nil {
		return nil, err
	}
	var objs []manifest.Object
	for _, e := range entries { // ReadDir sorts by name: 1-echo.yaml, 2-demo.yaml
		data, err := fs.ReadFile(files(), path.Join("manifests", e.Name()))
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
