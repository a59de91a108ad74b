package compile

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// BaseCFlags are the clang flags of every C pod: a reactor module (no
// _start, exports chosen by export_name attributes) with an 8 KiB stack
// placed first in memory, below the static data, so that a stack overflow
// runs past address 0 and traps instead of overwriting the data.
//
// The optimization level goes to the compiler proper (-Xclang -O2): given
// -O2 itself, clang also runs binaryen's wasm-opt after linking whenever it
// finds one, with none of the boards' features enabled, so the same sources
// would build to other bytes on a machine with binaryen. kube32 runs
// wasm-opt itself, in --release builds, for the board.
var BaseCFlags = []string{
	"--target=wasm32-wasi", "-Xclang", "-O2", "-nostartfiles",
	"-Wl,--no-entry", "-Wl,-z,stack-size=8192", "-Wl,--stack-first", stripAll,
}

const stripAll = "-Wl,--strip-all"

// cFlags are the clang flags of a C pod, without paths: BaseCFlags, and the
// initial memory fixed for small pods (see InitialMemory).
func cFlags(job Job) []string {
	var flags []string
	ownLevel := slices.ContainsFunc(job.CFlags, func(f string) bool { return strings.HasPrefix(f, "-O") })
	for i := 0; i < len(BaseCFlags); i++ {
		f := BaseCFlags[i]
		if f == stripAll && job.Release && job.KeepNames {
			continue // the linker would drop the name section
		}
		if f == "-Xclang" && ownLevel && BaseCFlags[i+1] == "-O2" {
			i++ // the pod's cflags set the level (and clang may run wasm-opt)
			continue
		}
		flags = append(flags, f)
	}
	if n := initialMemory(job.MemoryLimit); n > 0 {
		flags = append(flags, "-Wl,--initial-memory="+strconv.FormatInt(n, 10))
	}
	return append(flags, job.CFlags...)
}

// cSources lists the .c files of the pod's directory, sorted.
func cSources(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var srcs []string
	for _, e := range ents {
		// Hidden files are left out, as the go command and the build's
		// fingerprint leave them out: an editor's .#main.c is no source.
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".c") && !strings.HasPrefix(e.Name(), ".") {
			srcs = append(srcs, e.Name())
		}
	}
	sort.Strings(srcs)
	if len(srcs) == 0 {
		return nil, fmt.Errorf("no .c files in %s", dir)
	}
	return srcs, nil
}

func compileC(ctx context.Context, job Job) (*Module, error) {
	clang, err := findClang()
	if err != nil {
		return nil, err
	}
	srcs, err := cSources(job.SourceDir)
	if err != nil {
		return nil, err
	}
	include, err := writeCSDK(job.CacheDir)
	if err != nil {
		return nil, err
	}
	outDir := filepath.Join(job.CacheDir, "c", job.Name)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	out := filepath.Join(outDir, job.Name+".wasm")
	os.Remove(out)

	args := append(cFlags(job), "-I", include, "-o", out)
	args = append(args, srcs...)
	// Sources are named relative to the pod directory so diagnostics read
	// "main.c:3:5: error: …".
	cmd := exec.CommandContext(ctx, clang, args...)
	cmd.Dir = job.SourceDir
	if job.Log != nil {
		fmt.Fprintf(job.Log, "pod %s: (cd %s && %s %s)\n", job.Name, job.SourceDir, filepath.Base(clang), strings.Join(args, " "))
	}
	output, err := cmd.CombinedOutput()
	if err != nil {
		return nil, &toolError{tool: "clang", output: string(output), err: err, hint: cHint(job, string(output))}
	}
	return compiled(out, output)
}

// cHint turns the common failures of an incomplete toolchain or a too-small
// memory limit into the action that fixes them.
func cHint(job Job, output string) string {
	switch {
	case strings.Contains(output, "wasm-ld") && (strings.Contains(output, "doesn't exist") || strings.Contains(output, "not found")):
		return installC
	case !haveWASILibc() && (strings.Contains(output, "file not found") || strings.Contains(output, "-lc")):
		return installC
	case strings.Contains(output, "initial memory too small"):
		return fmt.Sprintf("the pod's memory limit (%d bytes) fixes the initial memory at %d bytes; raise resources.limits.memory or shrink the module's static data",
			job.MemoryLimit, initialMemory(job.MemoryLimit))
	}
	return ""
}
