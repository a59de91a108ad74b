package apiserver_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/host/internal/cluster"
	"github.com/kube32/kube32/host/internal/kubeconfig"
	"github.com/kube32/kube32/internal/testkit/testbuild"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// echoImages returns the build directory of examples/echo, built as
// `kube32 build` does (once per test run, through the fixture cache).
func echoImages(t *testing.T) string {
	t.Helper()
	testenv.Tool(t, "clang")
	return testbuild.Project(t, filepath.Join("..", "..", "..", "examples", "echo"))
}

// env is a running cluster with nothing applied, and a kubectl with a fresh
// kubeconfig and discovery cache pointing at it.
type env struct {
	c          *cluster.Cluster
	kubectl    string
	kubeconfig string
	cacheDir   string
	apiURL     string // the API server's address
	images     string // the image tree the cluster serves, which a test may add to
}

func startCluster(t *testing.T, token string) *env {
	t.Helper()
	images := echoImages(t)
	c, err := cluster.Start(context.Background(), cluster.Options{Images: os.DirFS(images), Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	dir := t.TempDir()
	e := &env{c: c, kubeconfig: filepath.Join(dir, "kubeconfig"), cacheDir: filepath.Join(dir, "cache"), apiURL: c.APIURL(), images: images}
	if err := kubeconfig.Write(e.kubeconfig, kubeconfig.Entry{Server: c.APIURL(), Token: token}); err != nil {
		t.Fatal(err)
	}
	return e
}

// run runs kubectl with the env's kubeconfig and returns its combined
// output; it fails the test when kubectl fails unless wantErr.
func (e *env) run(t *testing.T, wantErr bool, args ...string) string {
	t.Helper()
	out, err := e.cmd(t, nil, args...).CombinedOutput()
	if (err != nil) != wantErr {
		t.Fatalf("kubectl %s: err %v (want error: %v)\n%s", strings.Join(args, " "), err, wantErr, out)
	}
	return string(out)
}

func (e *env) cmd(t *testing.T, extraEnv []string, args ...string) *exec.Cmd {
	t.Helper()
	if e.kubectl == "" {
		e.kubectl = testenv.Tool(t, "kubectl")
	}
	cmd := exec.Command(e.kubectl, append([]string{"--context", "kube32", "--cache-dir", e.cacheDir, "--request-timeout", "20s"}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+e.kubeconfig)
	cmd.Env = append(cmd.Env, extraEnv...)
	return cmd
}

// table splits kubectl's table output into the header's columns and rows
// of fields (columns separated by two or more spaces).
func table(out string) (header []string, rows [][]string) {
	for i, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		fields := splitColumns(line)
		if i == 0 {
			header = fields
		} else if len(fields) > 0 {
			rows = append(rows, fields)
		}
	}
	return header, rows
}

func splitColumns(line string) []string {
	var out []string
	for _, f := range strings.Split(line, "  ") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
