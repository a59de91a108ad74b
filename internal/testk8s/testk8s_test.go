package testk8s

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testenv"
)

// TestRealControlPlaneStarts checks the helper itself: the real etcd,
// kube-apiserver and kube-controller-manager start, and a real kubectl lists
// the namespaces they made.
func TestRealControlPlaneStarts(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	c := Start(t)
	cmd := exec.Command(kubectl, "--kubeconfig", c.Kubeconfig, "get", "ns", "-o", "name")
	cmd.Env = append(os.Environ(), "KUBECONFIG=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl get ns: %v\n%s", err, out)
	}
	for _, ns := range []string{"namespace/default", "namespace/kube-system", "namespace/kube-public"} {
		if !strings.Contains(string(out), ns) {
			t.Errorf("kubectl get ns lists no %s:\n%s", ns, out)
		}
	}
	// kube-controller-manager runs: the default ServiceAccount that Start
	// waited for is there for kubectl too.
	out, err = exec.Command(kubectl, "--kubeconfig", c.Kubeconfig, "get", "serviceaccount", "default", "-n", "default", "-o", "name").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "serviceaccount/default" {
		t.Fatalf("kubectl get serviceaccount default -n default: %v\n%s", err, out)
	}
}
