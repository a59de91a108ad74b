package assdk_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testasc"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// Issue 32: the tsconfig.json that kube32 build writes in an AssemblyScript
// pod's folder makes TypeScript's language service (tsc, what editors run)
// know AssemblyScript's types and resolve the SDK: the template's pod
// checks clean, and a use of a member the SDK does not have is an error
// naming it, so the types are the SDK's and not "any".
func TestTsconfigResolvesTheSDKForTypeScript(t *testing.T) {
	node := testenv.Tool(t, "node")
	tsc := testasc.TypeScript(t)
	dir := filepath.Join(t.TempDir(), "app")
	if code, out := testserve.Run(t, "new", "app", "--template", "as-http", "--dir", dir); code != 0 {
		t.Fatalf("new: exit %d: %s", code, out)
	}
	pod := filepath.Join(dir, "pods", "app")
	testasc.Link(t, pod)
	if code, out := testserve.Run(t, "build", dir); code != 0 {
		t.Fatalf("build: exit %d: %s", code, out)
	}
	check := func() (string, error) {
		cmd := exec.Command(node, tsc, "--noEmit", "-p", ".")
		cmd.Dir = pod
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := check(); err != nil {
		t.Fatalf("tsc on the template's pod: %v\n%s", err, out)
	}

	main := filepath.Join(pod, "main.ts")
	src, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(main, []byte(strings.Replace(string(src), "req.method", "req.verb", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := check(); err == nil || !strings.Contains(out, "Property 'verb' does not exist on type 'Request'") {
		t.Errorf("tsc on a pod using req.verb: %v, want the error naming it:\n%s", err, out)
	}
}
