package compile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kube32/kube32/abi"
)

// Job is one pod to compile.
type Job struct {
	Name      string // pod name, used in errors ("building pod echo: …")
	Language  string // the Name of one of Languages
	SourceDir string // absolute source directory; for a file source (wasm), the file
	// RootDir is the absolute project directory: compilers run there, so
	// that diagnostics name paths from it ("pods/api/main.c:15:28", what
	// an editor opened at the project finds). Empty means SourceDir.
	RootDir     string
	CFlags      []string // extra clang flags (C only), after the defaults so they can override them
	MemoryLimit int64    // the pod's resources.limits.memory in bytes; 0 = none
	CacheDir    string   // the project's build/.cache: SDK copies, go.work, compiler outputs
	// GoSDKDir is where Go builds keep their copy of the Go SDK: the
	// project's .kube32/sdk/go, which the pod's go.mod and editors use too.
	// Empty means CacheDir/sdk/go.
	GoSDKDir string
	// GoWITDir is where Go builds write the Go bindings of the WIT world
	// for pods whose go.mod requires them: the project's .kube32/wit/go.
	// Empty means CacheDir/wit/go.
	GoWITDir string
	// ToolDir is the project's .kube32, where the SDK copies that tools and
	// editors read outside the build go (the AssemblyScript SDK). Empty
	// means CacheDir.
	ToolDir string
	// Exclude lists absolute directories inside SourceDir that are not
	// sources (the project's build directory when a pod's source is the
	// project itself).
	Exclude []string
	// Release builds with the linker's size flags (Go), and makes the
	// fingerprint cover Optimize, which the caller runs after Compile.
	Release bool
	// KeepNames keeps the name section in a release module.
	KeepNames bool
	// Features are the post-MVP WebAssembly features that Optimize may keep
	// and use: the board's.
	Features []abi.WasmFeature
	// Log, when set, receives the compiler command lines.
	Log io.Writer
}

// Module is a compiled pod.
type Module struct {
	Wasm []byte
	// Warnings is what the compiler printed while succeeding, as it
	// printed it (clang's warnings, with their source lines); "" when
	// it printed nothing.
	Warnings string
}

// Compile builds the job's module. Errors start with "building pod <name>: "
// and hold the compiler's output.
func Compile(ctx context.Context, job Job) (*Module, error) {
	var m *Module
	var err error
	if lang, ok := LookupLanguage(job.Language); ok {
		m, err = lang.compile(ctx, job)
	} else {
		err = fmt.Errorf("language %q is not supported (%s)", job.Language, LanguageNames())
	}
	if err != nil {
		// A compiler stopped by Ctrl-C (the terminal signals it too) or by
		// the cancelled context failed for no fault of the pod: say so,
		// rather than "clang failed (signal: interrupt)".
		if ctx.Err() != nil || killedByInterrupt(err) {
			return nil, fmt.Errorf("building pod %s: %w", job.Name, ErrInterrupted)
		}
		return nil, fmt.Errorf("building pod %s: %w", job.Name, err)
	}
	return m, nil
}

// ErrInterrupted is wrapped by the error of a compile whose context ended.
var ErrInterrupted = errors.New("interrupted")

// killedByInterrupt reports whether err is that of a compiler that died of
// SIGINT: Ctrl-C reaches the compiler as it reaches kube32, which may see
// the compiler exit before its own context ends.
func killedByInterrupt(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == os.Interrupt
}

// rootDir is where the job's compiler runs.
func (job Job) rootDir() string {
	if job.RootDir != "" {
		return job.RootDir
	}
	return job.SourceDir
}

// fromRoot names path (absolute) from the job's root directory.
func (job Job) fromRoot(path string) string {
	rel, err := filepath.Rel(job.rootDir(), path)
	if err != nil {
		return path
	}
	return rel
}

// compiled reads the module the compiler wrote to out and keeps what it
// printed.
func compiled(out string, output []byte) (*Module, error) {
	wasm, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	return &Module{Wasm: wasm, Warnings: strings.TrimSpace(string(output))}, nil
}

// toolError is a failed compiler run: the command and what it printed.
type toolError struct {
	tool   string
	output string
	err    error
	hint   string
}

func (e *toolError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed (%v)", e.tool, e.err)
	if out := strings.TrimSpace(e.output); out != "" {
		b.WriteString(":\n")
		b.WriteString(out)
	}
	if e.hint != "" {
		b.WriteString("\nhint: ")
		b.WriteString(e.hint)
	}
	return b.String()
}

func (e *toolError) Unwrap() error { return e.err }
