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
// runs past address 0 and traps instead of overwriting the data. The
// linker keeps the name section, so that a trap's stack trace names the
// functions; a release build strips it (linkFlags).
//
// The optimization level goes to the compiler proper (-Xclang -O2): given
// -O2 itself, clang also runs binaryen's wasm-opt after linking whenever it
// finds one, with none of the boards' features enabled, so the same sources
// would build to other bytes on a machine with binaryen. kube32 runs
// wasm-opt itself, in --release builds, for the board.
var BaseCFlags = []string{
	"--target=wasm32-wasi", "-Xclang", "-O2", "-nostartfiles",
	"-Wl,--no-entry", "-Wl,-z,stack-size=8192", "-Wl,--stack-first",
}

// stripFlag is what the linker (wasm-ld, for C and Rust alike) is told to
// strip: everything but the code in a release build without --keep-names,
// else debug information only, which keeps the name section that trap
// traces read.
func stripFlag(job Job) string {
	if job.Release && !job.KeepNames {
		return "--strip-all"
	}
	return "--strip-debug"
}

// cFlags are the clang flags of a C pod, without paths: BaseCFlags, what
// the linker strips, and the initial memory fixed for small pods (see
// InitialMemory).
func cFlags(job Job) []string {
	var flags []string
	ownLevel := slices.ContainsFunc(job.CFlags, func(f string) bool { return strings.HasPrefix(f, "-O") })
	for i := 0; i < len(BaseCFlags); i++ {
		f := BaseCFlags[i]
		if f == "-Xclang" && ownLevel && BaseCFlags[i+1] == "-O2" {
			i++ // the pod's cflags set the level (and clang may run wasm-opt)
			continue
		}
		flags = append(flags, f)
	}
	flags = append(flags, "-Wl,"+stripFlag(job))
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
	c, err := cCommand(job, clang)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(c.out), 0o755); err != nil {
		return nil, err
	}
	os.Remove(c.out)
	args := append(c.args, c.srcs...)
	// clang runs in the project directory and is given the sources from
	// there, so that diagnostics read "pods/api/main.c:3:5: error: …",
	// a path an editor opened at the project finds.
	cmd := exec.CommandContext(ctx, clang, args...)
	cmd.Dir = job.rootDir()
	if job.Log != nil {
		fmt.Fprintf(job.Log, "pod %s: (cd %s && %s %s)\n", job.Name, cmd.Dir, filepath.Base(clang), strings.Join(args, " "))
	}
	output, err := cmd.CombinedOutput()
	if err != nil {
		return nil, &toolError{tool: "clang", output: string(output), err: err, hint: cHint(job, string(output))}
	}
	return compiled(c.out, output)
}

// cCommandLine is how clang builds a C pod: the arguments before the
// sources, and the sources named from the job's root directory.
type cCommandLine struct {
	args []string
	srcs []string
	out  string
}

// cCommand writes the C SDK headers and returns the pod's clang command:
// the one home of its flags, for the build and for compile_commands.json.
func cCommand(job Job, clang string) (cCommandLine, error) {
	names, err := cSources(job.SourceDir)
	if err != nil {
		return cCommandLine{}, err
	}
	include, err := writeCSDK(job.CacheDir)
	if err != nil {
		return cCommandLine{}, err
	}
	out := filepath.Join(job.CacheDir, "c", job.Name, job.Name+".wasm")
	c := cCommandLine{args: append(cFlags(job), "-I", include, "-o", out), out: out}
	for _, n := range names {
		c.srcs = append(c.srcs, job.fromRoot(filepath.Join(job.SourceDir, n)))
	}
	return c, nil
}

// CCommand is an entry of compile_commands.json, the JSON compilation
// database that clangd and other clang tools read: one source file and the
// clang command that compiles it.
type CCommand struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Arguments []string `json:"arguments"`
}

// CCommands returns the compile_commands.json entries of a C pod, one per
// source, each with the flags and include directory of the build (and the
// SDK headers written there). The build compiles every source in one
// clang run; an entry is that run with only its own source.
func CCommands(job Job) ([]CCommand, error) {
	clang, err := findClang()
	if err != nil {
		clang = "clang" // the entries still tell clangd the flags
	}
	c, err := cCommand(job, clang)
	if err != nil {
		return nil, err
	}
	var cmds []CCommand
	for _, src := range c.srcs {
		args := append(append([]string{clang}, c.args...), src)
		cmds = append(cmds, CCommand{Directory: job.rootDir(), File: src, Arguments: args})
	}
	return cmds, nil
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
