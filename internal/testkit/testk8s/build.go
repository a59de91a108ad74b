package testk8s

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// Bins are the paths of the built control-plane programs.
type Bins struct {
	Etcd, APIServer, ControllerManager, Scheduler string
}

// programs are the binaries Binaries builds, by file name.
var programs = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// coldBuildBudget is how much of the test's deadline a cold build may need:
// a test run with go test's default 10 minutes cannot finish one.
const coldBuildBudget = 40 * time.Minute

// Binaries builds, or reuses from the cache directory, etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler. A lock file keeps the test
// processes of one `go test` run from building them twice: the others wait
// and reuse.
func Binaries(t testing.TB) Bins {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		unavailable(t, "no go command to build it: %v", err)
	}
	dir, err := cacheDir()
	if err != nil {
		unavailable(t, "%v", err)
	}
	bin := filepath.Join(dir, "bin")
	bins := Bins{
		Etcd:              filepath.Join(bin, exe("etcd")),
		APIServer:         filepath.Join(bin, exe("kube-apiserver")),
		ControllerManager: filepath.Join(bin, exe("kube-controller-manager")),
		Scheduler:         filepath.Join(bin, exe("kube-scheduler")),
	}
	buildOnce(t, dir, build{
		what: fmt.Sprintf("kubernetes %s and etcd %s", KubernetesVersion, EtcdVersion), cold: "15-20 min", budget: coldBuildBudget,
		done: func() bool { return built(bin) },
		run:  func() error { return buildAll(t, dir, bin) },
	})
	return bins
}

// build is one build of the cache: what it makes and about how long it
// takes cold (for messages), the test deadline a cold one needs, whether
// it is done, and how to run it.
type build struct {
	what   string
	cold   string
	budget time.Duration
	done   func() bool
	run    func() error
}

// buildOnce runs b unless it is done, under the cache's lock so that
// concurrent test processes build once; a build that cannot fit the test's
// deadline or fails makes the control plane unavailable.
func buildOnce(t testing.TB, dir string, b build) {
	t.Helper()
	if b.done() {
		return
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		unavailable(t, "%v", err)
	}
	unlock, err := testenv.LockFile(filepath.Join(dir, "build.lock"), func() {
		t.Logf("testk8s: another process is building in %s; waiting", dir)
	})
	if err != nil {
		unavailable(t, "%v", err)
	}
	defer unlock()
	if b.done() {
		return
	}
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := d.Deadline(); ok && time.Until(end) < b.budget {
			unavailable(t, "%s not built yet in %s, and a cold build (about %s) needs go test -timeout 60m", b.what, dir, b.cold)
		}
	}
	start := time.Now()
	t.Logf("testk8s: building %s in %s (cold: about %s)", b.what, dir, b.cold)
	if err := b.run(); err != nil {
		unavailable(t, "%s: build failed: %v", b.what, err)
	}
	t.Logf("testk8s: built %s in %s", b.what, time.Since(start).Round(time.Second))
}

// versionLDFlags stamps the version that Kubernetes' own release build sets
// with -X: without it kube-apiserver says it is v0.0.0-master, and kubectl
// and client-go see that in /version.
func versionLDFlags() string {
	major, minor, _ := strings.Cut(strings.TrimPrefix(KubernetesVersion, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	var flags []string
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		flags = append(flags,
			"-X "+pkg+".gitVersion="+KubernetesVersion,
			"-X "+pkg+".gitMajor="+major,
			"-X "+pkg+".gitMinor="+minor,
			"-X "+pkg+".gitTreeState=clean",
			"-X "+pkg+".buildDate=1970-01-01T00:00:00Z")
	}
	return strings.Join(flags, " ")
}

// recipe names what the binaries were built from; the stamp file holds it,
// and binaries without the current recipe are rebuilt.
func recipe() string {
	return fmt.Sprintf("k8s.io/kubernetes %s (k8s.io/* %s), go.etcd.io/etcd/server/v3 %s, %s, %s/%s, -ldflags=%q\n",
		KubernetesVersion, StagingVersion, EtcdVersion, strings.Join(programs, " "), runtime.GOOS, runtime.GOARCH, versionLDFlags())
}

func built(bin string) bool {
	b, err := os.ReadFile(filepath.Join(bin, "STAMP"))
	if err != nil || string(b) != recipe() {
		return false
	}
	for _, name := range programs {
		if fi, err := os.Stat(filepath.Join(bin, exe(name))); err != nil || fi.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

func buildAll(t testing.TB, dir, bin string) error {
	os.Remove(filepath.Join(bin, "STAMP"))
	kube := filepath.Join(dir, "src", "kube")
	etcd := filepath.Join(dir, "src", "etcd")
	k8sPkgs := []string{"k8s.io/kubernetes/cmd/kube-apiserver", "k8s.io/kubernetes/cmd/kube-controller-manager", "k8s.io/kubernetes/cmd/kube-scheduler"}
	const etcdPkg = "go.etcd.io/etcd/server/v3"

	// The wrapper needs kubernetes' go.mod to know which modules to replace,
	// so the first step runs in a bare module.
	for _, d := range []string{kube, etcd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(kube, "go.mod"), []byte("module kube32.local/k8sbuild\n"), 0o644); err != nil {
		return err
	}
	out, err := goCmd(t, "fetch k8s.io/kubernetes's go.mod", kube, "mod", "download", "-json", "k8s.io/kubernetes@"+KubernetesVersion)
	if err != nil {
		return err
	}
	modFile, err := jsonField(out, "GoMod")
	if err != nil {
		return err
	}
	upstream, err := os.ReadFile(modFile)
	if err != nil {
		return err
	}
	gomod, err := wrapperGoMod(upstream)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(kube, "go.mod"), gomod, 0o644); err != nil {
		return err
	}
	os.Remove(filepath.Join(kube, "go.sum"))
	etcdMod := fmt.Sprintf("module kube32.local/etcdbuild\n\ngo %s\n\nrequire %s %s\n", goDirective(upstream), etcdPkg, EtcdVersion)
	if err := os.WriteFile(filepath.Join(etcd, "go.mod"), []byte(etcdMod), 0o644); err != nil {
		return err
	}
	os.Remove(filepath.Join(etcd, "go.sum"))

	tmp, err := os.MkdirTemp(bin, ".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	steps := []struct {
		what, dir string
		args      []string
	}{
		{"resolve kube-apiserver, kube-controller-manager and kube-scheduler", kube, append([]string{"get", "-tool"}, k8sPkgs...)},
		{"download their modules", kube, []string{"mod", "download"}},
		{"resolve etcd", etcd, []string{"get", "-tool", etcdPkg}},
		{"download its modules", etcd, []string{"mod", "download"}},
		{"build kube-apiserver, kube-controller-manager and kube-scheduler (the long step)", kube, append([]string{"build", "-ldflags=" + versionLDFlags(), "-o", tmp + string(filepath.Separator)}, k8sPkgs...)},
		{"build etcd", etcd, []string{"build", "-o", filepath.Join(tmp, exe("etcd")), etcdPkg}},
	}
	for _, s := range steps {
		if _, err := goCmd(t, s.what, s.dir, s.args...); err != nil {
			return err
		}
	}
	for _, name := range programs {
		if err := os.Rename(filepath.Join(tmp, exe(name)), filepath.Join(bin, exe(name))); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(bin, "STAMP"), []byte(recipe()), 0o644)
}

// goCmd runs the go command in dir, logging the step, a line every minute
// while it runs, and its time; it returns its standard output.
func goCmd(t testing.TB, what, dir string, args ...string) ([]byte, error) {
	t.Logf("testk8s: %s: go %s", what, strings.Join(args, " "))
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	// The wrapper modules stand alone: no workspace, no flags of the caller.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(time.Minute)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				t.Logf("testk8s: %s: still running (%s)", what, time.Since(start).Round(time.Second))
			}
		}
	}()
	err := cmd.Run()
	close(done)
	if err != nil {
		return nil, fmt.Errorf("%s: go %s: %v\n%s", what, strings.Join(args, " "), err, tail(stderr.String(), 40))
	}
	t.Logf("testk8s: %s: done in %s", what, time.Since(start).Round(time.Second))
	return stdout.Bytes(), nil
}

// staging matches a replace line of kubernetes' go.mod that points into
// its staging folders.
var staging = regexp.MustCompile(`(?m)^\s*(k8s\.io/[A-Za-z0-9._-]+)\s*=>\s*\./staging/`)

// wrapperGoMod is the go.mod of a module requiring k8s.io/kubernetes, with
// each of its staging replaces pointing at the published StagingVersion.
func wrapperGoMod(upstream []byte) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "module kube32.local/k8sbuild\n\ngo %s\n\n", goDirective(upstream))
	if m := regexp.MustCompile(`(?m)^godebug\s+(.*)$`).FindSubmatch(upstream); m != nil {
		fmt.Fprintf(&b, "godebug %s\n\n", m[1])
	}
	fmt.Fprintf(&b, "require k8s.io/kubernetes %s\n\nreplace (\n", KubernetesVersion)
	ms := staging.FindAllSubmatch(upstream, -1)
	if len(ms) == 0 {
		return nil, errors.New("k8s.io/kubernetes go.mod has no staging replaces; the wrapper recipe no longer fits")
	}
	for _, m := range ms {
		fmt.Fprintf(&b, "\t%s => %s %s\n", m[1], m[1], StagingVersion)
	}
	b.WriteString(")\n")
	return b.Bytes(), nil
}

// goDirective is the go version kubernetes' go.mod asks for.
func goDirective(upstream []byte) string {
	if m := regexp.MustCompile(`(?m)^go\s+(\S+)`).FindSubmatch(upstream); m != nil {
		return string(m[1])
	}
	return "1.26.0"
}

// jsonField picks "name": "value" out of go mod download -json's output.
func jsonField(out []byte, name string) (string, error) {
	m := regexp.MustCompile(`"` + name + `":\s*"([^"]*)"`).FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("go mod download printed no %s: %s", name, out)
	}
	return string(m[1]), nil
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}
