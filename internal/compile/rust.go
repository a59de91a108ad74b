package compile

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	rustsdk "github.com/kube32/kube32/sdk/rust"
)

// rustTargets are the WASI targets a Rust pod is built for, in order of
// preference: wasm32-wasip1 is the name since Rust 1.78, wasm32-wasi the
// name before (Debian's rustc 1.63 has only this one).
var rustTargets = []string{"wasm32-wasip1", "wasm32-wasi"}

// rustcFallback is tried when the rustc on PATH has no WASI target: a rustup
// toolchain first on PATH often lacks it while the distribution's has it.
var rustcFallback = "/usr/bin/rustc"

// installRust says what to install when no rustc has a WASI target.
const installRust = "Rust pods need rustc with the wasm32-wasip1 or wasm32-wasi target; " +
	"on Debian or Ubuntu: sudo apt-get install rustc libstd-rust-dev-wasm32; with rustup: rustup target add wasm32-wasip1"

// rustSDKDir is where the SDK crate is written under the cache.
const rustSDKDir = "sdk/rust"

// rustToolchain is a rustc and the WASI target its sysroot has.
type rustToolchain struct {
	rustc  string
	target string
}

// findRust returns the first of the rustc on PATH and rustcFallback whose
// sysroot holds the standard library of a WASI target. `rustc --print
// target-list` is no answer: it lists every target the compiler knows, not
// the ones installed.
func findRust(ctx context.Context) (rustToolchain, error) {
	var tried []string
	candidates := []string{rustcFallback}
	if p, err := exec.LookPath("rustc"); err == nil {
		candidates = []string{p, rustcFallback}
	}
	for _, rustc := range candidates {
		if len(tried) > 0 && sameFile(rustc, tried[len(tried)-1]) {
			continue
		}
		tried = append(tried, rustc)
		out, err := exec.CommandContext(ctx, rustc, "--print", "sysroot").Output()
		if err != nil {
			continue
		}
		sysroot := strings.TrimSpace(string(out))
		for _, t := range rustTargets {
			if st, err := os.Stat(filepath.Join(sysroot, "lib", "rustlib", t, "lib")); err == nil && st.IsDir() {
				return rustToolchain{rustc: rustc, target: t}, nil
			}
		}
	}
	what := "a rustc with a WASI target"
	if len(tried) > 0 {
		what += " (tried " + strings.Join(tried, ", ") + ")"
	}
	return rustToolchain{}, &missingError{what: what, hint: installRust}
}

// sameFile reports whether a and b name the same file.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

var rustVersionRE = regexp.MustCompile(`^rustc 1\.(\d+)\.`)

// rustcBefore168 reports whether version (the first line of rustc --version)
// predates Rust 1.68, which made the default allocation error handler
// stable. Older compilers refuse a no_std crate that uses alloc unless the
// crate enables the feature, which needs RUSTC_BOOTSTRAP on a stable
// compiler: what Debian's 1.63 requires.
func rustcBefore168(version string) bool {
	m := rustVersionRE.FindStringSubmatch(version)
	if m == nil {
		return false
	}
	minor, _ := strconv.Atoi(m[1])
	return minor < 68
}

// rustCrateRoot is the pod's crate root: src/lib.rs (cargo's layout) or
// lib.rs, relative to the source directory.
func rustCrateRoot(dir string) (string, error) {
	for _, root := range []string{"src/lib.rs", "lib.rs"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(root))); err == nil {
			return root, nil
		}
	}
	return "", fmt.Errorf("no src/lib.rs or lib.rs in %s", dir)
}

// rustNoStd reports whether the crate root declares #![no_std]: such a pod
// gets the SDK without its std feature (its own allocator and panic
// handler), any other pod the SDK over the standard library.
func rustNoStd(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if strings.HasPrefix(strings.TrimSpace(s.Text()), "#![no_std]") {
			return true, nil
		}
	}
	return false, s.Err()
}

// rustCodegen are the code generation flags of the SDK and of every pod:
// small code, and a panic traps instead of unwinding.
var rustCodegen = []string{"--edition", "2021", "-C", "opt-level=s", "-C", "panic=abort"}

// rustPodFlags are the rustc flags of a pod, without paths: a cdylib
// (exports chosen by #[no_mangle], no _start) with link-time optimisation,
// and the linker flags of C pods (BaseCFlags): an 8 KiB stack placed first
// in memory, stripped as C pods are (stripFlag), and the initial memory
// fixed for small pods.
func rustPodFlags(job Job, target string, noStd, old bool) []string {
	flags := append([]string{"--crate-type", "cdylib", "--target", target}, rustCodegen...)
	flags = append(flags, "-C", "lto", "-C", "link-arg=-zstack-size=8192", "-C", "link-arg=--stack-first", "-C", "link-arg="+stripFlag(job))
	if n := initialMemory(job.MemoryLimit); n > 0 {
		flags = append(flags, "-C", "link-arg=--initial-memory="+strconv.FormatInt(n, 10))
	}
	if noStd && old {
		flags = append(flags, rustOldNoStdFlags...)
	}
	return flags
}

// rustOldNoStdFlags are the flags a no_std pod needs on a rustc before 1.68
// (see rustcBefore168), with RUSTC_BOOTSTRAP=1.
var rustOldNoStdFlags = []string{"-Z", "crate-attr=feature(default_alloc_error_handler)"}

// rustSDKFlags are the rustc flags of the SDK crate.
func rustSDKFlags(target string, noStd bool) []string {
	flags := append([]string{"--crate-name", "k32", "--crate-type", "rlib", "--target", target}, rustCodegen...)
	if !noStd {
		flags = append(flags, "--cfg", `feature="std"`)
	}
	return flags
}

func compileRust(ctx context.Context, job Job) (*Module, error) {
	tc, err := findRust(ctx)
	if err != nil {
		return nil, err
	}
	root, err := rustCrateRoot(job.SourceDir)
	if err != nil {
		return nil, err
	}
	noStd, err := rustNoStd(filepath.Join(job.SourceDir, filepath.FromSlash(root)))
	if err != nil {
		return nil, err
	}
	old := rustcBefore168(toolVersion(ctx, tc.rustc, "--version"))
	sdk := filepath.Join(job.CacheDir, filepath.FromSlash(rustSDKDir))
	if err := writeSDK(sdk, rustsdk.Source, rustSDKHash()); err != nil {
		return nil, err
	}
	outDir := filepath.Join(job.CacheDir, "rust", job.Name)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	env := os.Environ()
	if noStd && old {
		env = append(env, "RUSTC_BOOTSTRAP=1")
	}
	run := func(dir string, args []string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, tc.rustc, args...)
		cmd.Dir, cmd.Env = dir, env
		if job.Log != nil {
			fmt.Fprintf(job.Log, "pod %s: (cd %s && %s %s)\n", job.Name, dir, filepath.Base(tc.rustc), strings.Join(args, " "))
		}
		output, err := cmd.CombinedOutput()
		if err != nil {
			return nil, &toolError{tool: "rustc", output: string(output), err: err, hint: rustHint(job, string(output))}
		}
		return output, nil
	}

	// The SDK is compiled for each pod: its feature follows the pod, and
	// pods built in parallel must not share an output.
	rlib := filepath.Join(outDir, "libk32.rlib")
	sdkArgs := append(rustSDKFlags(tc.target, noStd), "--remap-path-prefix", sdk+"=k32", "-o", rlib, filepath.Join(sdk, "src", "lib.rs"))
	if _, err := run(sdk, sdkArgs); err != nil {
		return nil, fmt.Errorf("compiling the Rust SDK: %w", err)
	}
	out := filepath.Join(outDir, job.Name+".wasm")
	os.Remove(out)
	// rustc runs in the project directory and is given the crate root from
	// there, so that diagnostics (and panic locations) read
	// "pods/api/src/lib.rs:3:5", a path an editor opened at the project
	// finds.
	args := append(rustPodFlags(job, tc.target, noStd, old),
		"--crate-name", rustCrateName(job.Name), "--extern", "k32="+rlib, "-o", out, job.fromRoot(filepath.Join(job.SourceDir, root)))
	output, err := run(job.rootDir(), args)
	if err != nil {
		return nil, err
	}
	return compiled(out, output)
}

// rustCrateName is the crate name of a pod: its name, which may hold
// dashes, which crate names may not.
func rustCrateName(pod string) string { return strings.ReplaceAll(pod, "-", "_") }

// rustHint turns the common failures into the action that fixes them.
func rustHint(job Job, output string) string {
	switch {
	case strings.Contains(output, "can't find crate for `std`") || strings.Contains(output, "can't find crate for `core`"):
		return installRust
	case strings.Contains(output, "initial memory too small"):
		return fmt.Sprintf("the pod's memory limit (%d bytes) fixes the initial memory at %d bytes; raise resources.limits.memory or shrink the module's static data",
			job.MemoryLimit, initialMemory(job.MemoryLimit))
	}
	return ""
}

var (
	rustHashOnce sync.Once
	rustHash     string
)

// rustSDKHash is the content hash of the embedded Rust SDK; it goes into
// the fingerprints of Rust pods.
func rustSDKHash() string {
	rustHashOnce.Do(func() { rustHash = hashFS(rustsdk.Source) })
	return rustHash
}

// rustFingerprint is what a Rust pod's fingerprint holds besides its
// sources: the compiler, its version and target, and the flags.
func rustFingerprint(ctx context.Context, job Job) string {
	tc, err := findRust(ctx)
	if err != nil {
		return "no rustc"
	}
	v := toolVersion(ctx, tc.rustc, "--version")
	return fmt.Sprintf("%s %s %s %s", tc.rustc, v, tc.target, strings.Join(rustPodFlags(job, tc.target, false, rustcBefore168(v)), " "))
}
