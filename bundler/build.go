package bundler

import (
	"context"
	"io"

	"github.com/kube32/kube32/bundler/internal/build"
	"github.com/kube32/kube32/internal/compile"
)

// BuildOptions control a build.
type BuildOptions struct {
	// Progress, when set, is called as each output that is not up to date
	// starts building, and once each output is built or found up to date.
	Progress func(Step)
	// CompilerLog receives the compiler command lines; nil discards them.
	CompilerLog io.Writer
	// Board names the board to fit the build to, overriding kube32.yaml's
	// board:.
	Board string
	// Release shrinks what the boards get (build --release); KeepNames
	// keeps the name section of release modules.
	Release, KeepNames bool
}

// A Step is one output starting, being optimized, built or found up to
// date.
type Step struct {
	What     string // "pod echo", "pod echo assets", "bundle site"
	Language string // a pod's module: its language as kube32.yaml names it; else ""
	Out      string // the output, under build/ (slash-separated)
	State    string // StepStarted, StepOptimizing, StepBuilt or StepUpToDate
	Tool     string // StepOptimizing: what runs, "wasm-opt -Oz"
}

// String is the step as build's progress line says it.
func (s Step) String() string { return build.Step(s).String() }

// Item kinds, step states and budget names.
const (
	KindPod    = build.KindPod
	KindBundle = build.KindBundle

	StepStarted    = build.StepStarted
	StepBuilt      = build.StepBuilt
	StepUpToDate   = build.StepUpToDate
	StepOptimizing = build.StepOptimizing

	BudgetPodMemory = build.BudgetPodMemory
	BudgetAppImage  = build.BudgetAppImage
)

// Build builds the project in dir: modules, bundles, image trees and the fit
// report.
func Build(ctx context.Context, dir string, opts BuildOptions) (*BuildResult, error) {
	o := build.Options{CompilerLog: opts.CompilerLog, Board: opts.Board, Release: opts.Release, KeepNames: opts.KeepNames}
	if progress := opts.Progress; progress != nil {
		o.Progress = func(s build.Step) { progress(Step(s)) }
	}
	return resultOf(build.Build(ctx, dir, o))
}

// FormatSize writes a byte count as the fit report does.
func FormatSize(n int64) string { return build.FormatSize(n) }

// IsEditorFile reports whether rel, a path from the project root, is a file
// only editors read (compile_commands.json, Cargo files; docs/project.md
// "Editors"), whose changes need no new build.
func IsEditorFile(rel string) bool { return build.IsEditorFile(rel) }

// IsToolDir reports whether a folder of this name in a pod's source holds a
// language's toolchain (node_modules), which no build reads as sources.
func IsToolDir(name string) bool { return compile.IsToolDir(name) }

// WriteSDKs writes the SDK copies the project's pods use outside the build
// (go vet, asc, editors) and returns their folders.
func WriteSDKs(p *Project) ([]string, error) { return build.WriteSDKs(p.p) }
