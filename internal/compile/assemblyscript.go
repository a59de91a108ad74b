package compile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kube32/kube32/abi"
	assdk "github.com/kube32/kube32/sdk/assemblyscript"
)

// installAssemblyScript says what to install when asc is missing.
var installAssemblyScript = "AssemblyScript pods need Node.js 20 or newer and asc from npm's assemblyscript " + assdk.Version +
	": run `npm install` in the pod's folder (the package.json of template as-http pins it), or `npm install --save-exact assemblyscript@" + assdk.Version +
	"`; Node.js and npm on Debian or Ubuntu: sudo apt-get install nodejs npm"

// ascSeries is the version prefix of the asc releases kube32 takes: those of
// the minor version the SDK is written for.
var ascSeries = assdk.Version[:strings.LastIndex(assdk.Version, ".")+1]

// ascTool is node and the asc script of an assemblyscript package.
type ascTool struct {
	node, script, version string
}

// findASC finds the asc of the job's pod: the assemblyscript package in the
// node_modules of the pod's folder or of a folder above it up to the
// project (where npm installs it), else the asc on PATH. It must be of the
// SDK's series.
func findASC(ctx context.Context, job Job) (ascTool, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return ascTool{}, &missingError{what: "node", hint: installAssemblyScript}
	}
	pkg := ""
	for dir := job.SourceDir; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "node_modules", "assemblyscript")
		if _, err := os.Stat(filepath.Join(p, "package.json")); err == nil {
			pkg = p
			break
		}
		if dir == job.rootDir() || dir == filepath.Dir(dir) || !strings.HasPrefix(dir, job.rootDir()) {
			break
		}
	}
	if pkg == "" {
		// An asc on PATH is the package's bin/asc.js, or a link to it.
		if p, err := exec.LookPath("asc"); err == nil {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				pkg = filepath.Dir(filepath.Dir(real))
			}
		}
	}
	if pkg == "" {
		return ascTool{}, &missingError{what: "asc (npm's assemblyscript " + assdk.Version + ")", hint: installAssemblyScript}
	}
	var meta struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	data, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &meta)
	}
	if err != nil || meta.Name != "assemblyscript" {
		return ascTool{}, fmt.Errorf("%s is not npm's assemblyscript (%v): %s", pkg, err, installAssemblyScript)
	}
	if !strings.HasPrefix(meta.Version, ascSeries) {
		return ascTool{}, fmt.Errorf("asc %s in %s: kube32 takes assemblyscript %sx, the series of its SDK: %s", meta.Version, pkg, ascSeries, installAssemblyScript)
	}
	return ascTool{node: node, script: filepath.Join(pkg, "bin", "asc.js"), version: meta.Version}, nil
}

// ascEntries are the files a pod's folder may start from, in order.
var ascEntries = []string{"main.ts", "index.ts", "assembly/index.ts"}

func ascEntry(dir string) (string, error) {
	for _, e := range ascEntries {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(e))); err == nil {
			return e, nil
		}
	}
	return "", fmt.Errorf("no %s in %s", strings.Join(ascEntries, ", "), dir)
}

// ascBaseFlags are the asc flags of every pod: the stub runtime, the
// smallest, whose heap the SDK gives back after each callback (k32/heap.ts);
// the most optimisation for size; the start function exported as WASI's
// _initialize, so that the pod's top-level code runs when the node starts
// it, inside a callback's context; and abort, trace and Math.random's seed
// routed to the SDK's hooks (lib/k32_hooks.ts, given with --lib), so that
// the module imports nothing but module k32.
var ascBaseFlags = []string{
	"--runtime", "stub", "-O3z", "--exportStart", "_initialize",
	"--use", "abort=~lib/k32_hooks/k32Abort",
	"--use", "trace=~lib/k32_hooks/k32Trace",
	"--use", "seed=~lib/k32_hooks/k32Seed",
	"--noColors",
}

// ascFeatures are the post-MVP features asc enables by default, by the
// boards' names for them (abi.WasmFeature) and asc's.
var ascFeatures = []struct {
	board abi.WasmFeature
	asc   string
}{
	{abi.FeatureMutableGlobals, "mutable-globals"},
	{abi.FeatureSignExt, "sign-extension"},
	{abi.FeatureNontrappingFloatToInt, "nontrapping-f2i"},
	{abi.FeatureBulkMemory, "bulk-memory"},
}

// ascFlags are the asc flags of job, without paths: a plain build (or one
// with --keep-names) keeps the name section (--debug), so that a trap's
// stack trace names the functions; the initial memory is fixed for small
// pods as C's is (initialMemory); and a release build for a board turns off
// the default features the board does not run.
func ascFlags(job Job) []string {
	flags := append([]string{}, ascBaseFlags...)
	if !job.Release || job.KeepNames {
		flags = append(flags, "--debug")
	}
	if n := initialMemory(job.MemoryLimit); n > 0 {
		flags = append(flags, "--initialMemory", strconv.FormatInt(n/PageSize, 10))
	}
	if len(job.Features) > 0 {
		for _, f := range ascFeatures {
			if !containsFeature(job.Features, f.board) {
				flags = append(flags, "--disable", f.asc)
			}
		}
	}
	return flags
}

func containsFeature(fs []abi.WasmFeature, f abi.WasmFeature) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

func compileAssemblyScript(ctx context.Context, job Job) (*Module, error) {
	asc, err := findASC(ctx, job)
	if err != nil {
		return nil, err
	}
	entry, err := ascEntry(job.SourceDir)
	if err != nil {
		return nil, err
	}
	sdk, err := writeASSDK(job)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(job.CacheDir, "assemblyscript", job.Name, job.Name+".wasm")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	os.Remove(out)
	// asc runs in the project directory and is given the entry from there,
	// so that diagnostics and abort's file names read "pods/api/main.ts",
	// a path an editor opened at the project finds. The pod's asconfig.json,
	// when it has one, adds what these flags do not set.
	args := append([]string{asc.script, job.fromRoot(filepath.Join(job.SourceDir, filepath.FromSlash(entry))),
		"--path", job.fromRoot(sdk), "--lib", job.fromRoot(filepath.Join(sdk, "lib")), "--config", job.fromRoot(filepath.Join(job.SourceDir, "asconfig.json")), "-o", out}, ascFlags(job)...)
	cmd := exec.CommandContext(ctx, asc.node, args...)
	cmd.Dir = job.rootDir()
	if job.Log != nil {
		fmt.Fprintf(job.Log, "pod %s: (cd %s && node %s)\n", job.Name, cmd.Dir, strings.Join(args, " "))
	}
	output, err := cmd.CombinedOutput()
	if err != nil {
		return nil, &toolError{tool: "asc", output: string(output), err: err}
	}
	if _, err := os.Stat(out); errors.Is(err, fs.ErrNotExist) {
		return nil, &toolError{tool: "asc", output: string(output), err: errors.New("no module written")}
	}
	return compiled(out, ascWarnings(output))
}

// ascWarnings keeps what asc printed but its INFO notes ("Expression is
// never 'null'"), which are no warnings.
func ascWarnings(output []byte) []byte {
	var keep []string
	for _, block := range strings.Split(string(output), "\n\n") {
		if strings.HasPrefix(strings.TrimSpace(block), "INFO ") {
			continue
		}
		keep = append(keep, block)
	}
	return []byte(strings.Join(keep, "\n\n"))
}

// tsconfigFile is the TypeScript configuration of an AssemblyScript pod's
// folder, with which an editor's TypeScript service knows AssemblyScript's
// types and finds the SDK.
const tsconfigFile = "tsconfig.json"

// tsconfigMark starts the tsconfig.json the build writes (TypeScript reads
// comments in it); a file without it is the user's.
const tsconfigMark = "// generated by kube32 build"

// asEditorFiles is a tsconfig.json in each AssemblyScript pod's folder:
// AssemblyScript's own configuration for its types (assembly.json, found in
// node_modules as the compiler is), and the path of "k32" to the SDK copy.
func asEditorFiles(_ context.Context, p EditorProject, jobs []Job) []EditorFile {
	var files []EditorFile
	seen := map[string]bool{}
	for _, job := range jobs {
		if seen[job.SourceDir] {
			continue
		}
		seen[job.SourceDir] = true
		k32 := relSlash(job.SourceDir, filepath.Join(asSDKDir(job), "k32"))
		cfg := map[string]any{
			"extends": "assemblyscript/std/assembly.json",
			"compilerOptions": map[string]any{
				"baseUrl": ".",
				"paths":   map[string][]string{"k32": {k32 + "/index.ts"}, "k32/*": {k32 + "/*"}},
			},
			"include": []string{"./**/*.ts"},
			"exclude": []string{"node_modules"},
		}
		data, err := json.MarshalIndent(cfg, "", "  ")
		if err != nil {
			continue
		}
		text := tsconfigMark + ": rewritten on every build, see docs/assemblyscript.md \"Editors\".\n" +
			"// Remove the line above to keep your own version: kube32 build then leaves the file alone.\n" + string(data) + "\n"
		rel := relSlash(p.Dir, filepath.Join(job.SourceDir, tsconfigFile))
		files = append(files, EditorFile{Path: rel, Data: []byte(text), Ours: func(old []byte) bool { return strings.HasPrefix(string(old), tsconfigMark) }})
	}
	return files
}
