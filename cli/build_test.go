package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/cli/internal/iostreams"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// typoPod is a Pod whose image no pod of the project builds. Its limit
// makes it count 64 KiB of pod memory in the fit report, as it would under
// serve --board.
const typoPod = "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: typo\nspec:\n  containers:\n    - name: c\n      image: wasm://embedded/hullo\n      resources: {limits: {memory: 64Ki}}\n"

const typoWarning = "warning: default/typo runs image wasm://embedded/hullo, which no pod of kube32.yaml builds\n"

// newCApp scaffolds the c-http app "hello" whose manifests also run typoPod.
func newCApp(t *testing.T) string {
	t.Helper()
	testenv.Tool(t, "clang")
	dir := filepath.Join(t.TempDir(), "hello")
	if code, out := run(t, "new", "hello", "--template", "c-http", "--dir", dir); code != 0 {
		t.Fatalf("kube32 new: exit %d: %s", code, out)
	}
	f, err := os.OpenFile(filepath.Join(dir, "app.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(typoPod); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Piped, `kube32 build` prints the plain size table alone on stdout, and on
// stderr the warnings but no progress.
func TestBuildPipedPrintsPlainTableOnStdoutAndWarningsOnStderr(t *testing.T) {
	dir := newCApp(t)
	ios, _, stdout, stderr := iostreams.Test()
	if code := cli.Run(context.Background(), []string{"build", dir}, ios); code != 0 {
		t.Fatalf("build: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	table := regexp.MustCompile(`^KIND\tNAME\tMODULE\tINIT-MEM\tBUNDLE\tGZIP\npod\thello\t[1-9][0-9]*\t65536\t-\t-\ntotal\t\t[1-9][0-9]*\t65536\t0\t0\n\nfit: `)
	if !table.MatchString(stdout.String()) {
		t.Errorf("stdout is not the plain size table:\n%q", stdout)
	}
	if stderr.String() != typoWarning {
		t.Errorf("stderr = %q, want only the warning %q", stderr, typoWarning)
	}

	// The stale outputs removed are reported on stderr too; -v shows the
	// compiler's commands there even when piped.
	stale := filepath.Join(dir, "build", "firmware", "images", "wasm", "old.wasm")
	if err := os.WriteFile(stale, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "build", "firmware", "images", "wasm", "hello.wasm")); err != nil {
		t.Fatal(err)
	}
	ios, _, stdout, stderr = iostreams.Test()
	if code := cli.Run(context.Background(), []string{"build", "-v", dir}, ios); code != 0 {
		t.Fatalf("build -v: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"pod hello: (cd ", typoWarning, "removed stale build/firmware/images/wasm/old.wasm\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr of build -v lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr.String(), ": built ") || strings.Contains(stderr.String(), "building") {
		t.Errorf("progress on a piped stderr:\n%s", stderr)
	}
	if !table.MatchString(stdout.String()) {
		t.Errorf("stdout of build -v is not the plain size table:\n%q", stdout)
	}
}

// On a terminal, progress lines go to stderr and the table on stdout is
// aligned, with readable sizes.
func TestBuildOnTerminalShowsProgressOnStderrAndAlignedTable(t *testing.T) {
	dir := newCApp(t)
	ios, _, stdout, stderr := iostreams.Test()
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	if code := cli.Run(context.Background(), []string{"build", dir}, ios); code != 0 {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	// The started step is redrawn in place with its elapsed time, then
	// replaced by the line of the built step.
	progress := regexp.MustCompile(`^pod hello: building \(c\)…(\r\x1b\[Kpod hello: building \(c\)… [0-9]+\.[0-9]s)*\r\x1b\[K` +
		`pod hello: built build/firmware/images/wasm/hello\.wasm \([0-9]+\.[0-9]s\)\n` + regexp.QuoteMeta(typoWarning) + `$`)
	if !progress.MatchString(stderr.String()) {
		t.Errorf("stderr = %q, want it to match %s", stderr, progress)
	}
	table := regexp.MustCompile(`^\nKIND +NAME +MODULE +INIT-MEM +BUNDLE +GZIP *\npod +hello +[0-9.]+ (B|KiB) +64\.0 KiB +- +- *\ntotal +[0-9.]+ (B|KiB) +64\.0 KiB +0 B +0 B *\n\nfit: `)
	if !table.MatchString(stdout.String()) {
		t.Errorf("stdout is not the aligned size table:\n%s", stdout)
	}

	// Progress follows stderr alone: a piped stdout keeps the plain table.
	ios, _, stdout, stderr = iostreams.Test()
	ios.SetStderrTTY(true)
	if code := cli.Run(context.Background(), []string{"build", dir}, ios); code != 0 {
		t.Fatalf("second build: exit %d\n%s", code, stderr)
	}
	if want := "pod hello: up to date\n" + typoWarning; stderr.String() != want {
		t.Errorf("second build: stderr = %q, want %q", stderr, want)
	}
	if !strings.HasPrefix(stdout.String(), "KIND\tNAME\t") {
		t.Errorf("second build: stdout is not the plain table:\n%q", stdout)
	}
}

// A failed build still prints its warnings (the typo may be the cause), then
// the error once, and exits 1.
func TestBuildFailurePrintsWarningsAndError(t *testing.T) {
	dir := newCApp(t)
	if err := os.WriteFile(filepath.Join(dir, "pods", "hello", "main.c"), []byte("int broken(\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, stdout, stderr := iostreams.Test()
	if code := cli.Run(context.Background(), []string{"build", dir}, ios); code != 1 {
		t.Fatalf("build of a broken pod: exit %d, want 1\n%s", code, stderr)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout of a failed build = %q, want nothing", stdout)
	}
	if !strings.HasPrefix(stderr.String(), typoWarning+"kube32: ") || !strings.Contains(stderr.String(), "pod hello") {
		t.Errorf("stderr = %q, want the warning, then the error naming pod hello", stderr)
	}
}

// `build -o json` prints the result as JSON on stdout, whatever the
// streams are; warnings stay on stderr.
func TestBuildJSON(t *testing.T) {
	dir := newCApp(t)
	ios, _, stdout, stderr := iostreams.Test()
	ios.SetStdoutTTY(true)
	if code := cli.Run(context.Background(), []string{"build", "-o", "json", dir}, ios); code != 0 {
		t.Fatalf("build -o json: exit %d\n%s", code, stderr)
	}
	var res struct {
		BuildDir string `json:"buildDir"`
		Pods     []struct {
			Name               string          `json:"name"`
			Image              string          `json:"image"`
			Module             string          `json:"module"`
			ModuleBytes        int64           `json:"moduleBytes"`
			InitialMemoryBytes int64           `json:"initialMemoryBytes"`
			MemoryLimitBytes   int64           `json:"memoryLimitBytes"`
			Assets             json.RawMessage `json:"assets"`
			CompilerWarnings   *string         `json:"compilerWarnings"`
			UpToDate           *bool           `json:"upToDate"`
		} `json:"pods"`
		Bundles []json.RawMessage `json:"bundles"`
		Total   struct {
			ModuleBytes int64 `json:"moduleBytes"`
		} `json:"total"`
		Removed  []string `json:"removed"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not the build's JSON: %v\n%s", err, stdout)
	}
	if res.BuildDir != filepath.Join(dir, "build") || len(res.Pods) != 1 || res.Bundles == nil || res.Removed == nil {
		t.Fatalf("result %+v", res)
	}
	p := res.Pods[0]
	if p.Name != "hello" || p.Image != "wasm://embedded/hello" || p.Module != "firmware/images/wasm/hello.wasm" ||
		p.ModuleBytes == 0 || p.InitialMemoryBytes != 65536 || p.MemoryLimitBytes != 65536 ||
		string(p.Assets) != "null" || p.CompilerWarnings == nil || *p.CompilerWarnings != "" || p.UpToDate == nil || *p.UpToDate {
		t.Errorf("pod %+v", p)
	}
	if res.Total.ModuleBytes != p.ModuleBytes {
		t.Errorf("total module bytes %d, pod %d", res.Total.ModuleBytes, p.ModuleBytes)
	}
	if want := strings.TrimPrefix(strings.TrimSuffix(typoWarning, "\n"), "warning: "); len(res.Warnings) != 1 || res.Warnings[0] != want {
		t.Errorf("warnings %q, want [%q]", res.Warnings, want)
	}
	if stderr.String() != typoWarning {
		t.Errorf("stderr = %q, want the warning alone", stderr)
	}
}

// A compiler warning is shown without -v, on stderr, and again by a build
// that finds the module up to date; -o json carries it too.
func TestBuildShowsCompilerWarnings(t *testing.T) {
	dir := newCApp(t)
	main := filepath.Join(dir, "pods", "hello", "main.c")
	src, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	// An implicit conversion that changes the value: clang warns by default.
	if err := os.WriteFile(main, append(src, "int truncated(void) { int x = 3.5; return x; }\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pass := range []string{"first build", "up-to-date build"} {
		code, stdout, stderr := runCLI(t, "build", dir)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", pass, code, stderr)
		}
		if !strings.HasPrefix(stderr, "pod hello: compiler warnings:\npods/hello/main.c:") || !strings.Contains(stderr, "warning: implicit conversion") {
			t.Errorf("%s: stderr lacks the compiler's warning:\n%s", pass, stderr)
		}
		if strings.Contains(stdout, "warning") {
			t.Errorf("%s: warning on stdout:\n%s", pass, stdout)
		}
	}
	code, stdout, stderr := runCLI(t, "build", "-o", "json", dir)
	var res struct {
		Pods []struct {
			CompilerWarnings string `json:"compilerWarnings"`
		} `json:"pods"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || len(res.Pods) != 1 || !strings.Contains(res.Pods[0].CompilerWarnings, "implicit conversion") {
		t.Errorf("build -o json: exit %d, stdout %s, stderr %s", code, stdout, stderr)
	}
}

// --release reaches the build, of build and of flash alike: flash after a
// release build finds it up to date.
func TestBuildAndFlashRelease(t *testing.T) {
	testenv.Tools(t, "wasm-opt")
	dir := newCApp(t)
	ios, _, stdout, stderr := iostreams.Test()
	if code := cli.Run(context.Background(), []string{"build", "--release", "-o", "json", dir}, ios); code != 0 {
		t.Fatalf("build --release: exit %d\n%s", code, stderr)
	}
	var res struct {
		Pods []struct{ ModuleBytes, CompiledBytes int64 }
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || len(res.Pods) != 1 {
		t.Fatalf("build --release -o json: %v\n%s", err, stdout)
	}
	if p := res.Pods[0]; p.CompiledBytes == 0 || p.ModuleBytes > p.CompiledBytes {
		t.Errorf("release pod: module %d bytes, compiled %d", p.ModuleBytes, p.CompiledBytes)
	}
	fw := t.TempDir()
	testenv.WriteFiles(t, fw, map[string]string{"CMakeLists.txt": ""})
	ios, _, _, stderr = iostreams.Test()
	if code := cli.Run(context.Background(), []string{"flash", "--release", "--dry-run", "--firmware", fw, dir}, ios); code != 0 {
		t.Fatalf("flash --release: exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr.String(), "built first") {
		t.Errorf("flash --release rebuilt a release build:\n%s", stderr)
	}
}

func TestKeepNamesNeedsRelease(t *testing.T) {
	for _, args := range [][]string{{"build", "--keep-names", t.TempDir()}, {"flash", "--keep-names", "--sd", t.TempDir(), t.TempDir()}} {
		ios, _, _, stderr := iostreams.Test()
		if code := cli.Run(context.Background(), args, ios); code != 2 || !strings.Contains(stderr.String(), "--keep-names needs --release") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
}
