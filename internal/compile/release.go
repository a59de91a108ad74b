package compile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kube32/kube32/abi/wasmbin"
)

// Release builds shrink each module after its compiler: binaryen's wasm-opt
// -Oz where it is installed, then every custom section dropped (names,
// producers, debug info, target features) unless the job keeps names. The
// boards run the module as it is written to build/, so every byte saved here
// is flash and RAM saved there.

// MissingWasmOpt is the warning of a release build without binaryen.
const MissingWasmOpt = "install binaryen (wasm-opt) for smaller modules"

// wasmOptArgs are the optimizer flags before the feature flags: the
// smallest code, and no feature beyond the MVP but those enabled after.
var wasmOptArgs = []string{"-Oz", "--mvp-features"}

// nameSection is the custom section that names functions and locals in
// traps and profiles.
const nameSection = "name"

func findWasmOpt() (string, bool) {
	p, err := exec.LookPath("wasm-opt")
	return p, err == nil
}

// Optimizer is what Optimize runs, for progress lines: "wasm-opt -Oz", or
// "" when binaryen is not installed and Optimize only strips.
func Optimizer() string {
	if _, ok := findWasmOpt(); !ok {
		return ""
	}
	return "wasm-opt " + wasmOptArgs[0]
}

// Optimize shrinks the module of a release job: wasm-opt -Oz, allowed only
// the job's features so that it neither refuses a module that uses them
// nor brings in one the boards lack, then the custom sections stripped.
// Without wasm-opt it only strips. wasm-opt's output is kept only when
// smaller (a tiny module that clang already made small can come out a few
// bytes larger), or with KeepNames.
func Optimize(ctx context.Context, job Job, wasm []byte) ([]byte, error) {
	best, err := stripCustomSections(wasm, job.KeepNames)
	if err != nil {
		return nil, fmt.Errorf("optimizing pod %s: %w", job.Name, err)
	}
	if wasmOpt, ok := findWasmOpt(); ok {
		opt, err := runWasmOpt(ctx, wasmOpt, job, wasm)
		if err == nil {
			opt, err = stripCustomSections(opt, job.KeepNames)
		}
		if err != nil {
			return nil, fmt.Errorf("optimizing pod %s: %w", job.Name, err)
		}
		if len(opt) < len(best) || job.KeepNames { // wasm-opt writes the names the linkers may not
			best = opt
		}
	}
	return best, nil
}

// wasmOptFlags are the flags of wasm-opt for job, without paths.
func wasmOptFlags(job Job) []string {
	args := append([]string{}, wasmOptArgs...)
	for _, f := range job.Features {
		args = append(args, "--enable-"+string(f))
	}
	if job.KeepNames {
		args = append(args, "--debuginfo") // else wasm-opt drops the name section
	}
	return args
}

func runWasmOpt(ctx context.Context, wasmOpt string, job Job, wasm []byte) ([]byte, error) {
	dir, err := os.MkdirTemp(job.CacheDir, "wasm-opt-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "in.wasm"), filepath.Join(dir, "out.wasm")
	if err := os.WriteFile(in, wasm, 0o644); err != nil {
		return nil, err
	}
	args := append(wasmOptFlags(job), in, "-o", out)
	if job.Log != nil {
		fmt.Fprintf(job.Log, "pod %s: wasm-opt %s\n", job.Name, strings.Join(args, " "))
	}
	output, err := exec.CommandContext(ctx, wasmOpt, args...).CombinedOutput()
	if err != nil {
		return nil, &toolError{tool: "wasm-opt", output: string(output), err: err, hint: wasmOptHint(string(output))}
	}
	return os.ReadFile(out)
}

// wasmOptHint explains a refusal for a feature outside the boards' set.
func wasmOptHint(output string) string {
	if strings.Contains(output, "feature") || strings.Contains(output, "all used features should be allowed") {
		return "the module uses a WebAssembly feature the boards do not run (see kube32 boards)"
	}
	return ""
}

// stripCustomSections drops every custom section of a module but, with
// keepNames, the name section. The other sections are copied byte for
// byte.
func stripCustomSections(wasm []byte, keepNames bool) ([]byte, error) {
	sections, err := moduleSections(wasm)
	if err != nil {
		return nil, err
	}
	out := append([]byte{}, wasm[:8]...)
	for _, s := range sections {
		if s.id == 0 && !(keepNames && s.name == nameSection) {
			continue
		}
		out = append(out, s.raw...)
	}
	return out, nil
}

// CustomSectionBytes is what the custom sections of a module take (names,
// producers, build IDs, debug information): what a release build drops of
// it, --keep-names aside, before wasm-opt shrinks the rest.
func CustomSectionBytes(wasm []byte) (int64, error) {
	sections, err := moduleSections(wasm)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, s := range sections {
		if s.id == 0 {
			n += int64(len(s.raw))
		}
	}
	return n, nil
}

// section is one section of a module: its id, a custom section's name, and
// its bytes with the header.
type section struct {
	id   byte
	name string
	raw  []byte
}

var errNotWasm = errors.New("not a WebAssembly module")

// moduleSections splits a module into its sections.
func moduleSections(wasm []byte) ([]section, error) {
	if !bytes.HasPrefix(wasm, []byte(wasmbin.Header)) {
		return nil, errNotWasm
	}
	var sections []section
	r := wasmbin.NewReaderAt(wasm[wasmbin.HeaderLen:], wasmbin.HeaderLen)
	for r.More() {
		start := r.Offset()
		id, payload := r.Section()
		if r.Err() != nil {
			return nil, fmt.Errorf("%w: section %d is cut short", errNotWasm, id)
		}
		s := section{id: id, raw: wasm[start:r.Offset()]}
		if id == 0 {
			if s.name = payload.Name(); payload.Err() != nil {
				return nil, fmt.Errorf("%w: a custom section's name is cut short", errNotWasm)
			}
		}
		sections = append(sections, s)
	}
	return sections, nil
}

// customSections lists the names of a module's custom sections, in order.
func customSections(wasm []byte) ([]string, error) {
	sections, err := moduleSections(wasm)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range sections {
		if s.id == 0 {
			names = append(names, s.name)
		}
	}
	return names, nil
}

// releaseFingerprint is what a release job adds to the fingerprint: the
// flags, and wasm-opt's version when it is installed.
func releaseFingerprint(ctx context.Context, job Job) string {
	if !job.Release {
		return ""
	}
	fp := fmt.Sprintf("release keepNames=%v flags=%s", job.KeepNames, strings.Join(wasmOptFlags(job), " "))
	if wasmOpt, ok := findWasmOpt(); ok {
		fp += " tool=" + wasmOpt + " " + toolVersion(ctx, wasmOpt, "--version")
	}
	return fp
}
