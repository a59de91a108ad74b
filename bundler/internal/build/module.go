package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/bundler/internal/atomicfile"
	"github.com/kube32/kube32/bundler/internal/lower"
	"github.com/kube32/kube32/bundler/internal/project"
	"github.com/kube32/kube32/internal/compile"
)

// buildModule compiles a pod, lowers its WIT names, in a release build optimizes it (calling
// optimizing with what runs first), checks the module against the ABI and
// the pod's memory limit, and writes it.
func buildModule(ctx context.Context, p *project.Project, t *task, log io.Writer, optimizing func(tool string)) (*stamp, error) {
	job := t.job
	job.Log = log
	m, err := compile.Compile(ctx, job)
	if err != nil {
		return nil, err
	}
	// A pod written against the WIT world (or a component of it) becomes
	// the core module with the board's names before anything else reads it
	// (docs/components.md).
	wasm, err := lower.Pod(m.Wasm)
	if err != nil {
		return nil, fmt.Errorf("pod %s: %w", job.Name, err)
	}
	var compiled int64
	if job.Release {
		compiled = int64(len(wasm))
		if tool := compile.Optimizer(); tool != "" {
			optimizing(tool)
		}
		if wasm, err = compile.Optimize(ctx, job, wasm); err != nil {
			return nil, err
		}
	}
	// Release modules are checked against the board's features, which
	// wasm-opt was told; others against what every board runs.
	rep, err := modcheck.Check(ctx, wasm, modcheck.Options{MemoryLimit: t.limit, Features: job.Features})
	if err != nil {
		return nil, checkError(job.Name, t.limit, err)
	}
	abs := filepath.Join(p.BuildDir(), filepath.FromSlash(t.out))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(abs, wasm, 0o644); err != nil {
		return nil, fmt.Errorf("pod %s: %w", job.Name, err)
	}
	sum := sha256.Sum256(wasm)
	return &stamp{Inputs: t.inputs, SHA256: hex.EncodeToString(sum[:]), ModuleBytes: int64(len(wasm)), InitialPages: rep.InitialPages,
		MaxPages: rep.MaxPages, StackBytes: rep.StackBytes, Capabilities: capabilities(rep.Imports),
		CompiledBytes: compiled, CompilerWarnings: m.Warnings}, nil
}

// checkError words a failed ABI check: one line per problem, each naming the
// import, export or limit.
func checkError(pod string, limit int64, err error) error {
	var cerr *modcheck.Error
	if !errors.As(err, &cerr) {
		return fmt.Errorf("checking pod %s: %w", pod, err)
	}
	if len(cerr.OverBudget) > 0 {
		return fmt.Errorf("checking pod %s: the module is over the module budgets a board loads (docs/boards.md):\n  %s", pod, strings.Join(cerr.Problems, "\n  "))
	}
	what := []string{"k32_app_abi"}
	if len(cerr.Unsupported) > 0 {
		what = append(what, "the WebAssembly features the boards run")
	}
	if cerr.MemoryExceeded {
		what = append(what, fmt.Sprintf("its memory limit (%d bytes)", limit))
	}
	fit := strings.Join(what, " and ")
	if len(what) == 3 {
		fit = what[0] + ", " + what[1] + " and " + what[2]
	}
	return fmt.Errorf("checking pod %s: the module does not fit %s:\n  %s", pod, fit, strings.Join(cerr.Problems, "\n  "))
}
