package testk8s

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// TestRealControlPlaneStarts checks the helper itself: the real etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler start, a real
// kubectl lists the namespaces they made, and a pod is bound to a node.
func TestRealControlPlaneStarts(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	c := Start(t)
	run := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", c.Kubeconfig}, args...)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG=")
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}

	out, err := run("", "get", "ns", "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"namespace/default", "namespace/kube-system", "namespace/kube-public"} {
		if !strings.Contains(out, ns) {
			t.Errorf("kubectl get ns lists no %s:\n%s", ns, out)
		}
	}

	// kube-controller-manager ran: the default ServiceAccount that Start
	// waited for is there for kubectl too.
	out, err = run("", "get", "serviceaccount", "default", "-n", "default", "-o", "name")
	if err != nil || strings.TrimSpace(out) != "serviceaccount/default" {
		t.Fatalf("kubectl get serviceaccount default: %q %v", out, err)
	}

	// kube-scheduler runs: a pod that tolerates every taint is bound to the
	// only node (a Node object alone, created with the room for pods a
	// kubelet would report; no kubelet runs its pods).
	if _, err := run(nodeAndPod, "create", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	testenv.EventuallyNil(t, "the scheduler to bind pod probe to node probe-node", func() error {
		out, err := run("", "get", "pod", "probe", "-o", "jsonpath={.spec.nodeName}")
		if err == nil && out != "probe-node" {
			err = fmt.Errorf("pod probe's nodeName is %q", out)
		}
		return err
	})

	// The aggregation layer proxies the Metrics API to metrics-server, whose
	// list of nodes holds none here: probe-node has no kubelet to scrape.
	t.Run("MetricsServerServesTheMetricsAPIThroughTheAggregator", func(t *testing.T) {
		StartMetricsServer(t, c)
		out, err := run("", "get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes")
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Kind, APIVersion string
			Items            []json.RawMessage
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil || list.Kind != "NodeMetricsList" || list.APIVersion != "metrics.k8s.io/v1beta1" || len(list.Items) != 0 {
			t.Errorf("kubectl get --raw /apis/metrics.k8s.io/v1beta1/nodes: %v %s, want an empty NodeMetricsList", err, out)
		}
		// kubectl says "metrics not available yet" for a young pod and
		// "Metrics not available for pod ..., age: ..." for an older one (a
		// cold run builds metrics-server for minutes after the pod is made).
		out, err = run("", "top", "pod", "-n", "default")
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), "metrics not available") {
			t.Errorf("kubectl top pod with no pod scraped: %q %v, want metrics-server's \"metrics not available\"", out, err)
		}
	})
}

const nodeAndPod = `apiVersion: v1
kind: Node
metadata:
  name: probe-node
status:
  allocatable: {cpu: "1", memory: 1Gi, pods: "10"}
  capacity: {cpu: "1", memory: 1Gi, pods: "10"}
---
apiVersion: v1
kind: Pod
metadata:
  name: probe
  namespace: default
spec:
  tolerations:
  - operator: Exists
  containers:
  - name: c
    image: probe.invalid/none
`
