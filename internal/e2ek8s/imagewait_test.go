package e2ek8s

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// TestMistypedImageWaitsOnKubernetes is docs/oci.md's "Pull errors" for a
// wasm:// module on a real control plane: a Deployment whose image names a
// module the node's --images does not hold (apq for app) has, 30 s later,
// one pod, Pending in ImagePullBackOff, and no Failed pod (a Failed pod is
// replaced by its ReplicaSet, which made hundreds); once the module is in
// the node's images, the pod starts by itself and the Deployment rolls out.
func TestMistypedImageWaitsOnKubernetes(t *testing.T) {
	c, k, cs := startCluster(t)
	images, probe := imagesDir(t)
	t.Log(k.run(t, "install", "--kubeconfig", c.Kubeconfig))
	nodeKubeconfig := c.TokenKubeconfig(t, kubectl(t, c, "", "create", "token", "kube32-node", "-n", abi.NamespaceSystem, "--duration=1h"))
	const ip = "127.0.0.31"
	k.start(t, "kube32-a", "node", "--kubeconfig", nodeKubeconfig, "--name", "kube32-a", "--node-ip", ip,
		"--pod-port", strconv.Itoa(testenv.FreePort(t, ip)), "--kubelet-port", strconv.Itoa(testenv.FreePort(t, ip)), "--images", images)
	testenv.Eventually(t, "node kube32-a Ready", func() bool { return nodeReady(cs, "kube32-a") == corev1.ConditionTrue })

	kubectl(t, c, deployment("apq", "wasm://embedded/apq", 1), "apply", "-f", "-")
	time.Sleep(30 * time.Second)
	pods := allPodsOf(t, cs, "apq")
	if len(pods) != 1 {
		t.Fatalf("%d pods of the Deployment 30 s after it was applied, want 1: %v", len(pods), podPhases(pods))
	}
	p := pods[0]
	st := p.Status.ContainerStatuses
	if p.Status.Phase != corev1.PodPending || len(st) != 1 || st[0].State.Waiting == nil || st[0].State.Waiting.Reason != "ImagePullBackOff" {
		t.Fatalf("pod %s: phase %s, container statuses %+v; want Pending, waiting in ImagePullBackOff", p.Name, p.Status.Phase, st)
	}

	wasm := filepath.Join(images, "firmware", "images", "wasm", "apq.wasm")
	if err := os.WriteFile(wasm, probe, 0o644); err != nil {
		t.Fatal(err)
	}
	// The next look comes after the backoff, which has doubled by now.
	kubectl(t, c, "", "rollout", "status", "deployment/apq", fmt.Sprintf("--timeout=%ds", int(abi.ImagePullBackoffMax/time.Second)))
	pods = allPodsOf(t, cs, "apq")
	if len(pods) != 1 || pods[0].Name != p.Name || pods[0].Status.Phase != corev1.PodRunning {
		t.Errorf("after the module was added: %v, want the pod %s Running", podPhases(pods), p.Name)
	}
	if got := viaPodPort(t, cs, pods[0], "/hello"); got != "hello\n" {
		t.Errorf("pod %s answered %q", pods[0].Name, got)
	}
}

// allPodsOf lists every pod labelled app=app, whatever its phase.
func allPodsOf(t *testing.T, cs *kubernetes.Clientset, app string) []corev1.Pod {
	t.Helper()
	list, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func podPhases(pods []corev1.Pod) map[string]corev1.PodPhase {
	out := map[string]corev1.PodPhase{}
	for _, p := range pods {
		out[p.Name] = p.Status.Phase
	}
	return out
}
