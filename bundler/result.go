package bundler

import (
	"github.com/kube32/kube32/bundler/internal/build"
	"github.com/kube32/kube32/bundler/internal/precompress"
	"github.com/kube32/kube32/host/apis/manifest"
)

// A BuildResult is what Build built and what it loaded.
type BuildResult struct {
	BuildDir string   // absolute build/ directory
	Board    string   // BuildOptions.Board, else kube32.yaml's board: ("" for none)
	Items    []Item   // pods in kube32.yaml order, then bundles
	Removed  []string // stale outputs removed, relative to build/
	// Warnings are problems that do not stop the build, one sentence each
	// without a "warning:" prefix.
	Warnings []string
	Fit      Fit // how the build fits Board; set when every output built
	// Project and Objects are what the build loaded: kube32.yaml and its
	// manifests' objects, each naming its file by absolute path, so that
	// who runs the build need not load them again.
	Project *Project
	Objects []manifest.Object
}

// Total sums the items (the size table's last row).
func (r *BuildResult) Total() Item {
	res := build.Result{}
	for _, it := range r.Items {
		res.Items = append(res.Items, it.internal())
	}
	return itemOf(res.Total())
}

// An Item is one row of the size table: a pod (module and its assets) or
// a StaticBundle.
type Item struct {
	Kind  string // KindPod or KindBundle
	Name  string
	Image string // pods: the image reference

	Module      string // pods: the module's path under build/, slash-separated
	ModuleBytes int64
	// CompiledBytes is, in a release build, the module's size as its
	// compiler wrote it, before wasm-opt; 0 otherwise.
	CompiledBytes int64
	InitialMemory int64 // pods: initial linear memory in bytes
	MemoryLimit   int64 // pods: the smallest resources.limits.memory of the Pods running it; 0 = none
	Language      string
	MaxMemory     int64    // the module's declared maximum memory; 0 = none
	StackBytes    int64    // the stack the module was linked with
	Capabilities  []string // what its imports need, sorted
	CustomBytes   int64    // the module's custom sections, which a release build drops
	// CompilerWarnings is what the compiler printed while building the
	// module.
	CompilerWarnings string

	Bundle string        // the bundle directory under build/, "" when none
	Brotli bool          // StaticBundles: the bundle opts in to .br variants
	Stats  CompressStats // the bundle's sizes

	UpToDate bool // nothing of this item was rebuilt
}

func itemOf(it build.Item) Item {
	return Item{Kind: it.Kind, Name: it.Name, Image: it.Image, Module: it.Module, ModuleBytes: it.ModuleBytes,
		CompiledBytes: it.CompiledBytes, InitialMemory: it.InitialMemory, MemoryLimit: it.MemoryLimit,
		Language: it.Language, MaxMemory: it.MaxMemory, StackBytes: it.StackBytes, Capabilities: it.Capabilities,
		CustomBytes: it.CustomBytes, CompilerWarnings: it.CompilerWarnings,
		Bundle: it.Bundle, Brotli: it.Brotli, Stats: CompressStats(it.Stats), UpToDate: it.UpToDate}
}

func (it Item) internal() build.Item {
	return build.Item{Kind: it.Kind, Name: it.Name, Image: it.Image, Module: it.Module, ModuleBytes: it.ModuleBytes,
		CompiledBytes: it.CompiledBytes, InitialMemory: it.InitialMemory, MemoryLimit: it.MemoryLimit,
		Language: it.Language, MaxMemory: it.MaxMemory, StackBytes: it.StackBytes, Capabilities: it.Capabilities,
		CustomBytes: it.CustomBytes, CompilerWarnings: it.CompilerWarnings,
		Bundle: it.Bundle, Brotli: it.Brotli, Stats: precompress.Stats(it.Stats), UpToDate: it.UpToDate}
}

// CompressStats sums a precompressed bundle.
type CompressStats struct {
	Files       int   // files of the bundle (not counting generated .gz and .br)
	Gzipped     int   // files that have a .gz
	Brotlied    int   // files that have a .br
	RawBytes    int64 // size of the files as given
	GzipBytes   int64 // what a client accepting gzip downloads
	BrotliBytes int64 // what a client accepting br and gzip downloads from serve
	StoredBytes int64 // what the bundle takes on flash or card (.br files never flashed)
	// PlainGzipBytes is, in a release build, what GzipBytes would be had
	// compress/gzip written every .gz; 0 otherwise.
	PlainGzipBytes int64
}

// Fit is how a build fits a board (docs/cli.md, "The fit report"); it is
// also the "fit" of build -o json, hence its JSON names.
type Fit struct {
	Board   string   `json:"board"` // "" for none
	Pods    []PodFit `json:"pods"`
	Budgets []Budget `json:"budgets"`
	// Problems say what does not fit, one sentence each; a build with any
	// fails with a *FitError.
	Problems []string `json:"problems"`
}

// PodFit is the fit of one pod's module. Sizes are in bytes.
type PodFit struct {
	Name          string   `json:"name"`
	Language      string   `json:"language"`
	Storage       string   `json:"storage"` // "firmware" or "sd": where its image is stored
	ModuleBytes   int64    `json:"moduleBytes"`
	InitialMemory int64    `json:"initialMemoryBytes"`
	MaxMemory     int64    `json:"maxMemoryBytes"`   // declared by the module; 0 = none
	MemoryLimit   int64    `json:"memoryLimitBytes"` // the smallest resources.limits.memory of the Pods running it; 0 = none
	RunBy         []string `json:"runBy"`            // the Pods that run its image ("default/api")
	Counted       int64    `json:"countedMemoryBytes"`
	StackBytes    int64    `json:"stackBytes"`
	Capabilities  []string `json:"capabilities"`
	OverBytes     int64    `json:"overBytes"` // how far it exceeds the board's pod memory alone; 0 = fits
}

// Budget is one total of the build against one budget of the board.
type Budget struct {
	Name         string   `json:"name"`        // BudgetPodMemory, BudgetAppImage or BudgetSD
	Used         int64    `json:"usedBytes"`   // app image: FirmwareBase included
	Budget       int64    `json:"budgetBytes"` // 0 without a board
	FirmwareBase int64    `json:"firmwareBaseBytes,omitempty"`
	OverBytes    int64    `json:"overBytes"`          // 0 = fits
	Node         string   `json:"node,omitempty"`     // the pod memory's node ("" for the one board)
	Pods         []string `json:"pods,omitempty"`     // the Pods it holds with what each requests
	MaxPods      int64    `json:"maxPods,omitempty"`  // how many Pods the board holds
	OverPods     int64    `json:"overPods,omitempty"` // how many too many (0 = fits)
}

func fitOf(f build.Fit) Fit {
	out := Fit{Board: f.Board, Problems: f.Problems}
	if f.Pods != nil {
		out.Pods = []PodFit{}
	}
	for _, p := range f.Pods {
		out.Pods = append(out.Pods, PodFit{Name: p.Name, Language: p.Language, Storage: p.Storage,
			ModuleBytes: p.ModuleBytes, InitialMemory: p.InitialMemory, MaxMemory: p.MaxMemory,
			MemoryLimit: p.MemoryLimit, RunBy: p.RunBy, Counted: p.Counted, StackBytes: p.StackBytes,
			Capabilities: p.Capabilities, OverBytes: p.OverBytes})
	}
	if f.Budgets != nil {
		out.Budgets = []Budget{}
	}
	for _, b := range f.Budgets {
		out.Budgets = append(out.Budgets, Budget(b))
	}
	return out
}

// FitError is the error of a build whose outputs do not fit its board;
// the outputs are written and the BuildResult is complete.
type FitError struct {
	Board    string
	Problems []string
}

// Error lists the problems, one per line.
func (e *FitError) Error() string { return (*build.FitError)(e).Error() }

func resultOf(r *build.Result, err error) (*BuildResult, error) {
	if fe, ok := err.(*build.FitError); ok {
		err = (*FitError)(fe)
	}
	if r == nil {
		return nil, err
	}
	out := &BuildResult{BuildDir: r.BuildDir, Board: r.Board, Removed: r.Removed, Warnings: r.Warnings,
		Fit: fitOf(r.Fit), Objects: r.Objects}
	if r.Project != nil {
		out.Project = &Project{p: r.Project}
	}
	for _, it := range r.Items {
		out.Items = append(out.Items, itemOf(it))
	}
	return out, err
}
