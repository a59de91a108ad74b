package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/bundler/internal/project"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/compile"
)

// Build builds the project in dir; see the package documentation. Every pod
// is attempted, so the error lists every broken pod; outputs that did build
// are kept, and nothing stale is removed after a failure.
func Build(ctx context.Context, dir string, opts Options) (*Result, error) {
	progress := opts.Progress
	if progress == nil {
		progress = func(Step) {}
	}
	p, err := project.Load(dir)
	if err != nil {
		return nil, err
	}
	objs, err := LoadManifests(p)
	if err != nil {
		return nil, err
	}
	board, err := abi.ChooseBoard(opts.Board, p.Board) // --board, else board:
	if err != nil {
		return nil, err
	}
	editorWarnings := writeEditorFiles(ctx, p, objs, opts, board)
	tasks, items, err := plan(ctx, p, objs, opts, board)
	if err != nil {
		return nil, err
	}
	res := &Result{BuildDir: p.BuildDir(), Items: items, Project: p, Objects: withPaths(p, objs),
		Warnings: append(append(append(manifest.Warnings(objs), unbuiltImageWarnings(p, objs)...), missingToolWarnings(opts, tasks)...), editorWarnings...)}
	if board != nil {
		res.Board = board.Name
	}
	for _, d := range skeleton {
		if err := os.MkdirAll(filepath.Join(res.BuildDir, filepath.FromSlash(d)), 0o755); err != nil {
			return nil, err
		}
	}
	for i := range res.Items {
		res.Items[i].UpToDate = true
	}

	var errs []error
	failed := map[int]bool{}
	for _, t := range tasks {
		if failed[t.item] {
			continue
		}
		it := &res.Items[t.item]
		if err := run(ctx, p, t, it, progress, opts.CompilerLog); err != nil {
			if ctx.Err() != nil || errors.Is(err, compile.ErrInterrupted) {
				// Ctrl-C: the pods left are not broken, just not built.
				return res, fmt.Errorf("build %w", compile.ErrInterrupted)
			}
			errs = append(errs, err)
			failed[t.item] = true
			continue
		}
		it.UpToDate = it.UpToDate && t.fresh
	}
	if len(errs) > 0 {
		return res, errors.Join(errs...)
	}

	measureCustomSections(p, res.Items)
	res.Warnings = append(res.Warnings, capabilityWarnings(p, objs, res.Items)...)
	res.Removed, err = clean(p, tasks)
	if err != nil {
		return res, err
	}
	res.Fit = fit(res.Items, placedPods(objs), board, opts.Release)
	if len(res.Fit.Problems) > 0 {
		return res, &FitError{Board: res.Board, Problems: res.Fit.Problems}
	}
	return res, nil
}

// run brings one output up to date, fills its item and says so on progress.
func run(ctx context.Context, p *project.Project, t *task, it *Item, progress func(Step), compilerLog io.Writer) error {
	step := Step{What: describe(t, it), Out: t.out, State: StepUpToDate}
	if t.kind == taskModule {
		step.Language = t.job.Language
	}
	if t.fresh {
		fill(t, it, t.old)
		progress(step)
		return nil
	}
	step.State = StepStarted
	progress(step)
	var s *stamp
	var err error
	switch t.kind {
	case taskModule:
		s, err = buildModule(ctx, p, t, compilerLog, func(tool string) {
			progress(Step{What: step.What, Language: step.Language, Out: step.Out, State: StepOptimizing, Tool: tool})
		})
	default:
		s, err = buildBundle(p, t)
	}
	if err != nil {
		return err
	}
	if err := writeStamp(stampPath(p.CacheDir(), t.out), s); err != nil {
		return err
	}
	fill(t, it, s)
	step.State = StepBuilt
	progress(step)
	return nil
}

// describe names a task in progress lines: "pod echo", "pod echo assets",
// "bundle site".
func describe(t *task, it *Item) string {
	switch t.kind {
	case taskModule:
		return "pod " + it.Name
	case taskAssets:
		return "pod " + it.Name + " assets"
	}
	return "bundle " + it.Name
}

// fill copies the sizes of a stamp into the item.
func fill(t *task, it *Item, s *stamp) {
	if t.kind == taskModule {
		it.ModuleBytes = s.ModuleBytes
		it.CompiledBytes = s.CompiledBytes
		it.InitialMemory = int64(s.InitialPages) * compile.PageSize
		it.MaxMemory = int64(s.MaxPages) * compile.PageSize
		it.StackBytes = s.StackBytes
		it.Capabilities = s.Capabilities
		it.CompilerWarnings = s.CompilerWarnings
		return
	}
	it.Stats = s.Stats
}

// measureCustomSections sets each pod's CustomBytes from its module, for
// the fit report's advice on --release. A module it cannot read counts none.
func measureCustomSections(p *project.Project, items []Item) {
	for i := range items {
		it := &items[i]
		if it.Kind != KindPod {
			continue
		}
		if wasm, err := os.ReadFile(filepath.Join(p.BuildDir(), filepath.FromSlash(it.Module))); err == nil {
			it.CustomBytes, _ = compile.CustomSectionBytes(wasm)
		}
	}
}

// stale reports whether building the project in dir would change anything:
// an output is missing, changed, or older than its inputs, or a stale output
// is left to remove. Only the tests use it, to check when a build is due.
func stale(dir string) (bool, error) {
	ctx := context.Background()
	p, err := project.Load(dir)
	if err != nil {
		return false, err
	}
	objs, err := LoadManifests(p)
	if err != nil {
		return false, err
	}
	tasks, _, err := plan(ctx, p, objs, Options{}, nil)
	if err != nil {
		return false, err
	}
	for _, t := range tasks {
		if !t.fresh {
			return true, nil
		}
	}
	extra, err := strays(p, tasks)
	if err != nil {
		return false, err
	}
	return len(extra) > 0, nil
}
