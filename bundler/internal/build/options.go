package build

import (
	"io"
	"path"

	"github.com/kube32/kube32/bundler/internal/precompress"
	"github.com/kube32/kube32/bundler/internal/project"
	"github.com/kube32/kube32/host/apis/manifest"
)

// Options control a build. Build writes nothing else: what it built is its
// Result, for the caller to print.
type Options struct {
	// Progress, when set, is called as each output that is not up to date
	// starts building, and once each output is built or found up to date.
	Progress func(Step)
	// CompilerLog receives the compiler command lines; nil discards them.
	CompilerLog io.Writer
	// Board names the profile of abi.Boards to fit the build to, overriding
	// kube32.yaml's board:; with neither, the fit report has no verdicts.
	Board string
	// Release shrinks what the boards get: the Go linker's size flags,
	// wasm-opt -Oz and no custom sections in modules, the smallest .gz the
	// machine can make in bundles. Its outputs have inputs of their own, so
	// switching between release and debug builds rebuilds.
	Release bool
	// KeepNames keeps the name section of release modules (function names
	// in traps and profiles).
	KeepNames bool
}

// Step states.
const (
	StepStarted  = "started"
	StepBuilt    = "built"
	StepUpToDate = "up to date"
	// StepOptimizing follows StepStarted for a release module while
	// Step.Tool runs.
	StepOptimizing = "optimizing"
)

// Step is the progress of one output of a build.
type Step struct {
	What     string // "pod echo", "pod echo assets", "bundle site"
	Language string // a pod's module: its language as kube32.yaml names it; else ""
	Out      string // the output, under build/ (slash-separated)
	State    string // StepStarted, StepOptimizing, StepBuilt or StepUpToDate
	Tool     string // StepOptimizing: what runs, "wasm-opt -Oz"
}

// String is the step as a progress line: "pod echo: building (go)…",
// "pod echo: built build/firmware/images/wasm/echo.wasm", "pod echo: up to
// date", "pod echo: optimizing (wasm-opt -Oz)…".
func (s Step) String() string {
	switch s.State {
	case StepStarted:
		if s.Language != "" {
			return s.What + ": building (" + s.Language + ")…"
		}
		return s.What + ": building…"
	case StepOptimizing:
		return s.What + ": optimizing (" + s.Tool + ")…"
	case StepBuilt:
		return s.What + ": built " + path.Join(project.BuildDirName, s.Out)
	}
	return s.What + ": " + s.State
}

// Item kinds.
const (
	KindPod    = "pod"
	KindBundle = "bundle"
)

// Item is one row of the size table: a pod (module and its assets) or a
// StaticBundle.
type Item struct {
	Kind  string // KindPod or KindBundle
	Name  string
	Image string // pods: the image reference

	Module      string // pods: the module's path under build/, slash-separated
	ModuleBytes int64
	// CompiledBytes is, in a release build, the module's size as its
	// compiler wrote it, before Optimize; 0 otherwise.
	CompiledBytes int64
	InitialMemory int64 // pods: initial linear memory in bytes
	MemoryLimit   int64 // pods: the smallest resources.limits.memory of the Pods running it; 0 = none
	// Pods: for the fit report (fit.go).
	Language     string   // as kube32.yaml names it
	MaxMemory    int64    // the module's declared maximum memory; 0 = none
	StackBytes   int64    // modcheck.Report.StackBytes
	Capabilities []string // what its imports need, sorted
	// CustomBytes is what the module's custom sections take (names,
	// producers), which a release build drops.
	CustomBytes int64
	// CompilerWarnings is what the compiler printed while building the
	// module (kept from the last build when the module is up to date).
	CompilerWarnings string

	Bundle string            // the bundle directory under build/, "" when none
	Brotli bool              // StaticBundles: the bundle opts in to .br variants
	Stats  precompress.Stats // the bundle's sizes

	UpToDate bool // nothing of this item was rebuilt
}

// Result is what a build produced.
type Result struct {
	BuildDir string   // absolute build/ directory
	Board    string   // Options.Board, else kube32.yaml's board: ("" for none)
	Items    []Item   // pods in kube32.yaml order, then bundles
	Removed  []string // stale outputs removed, relative to build/
	// Warnings are problems that do not stop the build, one sentence each
	// without a "warning:" prefix.
	Warnings []string
	Fit      Fit // how the build fits Board; set when every output built
	// Project and Objects are what the build loaded: kube32.yaml and its
	// manifests' objects, each naming its file by absolute path (as
	// manifest.DecodeFiles of the project's ManifestPaths does), so that
	// who runs the build need not load them again.
	Project *project.Project
	Objects []manifest.Object
}

// Total sums the items. Its Brotli says whether any bundle opts in to .br,
// and its Stats.BrotliBytes is what a client accepting br and gzip downloads
// from all bundles (gzip bytes where a bundle has no .br).
func (r *Result) Total() Item {
	t := Item{Name: "total", UpToDate: true}
	for _, it := range r.Items {
		t.ModuleBytes += it.ModuleBytes
		t.CompiledBytes += it.CompiledBytes
		t.InitialMemory += it.InitialMemory
		st := it.Stats
		if !it.Brotli {
			// Stamps written before .br variants existed lack BrotliBytes.
			st.BrotliBytes = st.GzipBytes
		}
		t.Stats = t.Stats.Add(st)
		t.Brotli = t.Brotli || it.Brotli
		t.UpToDate = t.UpToDate && it.UpToDate
	}
	return t
}
