package bundler

import (
	"context"

	"github.com/kube32/kube32/bundler/internal/build"
	"github.com/kube32/kube32/internal/compile"
)

// The build's options, result and what the result is made of.
type (
	BuildOptions = build.Options
	BuildResult  = build.Result
	Item         = build.Item
	Step         = build.Step
	Fit          = build.Fit
	PodFit       = build.PodFit
	Budget       = build.Budget
	FitError     = build.FitError
)

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
	return build.Build(ctx, dir, opts)
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
func WriteSDKs(p *Project) ([]string, error) { return build.WriteSDKs(p) }
