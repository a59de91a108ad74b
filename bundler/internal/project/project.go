package project

import (
	"path/filepath"

	"github.com/kube32/kube32/abi/images"
)

// FileName is the name of the project file in a project directory.
const FileName = "kube32.yaml"

// Project is a decoded and validated kube32.yaml.
type Project struct {
	// Dir is the absolute project directory; relative paths are resolved
	// against it.
	Dir string `json:"-"`

	Name string `json:"name"`
	// Board names the profile of abi.Boards that the app targets; "" for
	// none. The --board flags of build and serve override it.
	Board     string   `json:"board,omitempty"`
	Manifests []string `json:"manifests,omitempty"`
	Pods      []Pod    `json:"pods,omitempty"`
	Bundles   []Bundle `json:"bundles,omitempty"`
}

// Pod is one image to compile.
type Pod struct {
	Name     string   `json:"name"`
	Language string   `json:"language"` // the Name of one of compile.Languages
	Source   string   `json:"source"`
	Image    string   `json:"image,omitempty"`  // default wasm://embedded/<name>
	Assets   string   `json:"assets,omitempty"` // optional asset bundle directory
	CFlags   []string `json:"cflags,omitempty"` // languages that take them (C)

	// Parsed is Image parsed; set by Load.
	Parsed images.Image `json:"-"`
}

// Bundle is a StaticBundle: a directory served by Ingress resource backends.
type Bundle struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
	// GzipOnly keeps compressible files only as .gz, to save flash.
	GzipOnly bool `json:"gzipOnly,omitempty"`
	// Brotli also writes a .br beside each file where brotli is smaller;
	// `kube32 serve` serves them, boards serve .gz only.
	Brotli bool `json:"brotli,omitempty"`
}

// File is the absolute path of the project's kube32.yaml.
func (p *Project) File() string { return filepath.Join(p.Dir, FileName) }

// Path resolves a path of the project file (relative to the project
// directory, or absolute) to an absolute path.
func (p *Project) Path(rel string) string {
	if filepath.IsAbs(rel) {
		return filepath.Clean(rel)
	}
	return filepath.Join(p.Dir, filepath.FromSlash(rel))
}

// BuildDir is where `kube32 build` writes: <dir>/build.
func (p *Project) BuildDir() string { return filepath.Join(p.Dir, BuildDirName) }

// CacheDir holds build stamps, generated go.work files and SDK copies:
// <dir>/build/.cache.
func (p *Project) CacheDir() string { return filepath.Join(p.BuildDir(), cacheDirName) }

// GoSDKDir is the project's copy of the Go SDK, <dir>/.kube32/sdk/go: Go
// pods' go.mod files point their replace directive at it so that go vet,
// go test and editors find the SDK offline. kube32 new writes it, and
// kube32 build builds against it and keeps it current.
func (p *Project) GoSDKDir() string { return filepath.Join(p.Dir, ToolDirName, "sdk", "go") }

// GoWITDir is the project's copy of the Go bindings of the WIT world
// kube32:app/pod, <dir>/.kube32/wit/go, for Go pods whose go.mod requires
// them (template go-wit, docs/components.md); kube32 new and kube32 build
// write it like GoSDKDir.
func (p *Project) GoWITDir() string { return filepath.Join(p.Dir, ToolDirName, "wit", "go") }

// ToolDir is the project's folder of files that kube32 writes for the
// toolchains and editors, <dir>/.kube32: the AssemblyScript SDK copy goes
// to its sdk/assemblyscript.
func (p *Project) ToolDir() string { return filepath.Join(p.Dir, ToolDirName) }

// ManifestPaths returns the absolute paths of the manifests.
func (p *Project) ManifestPaths() []string {
	out := make([]string, len(p.Manifests))
	for i, m := range p.Manifests {
		out[i] = p.Path(m)
	}
	return out
}

// Names of the build directory, of its cache, and of the folder of files
// that kube32 writes for the toolchains and editors (the Go SDK copy).
const (
	BuildDirName = "build"
	cacheDirName = ".cache"
	ToolDirName  = ".kube32"
)
